// HandleTable — the process-wide table of live handles.
//
// Each entry holds one strong reference to its Object, the object's class, its owner (a scope
// id; 0 is the root scope), the owner's depth (0 = root) and the API call that created it.
// Entries live in slots of one array; a handle's id is its creation sequence number (1, 2, ...)
// shifted left past the slot's index, so ids grow with every creation, are never reused (a
// removed id is stale for the life of the process: every lookup of it throws
// kscope::Error("stale pointer")), and a lookup is an index and one comparison, no hashing.
// Limits, each a clear error when reached: 2^22 (4,194,304) live handles at once, 2^41 (about
// 2.2e12) creations in one process.
//
// Each owner's entries form a list in the order they joined it (creation, or hand-off), linked
// through the slots: joining, leaving and releasing an owner's handles newest first cost
// constant time per handle, with no allocation once the array has grown to the peak number of
// live handles.
//
// Thread-safety: every method is safe to call from any thread; one lock guards the table, held
// exclusively by reads too. The lock is Abseil's SpinLock (the lock absl::Mutex itself is built
// on: waiters spin briefly, then sleep on a futex), not absl::Mutex: every critical section here
// is a few dozen instructions, and a pointer call takes the lock three times (its arguments'
// lookup, its result's insert, the free), where absl::Mutex's out-of-line acquire and release
// cost 58 instructions a time against SpinLock's inline dozen (callgrind, docs/benchmarks.md).
// Contains and ClassOf take no lock: slots live in chunks that are never moved or freed while
// the table lives, and a slot's id and class are atomics the writers publish under the lock
// (ids are never reused, so a slot that shows h's id before and after its class is read held h
// throughout). Objects removed from the table are returned to the caller so that their
// (possibly expensive) destruction happens after the lock is released. The table knows nothing
// of scope policy: which owner is current, strictness and hand-off rules live in scope/.
#ifndef KSCOPE_RUNTIME_HANDLE_TABLE_H_
#define KSCOPE_RUNTIME_HANDLE_TABLE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/internal/spinlock.h"
#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "runtime/handle.h"
#include "runtime/object.h"

namespace kscope {

using OwnerId = std::uint64_t;
inline constexpr OwnerId kRootOwner = 0;

// A copy of one entry's bookkeeping (not of its object).
struct EntryInfo {
  Handle handle;
  ObjectClass object_class;
  OwnerId owner;
  int depth;           // depth of the owner: 0 = root
  const char* origin;  // static string: the API call that created the handle
};

class HandleTable {
 public:
  // The process-wide table. Never destroyed, so no libtorch object is released from a static
  // destructor at process exit (CUDA may already be torn down then).
  ABSL_ATTRIBUTE_ALWAYS_INLINE static HandleTable& Global() {  // every call's path asks for it
    static HandleTable* const table = MakeGlobal();
    return *table;
  }

  HandleTable() = default;
  ~HandleTable();
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;

  // Registers `object` (which must not be empty) under a new id owned by `owner`.
  // `origin` must be a string with static storage duration.
  Handle Add(Object&& object, OwnerId owner, int depth, const char* origin);

  // Whether h is live (no lock).
  bool Contains(Handle h) const;
  // h's class, or nullopt when h is stale (never throws; no lock): "is it a live vector?".
  std::optional<ObjectClass> ClassOf(Handle h) const;
  std::size_t size() const;
  // The highest id handed out so far (0 before the first): handles created later have higher
  // ids (a leak check's checkpoint).
  std::uint64_t LastId() const;

