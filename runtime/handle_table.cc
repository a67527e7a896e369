#include "runtime/handle_table.h"

#include <algorithm>
#include <utility>

#include "runtime/errors.h"

namespace kscope {

HandleTable& HandleTable::Global() {
  static HandleTable* const table = [] {
    // Debian builds Abseil without NDEBUG, which turns on absl::Mutex's deadlock detection: a
    // lock-order graph update and a stack trace on every acquisition, several times the cost
    // of the table operation itself. The table's lock is a leaf lock (nothing is acquired
    // while it is held), so the detection has nothing to find here.
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    return new HandleTable();
  }();
  return *table;
}

void HandleTable::FailStale() { Fail(kStalePointer); }

inline HandleTable::OwnedList* HandleTable::ListOf(OwnerId owner) {
  if (last_list_ == nullptr || last_owner_ != owner) {
    last_owner_ = owner;
    last_list_ = &owned_[owner];
  }
  return last_list_;
}

inline void HandleTable::Link(std::uint32_t slot, OwnedList* list) {
  Entry& e = entries_[slot];
  e.listed_in = list;
  e.previous = list->last;
  e.next = kNoSlot;
  if (list->last == kNoSlot) {
    list->first = slot;
  } else {
    entries_[list->last].next = slot;
  }
  list->last = slot;
}

inline void HandleTable::Unlink(std::uint32_t slot) {
  Entry& e = entries_[slot];
  OwnedList* list = e.listed_in;
  if (e.previous == kNoSlot) {
    list->first = e.next;
  } else {
    entries_[e.previous].next = e.next;
  }
  if (e.next == kNoSlot) {
    list->last = e.previous;
  } else {
    entries_[e.next].previous = e.previous;
  }
  e.listed_in = nullptr;
}

std::uint64_t HandleTable::Insert(Object&& object, OwnerId owner, int depth, const char* origin) {
  constexpr std::uint64_t kMaxSequence = std::uint64_t{1} << (63 - kSlotBits);
  if (next_sequence_ >= kMaxSequence) {
    Fail("handle table: %d handles created, the most one process can create", kMaxSequence - 1);
  }
  std::uint32_t slot = free_slots_;
  if (slot != kNoSlot) {
    free_slots_ = entries_[slot].next;
  } else {
    if (entries_.size() >= (std::size_t{1} << kSlotBits)) {
      Fail("handle table: %d live handles, the most it can hold at once", entries_.size());
    }
    slot = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  const std::uint64_t id = (next_sequence_++ << kSlotBits) | slot;
  Entry& e = entries_[slot];
  e.object = std::move(object);
  e.id = id;
  e.owner = owner;
  e.origin = origin;
  e.depth = depth;
  Link(slot, ListOf(owner));
  ++live_;
  last_id_ = id;
  return id;
}

Object HandleTable::Erase(Entry& e) {
  const std::uint32_t slot = SlotOf(e.id);
  Unlink(slot);
  Object object = std::move(e.object);
  e.object = Object();
  e.id = 0;
  e.next = free_slots_;
  free_slots_ = slot;
  --live_;
  return object;
}

Handle HandleTable::Add(Object&& object, OwnerId owner, int depth, const char* origin) {
  absl::MutexLock lock(&mu_);
  return Handle(Insert(std::move(object), owner, depth, origin));
}

bool HandleTable::Contains(Handle h) const {
  absl::MutexLock lock(&mu_);
  return Lookup(h) != nullptr;
}

std::optional<ObjectClass> HandleTable::ClassOf(Handle h) const {
  absl::MutexLock lock(&mu_);
  const Entry* e = Lookup(h);
  if (e == nullptr) return std::nullopt;
  return e->object.object_class();
}

std::size_t HandleTable::size() const {
  absl::MutexLock lock(&mu_);
  return live_;
}

std::uint64_t HandleTable::LastId() const {
  absl::MutexLock lock(&mu_);
  return last_id_;
}

Object HandleTable::Get(Handle h) const {
  absl::MutexLock lock(&mu_);
  return Find(h).object.share();
}

EntryInfo HandleTable::Info(Handle h) const {
  absl::MutexLock lock(&mu_);
  const Entry& e = Find(h);
  return EntryInfo{h, e.object.object_class(), e.owner, e.depth, e.origin};
}

Object HandleTable::Release(Handle h) {
  absl::MutexLock lock(&mu_);
  return Erase(Find(h));
}

std::vector<Object> HandleTable::ReleaseAll(absl::Span<const Handle> handles,
                                            absl::FunctionRef<void(std::size_t)> on_stale) {
  std::vector<Object> released;
  absl::MutexLock lock(&mu_);
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
  absl::MutexLock lock(&mu_);
  auto it = owned_.find(owner);
  if (it == owned_.end()) return released;
  for (std::uint32_t slot = it->second.last; slot != kNoSlot; slot = it->second.last) {
    released.push_back(Erase(entries_[slot]));
  }
  if (owner != kRootOwner) {
    if (last_list_ == &it->second) last_list_ = nullptr;
    owned_.erase(it);
  }
  return released;
}

bool HandleTable::MoveIfOwnedBy(Handle h, OwnerId from, OwnerId to, int depth) {
  absl::MutexLock lock(&mu_);
  Entry* e = Lookup(h);
  if (e == nullptr || e->owner != from) return false;
  const std::uint32_t slot = SlotOf(h.id());
  Unlink(slot);
  Link(slot, ListOf(to));
  e->owner = to;
  e->depth = depth;
  return true;
}

Object HandleTable::Replace(Handle h, Object object, absl::Span<const Handle> consumed,
                            std::vector<Object>* released) {
  absl::MutexLock lock(&mu_);
  Find(h);
  for (Handle c : consumed) Find(c);
  for (Handle c : consumed) {
    if (c == h) continue;
    if (Entry* e = Lookup(c)) released->push_back(Erase(*e));
  }
  std::swap(Find(h).object, object);
  return object;
}

Object HandleTable::Transfer(Handle src, Handle dst) {
  absl::MutexLock lock(&mu_);
  Entry& from = Find(src);
  Entry& to = Find(dst);
  Object old = std::move(to.object);
  to.object = Erase(from);
  return old;
}

Handle HandleTable::Consume(absl::Span<const Handle> consumed, Object&& object, OwnerId owner,
                            int depth, const char* origin, std::vector<Object>* released) {
  absl::MutexLock lock(&mu_);
  for (Handle h : consumed) Find(h);
  for (Handle h : consumed) {
    if (Entry* e = Lookup(h)) released->push_back(Erase(*e));
  }
  return Handle(Insert(std::move(object), owner, depth, origin));
}

std::vector<std::pair<EntryInfo, Object>> HandleTable::Snapshot() const {
  std::vector<std::pair<EntryInfo, Object>> rows;
  {
    absl::MutexLock lock(&mu_);
    rows.reserve(live_);
    for (const Entry& e : entries_) {
      if (e.id == 0) continue;
      rows.emplace_back(
          EntryInfo{Handle(e.id), e.object.object_class(), e.owner, e.depth, e.origin},
          e.object.share());
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first.handle < b.first.handle; });
  return rows;
}

}  // namespace kscope
