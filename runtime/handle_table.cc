#include "runtime/handle_table.h"

#include <algorithm>
#include <new>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "runtime/cpu_memory.h"
#include "runtime/errors.h"

namespace kscope {

HandleTable* HandleTable::MakeGlobal() {
  // Debian builds Abseil without NDEBUG, which turns on absl::Mutex's deadlock detection: a
  // lock-order graph update and a stack trace on every acquisition, several times the cost of
  // the short sections kscope's other locks (the callback registry's, the catalogue's) guard.
  // Those are leaf locks (nothing is acquired while one is held), so the detection has nothing
  // to find. (Process-wide: set when the table is first made.)
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Device memory in numbers (runtime/cpu_memory.h): CPU allocations count from the first handle.
  InstallCpuMemoryAccounting();
  return new HandleTable();
}

HandleTable::~HandleTable() {
  for (std::atomic<Entry*>& chunk : chunks_) delete[] chunk.load(std::memory_order_relaxed);
}

void HandleTable::FailStale() { Fail(kStalePointer); }

inline HandleTable::OwnedList* HandleTable::ListOf(OwnerId owner) {
  if (last_list_ == nullptr || last_owner_ != owner) {
    last_owner_ = owner;
    last_list_ = &owned_[owner];
  }
  return last_list_;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void HandleTable::Link(std::uint32_t slot, Entry& e,
                                                           OwnedList* list) {
  e.listed_in = list;
  e.previous = list->last;
  e.next = kNoSlot;
  if (list->last == kNoSlot) {
    list->first = slot;
  } else {
    At(list->last).next = slot;
  }
  list->last = slot;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void HandleTable::Unlink(Entry& e) {
  OwnedList* list = e.listed_in;
  if (e.previous == kNoSlot) {
    list->first = e.next;
  } else {
    At(e.previous).next = e.next;
  }
  if (e.next == kNoSlot) {
    list->last = e.previous;
  } else {
    At(e.next).previous = e.previous;
  }
  e.listed_in = nullptr;
}

inline void HandleTable::Store(Entry& e, Object&& object) {
  e.object_class.store(object.object_class(), std::memory_order_release);
  // Constructed over e.object, not assigned: e's object is always what a move leaves, or a new
  // slot's empty Object, whose destruction does nothing, and an assignment would release it
  // (an undefined tensor) through an out-of-line call on every handle's creation.
  ::new (&e.object) Object(std::move(object));
}

// Insert and Erase, and the owner-list steps they take, are inlined into their callers: every
// pointer call's result goes through Insert, every free through Erase.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline std::uint64_t HandleTable::Insert(Object&& object,
                                                                      OwnerId owner, int depth,
                                                                      const char* origin) {
  constexpr std::uint64_t kMaxSequence = std::uint64_t{1} << (63 - kSlotBits);
  if (ABSL_PREDICT_FALSE(next_sequence_ >= kMaxSequence))
    FailFull(kMaxSequence - 1, "handles created, the most one process can create");
  std::uint32_t slot = free_slots_;
  if (slot != kNoSlot) {
    free_slots_ = At(slot).next;
  } else {
    slot = NewSlot();
  }
  const std::uint64_t id = (next_sequence_++ << kSlotBits) | slot;
  Entry& e = At(slot);
  Store(e, std::move(object));
  e.owner = owner;
  e.origin = origin;
  e.depth = depth;
  e.id.store(id, std::memory_order_release);  // published: its class is stored
  Link(slot, e, ListOf(owner));
  ++live_;
  last_id_ = id;
  return id;
}

std::uint32_t HandleTable::NewSlot() {
  if (slot_count_ >= (std::uint32_t{1} << kSlotBits))
    FailFull(slot_count_, "live handles, the most it can hold at once");
  const std::uint32_t slot = slot_count_++;
  std::atomic<Entry*>& chunk = chunks_[slot >> kChunkBits];
  if (chunk.load(std::memory_order_relaxed) == nullptr)
    chunk.store(new Entry[std::size_t{1} << kChunkBits], std::memory_order_release);
  return slot;
}

void HandleTable::FailFull(std::uint64_t count, const char* what) {
  Fail("handle table: %d %s", count, what);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline Object HandleTable::Erase(Entry& e) {
  Unlink(e);
  Object object = std::move(e.object);  // e.object keeps a moved-from payload: nothing
  e.next = free_slots_;
  free_slots_ = SlotOf(e.id.load(std::memory_order_relaxed));
  e.id.store(0, std::memory_order_release);
  --live_;
  return object;
}

Handle HandleTable::Add(Object&& object, OwnerId owner, int depth, const char* origin) {
  absl::base_internal::SpinLockHolder lock(&mu_);
  return Handle(Insert(std::move(object), owner, depth, origin));
}

bool HandleTable::Contains(Handle h) const { return LiveEntry(h) != nullptr; }

std::optional<ObjectClass> HandleTable::ClassOf(Handle h) const {
  const Entry* e = LiveEntry(h);
  if (e == nullptr) return std::nullopt;
  const ObjectClass c = e->object_class.load(std::memory_order_acquire);
  // Freed meanwhile: the class may be a newer handle's.
  if (e->id.load(std::memory_order_acquire) != h.id()) return std::nullopt;
  return c;
}

std::size_t HandleTable::size() const {
  absl::base_internal::SpinLockHolder lock(&mu_);
  return live_;
}

std::uint64_t HandleTable::LastId() const {
  absl::base_internal::SpinLockHolder lock(&mu_);
  return last_id_;
}

Object HandleTable::Get(Handle h) const {
  absl::base_internal::SpinLockHolder lock(&mu_);
  return Find(h).object.share();
}

EntryInfo HandleTable::Info(Handle h) const {
  absl::base_internal::SpinLockHolder lock(&mu_);
  const Entry& e = Find(h);
  return EntryInfo{h, e.object.object_class(), e.owner, e.depth, e.origin};
}

Object HandleTable::Release(Handle h) {
  absl::base_internal::SpinLockHolder lock(&mu_);
  return Erase(Find(h));
}

std::vector<Object> HandleTable::ReleaseAll(absl::Span<const Handle> handles,
                                            absl::FunctionRef<void(std::size_t)> on_stale) {
  std::vector<Object> released;
  absl::base_internal::SpinLockHolder lock(&mu_);
  for (std::size_t i = 0; i < handles.size(); ++i) {
    if (Lookup(handles[i]) == nullptr) {
      on_stale(i);
      Fail(kStalePointer);  // on_stale must throw; this keeps the contract if it does not
    }
  }
  released.reserve(handles.size());
  for (Handle h : handles) {
    if (Entry* e = Lookup(h)) released.push_back(Erase(*e));
  }
  return released;
}

std::vector<Object> HandleTable::ReleaseOwned(OwnerId owner) {
  std::vector<Object> released;
  absl::base_internal::SpinLockHolder lock(&mu_);
  auto it = owned_.find(owner);
  if (it == owned_.end()) return released;
  // Room for all of them first: growing the vector would move every Object released so far.
  std::size_t count = 0;
  for (std::uint32_t slot = it->second.last; slot != kNoSlot; slot = At(slot).previous) ++count;
  released.reserve(count);
  for (std::uint32_t slot = it->second.last; slot != kNoSlot; slot = it->second.last) {
    released.push_back(Erase(At(slot)));
  }
  if (owner != kRootOwner) {
    if (last_list_ == &it->second) last_list_ = nullptr;
    owned_.erase(it);
  }
  return released;
}

bool HandleTable::MoveIfOwnedBy(Handle h, OwnerId from, OwnerId to, int depth) {
  absl::base_internal::SpinLockHolder lock(&mu_);
  Entry* e = Lookup(h);
  if (e == nullptr || e->owner != from) return false;
  Unlink(*e);
  Link(SlotOf(h.id()), *e, ListOf(to));
  e->owner = to;
  e->depth = depth;
  return true;
}

Object HandleTable::Replace(Handle h, Object object, absl::Span<const Handle> consumed,
                            std::vector<Object>* released) {
  absl::base_internal::SpinLockHolder lock(&mu_);
  Find(h);
  for (Handle c : consumed) Find(c);
  for (Handle c : consumed) {
    if (c == h) continue;
    if (Entry* e = Lookup(c)) released->push_back(Erase(*e));
  }
  Entry& e = Find(h);
  Object old = std::move(e.object);
  Store(e, std::move(object));
  return old;
}

Object HandleTable::Transfer(Handle src, Handle dst) {
  absl::base_internal::SpinLockHolder lock(&mu_);
  Entry& from = Find(src);
  Entry& to = Find(dst);
  Object old = std::move(to.object);
  Store(to, Erase(from));
  return old;
}

Handle HandleTable::Consume(absl::Span<const Handle> consumed, Object&& object, OwnerId owner,
                            int depth, const char* origin, std::vector<Object>* released) {
  absl::base_internal::SpinLockHolder lock(&mu_);
  for (Handle h : consumed) Find(h);
  for (Handle h : consumed) {
    if (Entry* e = Lookup(h)) released->push_back(Erase(*e));
  }
  return Handle(Insert(std::move(object), owner, depth, origin));
}

std::vector<std::pair<EntryInfo, Object>> HandleTable::Snapshot() const {
  std::vector<std::pair<EntryInfo, Object>> rows;
  {
    absl::base_internal::SpinLockHolder lock(&mu_);
    rows.reserve(live_);
    for (std::uint32_t slot = 0; slot < slot_count_; ++slot) {
      const Entry& e = *SlotEntry(slot);
      const std::uint64_t id = e.id.load(std::memory_order_relaxed);
      if (id == 0) continue;
      rows.emplace_back(EntryInfo{Handle(id), e.object.object_class(), e.owner, e.depth, e.origin},
                        e.object.share());
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first.handle < b.first.handle; });
  return rows;
}

}  // namespace kscope
