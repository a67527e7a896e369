#include "runtime/handle_table.h"

#include <algorithm>
#include <utility>

#include "runtime/errors.h"

namespace kscope {
namespace {

// An owner's id list is compacted once this many ids have left it and they are the majority.
constexpr std::size_t kCompactAfter = 32;

}  // namespace

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

HandleTable::OwnedIds* HandleTable::ListOf(OwnerId owner) {
  if (last_list_ == nullptr || last_owner_ != owner) {
    last_owner_ = owner;
    last_list_ = &owned_[owner];
  }
  return last_list_;
}

std::uint64_t HandleTable::Insert(Object object, OwnerId owner, int depth, const char* origin) {
  const std::uint64_t id = next_id_++;
  OwnedIds* list = ListOf(owner);
  entries_.try_emplace(id, Entry{std::move(object), owner, list, depth, origin});
  list->ids.push_back(id);
  return id;
}

Handle HandleTable::Add(Object object, OwnerId owner, int depth, const char* origin) {
  absl::MutexLock lock(&mu_);
  return Handle(Insert(std::move(object), owner, depth, origin));
}

bool HandleTable::Contains(Handle h) const {
  absl::MutexLock lock(&mu_);
  return entries_.contains(h.id());
}

std::size_t HandleTable::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

std::uint64_t HandleTable::LastId() const {
  absl::MutexLock lock(&mu_);
  return next_id_ - 1;
}

const HandleTable::Entry& HandleTable::Find(Handle h) const {
  auto it = entries_.find(h.id());
  if (it == entries_.end()) Fail(kStalePointer);
  return it->second;
}

Object HandleTable::Get(Handle h) const {
  absl::MutexLock lock(&mu_);
  return Find(h).object.share();
}

void HandleTable::ReadMany(absl::Span<const Handle> handles,
                           absl::FunctionRef<void(std::size_t, const Object&)> f) const {
  absl::MutexLock lock(&mu_);
  for (std::size_t i = 0; i < handles.size(); ++i) f(i, Find(handles[i]).object);
}

EntryInfo HandleTable::Info(Handle h) const {
  absl::MutexLock lock(&mu_);
  const Entry& e = Find(h);
  return EntryInfo{h, e.object.object_class(), e.owner, e.depth, e.origin};
}

void HandleTable::Read(Handle h, absl::FunctionRef<void(const Object&)> f) const {
  absl::MutexLock lock(&mu_);
  f(Find(h).object);
}

void HandleTable::Depart(OwnedIds* list, OwnerId owner) {
  OwnedIds& owned = *list;
  if (++owned.departed < kCompactAfter || owned.departed * 2 < owned.ids.size()) return;
  auto stays = [&](std::uint64_t id) {
    auto e = entries_.find(id);
    return e != entries_.end() && e->second.owner == owner;
  };
  owned.ids.erase(std::remove_if(owned.ids.begin(), owned.ids.end(),
                                 [&](std::uint64_t id) { return !stays(id); }),
                  owned.ids.end());
  owned.departed = 0;
}

Object HandleTable::Erase(std::uint64_t id) { return Erase(entries_.find(id)); }

Object HandleTable::Erase(EntryMap::iterator it) {
  Object object = std::move(it->second.object);
  const OwnerId owner = it->second.owner;
  OwnedIds* list = it->second.listed_in;
  entries_.erase(it);
  Depart(list, owner);
  return object;
}

Object HandleTable::Release(Handle h) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(h.id());
  if (it == entries_.end()) Fail(kStalePointer);
  return Erase(it);
}

std::vector<Object> HandleTable::ReleaseAll(absl::Span<const Handle> handles,
                                            absl::FunctionRef<void(std::size_t)> on_stale) {
  std::vector<Object> released;
  absl::MutexLock lock(&mu_);
  for (std::size_t i = 0; i < handles.size(); ++i) {
    if (!entries_.contains(handles[i].id())) {
      on_stale(i);
      Fail(kStalePointer);  // on_stale must throw; this keeps the contract if it does not
    }
  }
  released.reserve(handles.size());
  for (Handle h : handles) {
    if (entries_.contains(h.id())) released.push_back(Erase(h.id()));
  }
  return released;
}

std::vector<Object> HandleTable::ReleaseOwned(OwnerId owner) {
  std::vector<Object> released;
  absl::MutexLock lock(&mu_);
  auto it = owned_.find(owner);
  if (it == owned_.end()) return released;
  const std::vector<std::uint64_t> ids = std::move(it->second.ids);
  if (owner == kRootOwner) {
    it->second = OwnedIds{};
  } else {
    if (last_list_ == &it->second) last_list_ = nullptr;
    owned_.erase(it);
  }
  for (auto id = ids.rbegin(); id != ids.rend(); ++id) {
    auto e = entries_.find(*id);
    if (e == entries_.end() || e->second.owner != owner) continue;
    released.push_back(std::move(e->second.object));
    entries_.erase(e);
  }
  return released;
}

bool HandleTable::MoveIfOwnedBy(Handle h, OwnerId from, OwnerId to, int depth) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(h.id());
  if (it == entries_.end() || it->second.owner != from) return false;
  OwnedIds* left = it->second.listed_in;
  OwnedIds* joined = ListOf(to);
  it->second.owner = to;
  it->second.listed_in = joined;
  it->second.depth = depth;
  joined->ids.push_back(h.id());
  Depart(left, from);
  return true;
}

Object HandleTable::Replace(Handle h, Object object, absl::Span<const Handle> consumed,
                            std::vector<Object>* released) {
  absl::MutexLock lock(&mu_);
  Find(h);
  for (Handle c : consumed) Find(c);
  for (Handle c : consumed) {
    if (c != h && entries_.contains(c.id())) released->push_back(Erase(c.id()));
  }
  std::swap(entries_.find(h.id())->second.object, object);
  return object;
}

Object HandleTable::Transfer(Handle src, Handle dst) {
  absl::MutexLock lock(&mu_);
  Find(src);
  auto dst_entry = entries_.find(dst.id());
  if (dst_entry == entries_.end()) Fail(kStalePointer);
  Object old = std::move(dst_entry->second.object);
  // Erase may rehash nothing (it only removes), so dst_entry stays valid.
  dst_entry->second.object = Erase(src.id());
  return old;
}

Handle HandleTable::Consume(absl::Span<const Handle> consumed, Object object, OwnerId owner,
                            int depth, const char* origin, std::vector<Object>* released) {
  absl::MutexLock lock(&mu_);
  for (Handle h : consumed) Find(h);
  for (Handle h : consumed) {
    if (entries_.contains(h.id())) released->push_back(Erase(h.id()));
  }
  return Handle(Insert(std::move(object), owner, depth, origin));
}

std::vector<std::pair<EntryInfo, Object>> HandleTable::Snapshot() const {
  std::vector<std::pair<EntryInfo, Object>> rows;
  {
    absl::MutexLock lock(&mu_);
    rows.reserve(entries_.size());
    for (const auto& [id, e] : entries_) {
      rows.emplace_back(EntryInfo{Handle(id), e.object.object_class(), e.owner, e.depth, e.origin},
                        e.object.share());
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first.handle < b.first.handle; });
  return rows;
}

}  // namespace kscope
