#include "api/distributed/group.h"

#include <atomic>

#include "api/distributed/group_object.h"
#include "api/distributed/launch_environment.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/object.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

// The id of the handle group() made last (0: none); a freed one stays stale, never reused.
std::atomic<std::uint64_t> default_group_id{0};

}  // namespace

Handle group(const GroupOptions& options) {
  const Handle h = Own(Object(distributed::GroupObject::Join("group", options)), "group");
  default_group_id.store(h.id());
  return h;
}

GroupOptions placed_by_launcher(GroupOptions o, const char* fn) {
  const LaunchEnvironment e = launch_environment(fn);
  o.rank = e.rank;
  o.world = e.world;
  o.rendezvous = e.rendezvous;
  o.local_rank = e.local_rank;
  return o;
}

Handle group_from_environment(const std::string& backend, std::chrono::milliseconds timeout) {
  GroupOptions o;
  o.backend = backend;
  o.timeout = timeout;
  return group(placed_by_launcher(o, "group"));
}

Handle default_group(const char* fn) {
  const Handle h(default_group_id.load());
  if (h.is_null() || !HandleTable::Global().Contains(h))
    Fail("%s: no process group, make one with group", fn);
  return h;
}

int group_rank(Handle g) { return distributed::GroupOf("rank", g)->rank(); }

int group_world(Handle g) { return distributed::GroupOf("world", g)->world(); }

GroupOptions group_options(Handle g) { return distributed::GroupOf("group", g)->options(); }

}  // namespace kscope