  // A new strong reference to h's object. Throws "stale pointer".
  Object Get(Handle h) const;
  // Calls f(i, stored object of handles[i]) for each handle under one lock, without copying
  // the objects; throws "stale pointer" for the first stale one. f must be short and must
  // not call back into the table; it may throw. (A template, so that f is inlined: this is
  // every pointer argument's read.)
  template <typename F>
  void ReadMany(absl::Span<const Handle> handles, F&& f) const {
    ReadSome(
        handles.size(), [&](std::size_t i) { return &handles[i]; }, std::forward<F>(f));
  }
  // The same for the i in [0, n) where handle_at(i) gives a handle (a const Handle*; null:
  // skip i), so that a caller reads the handles among its arguments where they are.
  template <typename HandleAt, typename F>
  void ReadSome(std::size_t n, HandleAt&& handle_at, F&& f) const {
    absl::base_internal::SpinLockHolder lock(&mu_);
    for (std::size_t i = 0; i < n; ++i) {
      if (const Handle* h = handle_at(i)) f(i, Find(*h).object);
    }
  }
  EntryInfo Info(Handle h) const;
  // Calls f on the stored object under the lock: for exact reference counts. f must be short
  // and must not call back into the table.
  template <typename F>
  void Read(Handle h, F&& f) const {
    absl::base_internal::SpinLockHolder lock(&mu_);
    f(Find(h).object);
  }

  // Removes h and returns its object. Throws "stale pointer".
  Object Release(Handle h);
  // Validates that every handle is live, then removes all; a handle listed twice is removed
  // once. On a stale handle nothing is removed and `on_stale(index)` is called, which must throw.
  std::vector<Object> ReleaseAll(absl::Span<const Handle> handles,
                                 absl::FunctionRef<void(std::size_t)> on_stale);
  // Removes every handle `owner` still owns and returns their objects newest first (the
  // reverse of the order they joined it).
  std::vector<Object> ReleaseOwned(OwnerId owner);

  // Moves h to `to` at `depth` if it is owned by `from`; returns whether it moved.
  bool MoveIfOwnedBy(Handle h, OwnerId from, OwnerId to, int depth);

  // Puts `object` into h (keeping h's id, owner and origin) and returns h's old object.
  // Handles in `consumed` (h excluded) are removed and their objects appended to *released.
  // Throws "stale pointer" with nothing changed if h or a consumed handle is stale.
  Object Replace(Handle h, Object object, absl::Span<const Handle> consumed = {},
                 std::vector<Object>* released = nullptr);
  // use[dst; src]: moves src's object into dst, removes src, returns dst's old object.
  // Throws "stale pointer" (nothing changed) if either is stale.
  Object Transfer(Handle src, Handle dst);
  // Consuming construction: checks every handle in `consumed` is live, removes them (their
  // objects appended to *released), and registers `object` under a new id.
  // Throws "stale pointer" with nothing changed if one is stale.
  Handle Consume(absl::Span<const Handle> consumed, Object&& object, OwnerId owner, int depth,
                 const char* origin, std::vector<Object>* released);

  // Every live entry in creation order, with a strong reference to its object.
  std::vector<std::pair<EntryInfo, Object>> Snapshot() const;

 private:
  static HandleTable* MakeGlobal();

  static constexpr int kSlotBits = 22;
  static constexpr int kChunkBits = 12;  // 4,096 slots per chunk
  static constexpr std::size_t kChunks = std::size_t{1} << (kSlotBits - kChunkBits);
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

  // The entries an owner holds, linked through their slots in the order they joined.
  struct OwnedList {
    std::uint32_t first = kNoSlot;
    std::uint32_t last = kNoSlot;
  };
  struct Entry {
    Object object;
    // 0: the slot is free (its object then moved from: holds nothing). Written under mu_,
    // read without it by Contains and ClassOf, as is object_class (object's class).
    std::atomic<std::uint64_t> id{0};
    std::atomic<ObjectClass> object_class{ObjectClass::kTensor};
    OwnerId owner = kRootOwner;
    OwnedList* listed_in = nullptr;  // owner's list (stable: owned_ is a node map)
    const char* origin = nullptr;
    int depth = 0;
    std::uint32_t previous = kNoSlot;  // in the owner's list
    std::uint32_t next = kNoSlot;      // in the owner's list, or the free list
  };

