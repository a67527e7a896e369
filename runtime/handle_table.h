// HandleTable — the process-wide table of live handles.
//
// Each entry holds one strong reference to its Object, the object's class, its owner (a scope
// id; 0 is the root scope), the owner's depth (0 = root) and the API call that created it.
// Ids are handed out from 1 upwards and never reused: a removed id is stale for the life of
// the process and every lookup of it throws kscope::Error("stale pointer").
//
// For each owner the table keeps the ids it owns in creation order, so an owner's handles can
// be released newest first in time linear in their number; ids that left the owner (freed,
// consumed, handed off) are skipped and compacted away lazily.
//
// Thread-safety: every method is safe to call from any thread; one absl::Mutex guards the
// table. Objects removed from the table are returned to the caller so that their (possibly
// expensive) destruction happens after the lock is released. The table knows nothing of
// scope policy: which owner is current, strictness and hand-off rules live in scope/.
#ifndef KSCOPE_RUNTIME_HANDLE_TABLE_H_
#define KSCOPE_RUNTIME_HANDLE_TABLE_H_

#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
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
  static HandleTable& Global();

  HandleTable() = default;
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;

  // Registers `object` (which must not be empty) under a new id owned by `owner`.
  // `origin` must be a string with static storage duration.
  Handle Add(Object object, OwnerId owner, int depth, const char* origin);

  bool Contains(Handle h) const;
  std::size_t size() const;
  // The highest id handed out so far (0 before the first): handles created later have higher
  // ids (a leak check's checkpoint).
  std::uint64_t LastId() const;

  // A new strong reference to h's object. Throws "stale pointer".
  Object Get(Handle h) const;
  // Calls f(i, stored object of handles[i]) for each handle under one lock, without copying
  // the objects; throws "stale pointer" for the first stale one. f must be short and must
  // not call back into the table; it may throw.
  void ReadMany(absl::Span<const Handle> handles,
                absl::FunctionRef<void(std::size_t, const Object&)> f) const;
  EntryInfo Info(Handle h) const;
  // Calls f on the stored object under the lock: for exact reference counts. f must be short
  // and must not call back into the table.
  void Read(Handle h, absl::FunctionRef<void(const Object&)> f) const;

  // Removes h and returns its object. Throws "stale pointer".
  Object Release(Handle h);
  // Validates that every handle is live, then removes all; a handle listed twice is removed
  // once. On a stale handle nothing is removed and `on_stale(index)` is called, which must throw.
  std::vector<Object> ReleaseAll(absl::Span<const Handle> handles,
                                 absl::FunctionRef<void(std::size_t)> on_stale);
  // Removes every handle `owner` still owns and returns their objects newest first.
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
  Handle Consume(absl::Span<const Handle> consumed, Object object, OwnerId owner, int depth,
                 const char* origin, std::vector<Object>* released);

  // Every live entry in creation order, with a strong reference to its object.
  std::vector<std::pair<EntryInfo, Object>> Snapshot() const;

 private:
  struct OwnedIds {
    std::vector<std::uint64_t> ids;  // creation order; may hold ids that left
    std::size_t departed = 0;        // how many of `ids` have left
  };
  struct Entry {
    Object object;
    OwnerId owner;
    OwnedIds* listed_in;  // owner's list (stable: owned_ is a node map)
    int depth;
    const char* origin;
  };

  const Entry& Find(Handle h) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  using EntryMap = absl::flat_hash_map<std::uint64_t, Entry>;

  // Removes a live entry, updating its owner's list; returns its object.
  Object Erase(std::uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Object Erase(EntryMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The id list of `owner`, created on first use; remembers the last owner asked for, since
  // consecutive creations nearly always share one.
  OwnedIds* ListOf(OwnerId owner) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Notes that an id left `list` (owned by `owner`); compacts the list when most ids left.
  void Depart(OwnedIds* list, OwnerId owner) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::uint64_t Insert(Object object, OwnerId owner, int depth, const char* origin)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  EntryMap entries_ ABSL_GUARDED_BY(mu_);
  absl::node_hash_map<OwnerId, OwnedIds> owned_ ABSL_GUARDED_BY(mu_);
  OwnerId last_owner_ ABSL_GUARDED_BY(mu_) = kRootOwner;
  OwnedIds* last_list_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_HANDLE_TABLE_H_