  // Slot `slot`'s entry, or nullptr if its chunk does not exist yet: with the lock held or
  // not (the chunk pointers are published with release).
  const Entry* SlotEntry(std::uint32_t slot) const {
    const Entry* chunk = chunks_[slot >> kChunkBits].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : &chunk[slot & ((1u << kChunkBits) - 1)];
  }
  // Slot `slot` < slot_count_ (its chunk exists), under the lock.
  const Entry& At(std::uint32_t slot) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return chunks_[slot >> kChunkBits].load(
        std::memory_order_relaxed)[slot & ((1u << kChunkBits) - 1)];
  }
  Entry& At(std::uint32_t slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return const_cast<Entry&>(std::as_const(*this).At(slot));
  }
  // The entry of live handle h, or nullptr, without the lock (see Contains).
  const Entry* LiveEntry(Handle h) const {
    const Entry* e = SlotEntry(SlotOf(h.id()));
    if (e == nullptr || h.is_null() || e->id.load(std::memory_order_acquire) != h.id()) {
      return nullptr;
    }
    return e;
  }
  // The slot of live handle h, or nullptr. (Inline with Find: every call's path.)
  const Entry* Lookup(Handle h) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::uint32_t slot = SlotOf(h.id());
    if (slot >= slot_count_) return nullptr;
    const Entry& e = At(slot);
    if (e.id.load(std::memory_order_relaxed) != h.id() || h.is_null()) return nullptr;
    return &e;
  }
  Entry* Lookup(Handle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return const_cast<Entry*>(std::as_const(*this).Lookup(h));
  }
  // The same, throwing "stale pointer" for a stale h.
  const Entry& Find(Handle h) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const Entry* e = Lookup(h);
    if (ABSL_PREDICT_FALSE(e == nullptr)) FailStale();
    return *e;
  }
  Entry& Find(Handle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return const_cast<Entry&>(std::as_const(*this).Find(h));
  }
  [[noreturn]] static void FailStale();
  static std::uint32_t SlotOf(std::uint64_t id) {
    return static_cast<std::uint32_t>(id & ((std::uint64_t{1} << kSlotBits) - 1));
  }

  std::uint64_t Insert(Object&& object, OwnerId owner, int depth, const char* origin)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A slot never used before (its chunk made on first use), when no freed one is left.
  std::uint32_t NewSlot() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Throws "handle table: <count> <what>": the table is full.
  [[noreturn]] static void FailFull(std::uint64_t count, const char* what);
  // Puts `object` into a live entry whose object has been moved from (or never held one), its
  // class published for ClassOf.
  static void Store(Entry& e, Object&& object) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Frees a live entry's slot; returns its object.
  Object Erase(Entry& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The list of `owner`, created on first use; remembers the last owner asked for, since
  // consecutive creations nearly always share one.
  OwnedList* ListOf(OwnerId owner) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Appends slot `slot`, entry e, to `list` / takes e out of its owner's list.
  void Link(std::uint32_t slot, Entry& e, OwnedList* list) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Unlink(Entry& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::base_internal::SpinLock mu_;
  // Slot i is chunks_[i >> kChunkBits][i & (chunk size - 1)]; a chunk, once made (under mu_),
  // stays until the table is destroyed.
  std::array<std::atomic<Entry*>, kChunks> chunks_{};
  std::uint32_t slot_count_ ABSL_GUARDED_BY(mu_) = 0;        // slots ever used: live or free
  std::uint32_t free_slots_ ABSL_GUARDED_BY(mu_) = kNoSlot;  // linked through Entry::next
  std::size_t live_ ABSL_GUARDED_BY(mu_) = 0;
  std::uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 1;
  std::uint64_t last_id_ ABSL_GUARDED_BY(mu_) = 0;
  absl::node_hash_map<OwnerId, OwnedList> owned_ ABSL_GUARDED_BY(mu_);
  OwnerId last_owner_ ABSL_GUARDED_BY(mu_) = kRootOwner;
  OwnedList* last_list_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_HANDLE_TABLE_H_
