// Adapters for data-parallel process groups and their collectives:
//   group(rank;world;rendezvous)                  -> a group pointer; the default group from now on
//   group(rank;world;rendezvous;backend)             backend `gloo (default) or `nccl
//   group(rank;world;rendezvous;[backend;]timeout)   seconds (long or float) to meet and per
//                                                    collective; default 300
//     rendezvous: a symbol, `:tcp://host:port (rank 0 serves the port) or a file path (`:/tmp/g),
//     q's leading colon optional
//   group[] | group backend | group([backend;]timeout)   -> a group pointer, as above, its rank,
//                       world and rendezvous from the launcher that started this process:
//                       torchrun, srun, mpirun or examples/launch.sh
//                       (api/distributed/launch_environment.h)
//   group g             what group g was made from, a dictionary `rank`world`rendezvous`backend
//                       `timeout`localrank!(long;long;symbol;symbol;timespan;long): the rendezvous
//                       as the group keeps it (without q's leading colon), the timeout as a q
//                       timespan (0D00:05:00.000000000 by default), the local rank the launcher
//                       gave (0N for a group made from rank;world;rendezvous)
//   group m             for a model m bound with distribute: its group's dictionary, then
//                       `overlap`bucketbytes`firstbucketbytes`buckets (the buckets reduced while
//                       backward runs; 0: after backward); :: for a model not bound
//   distribute m | distribute(m;g)   binds model m to the default group or group g (a collective,
//                                    api/distributed/distribute.h); returns ::
//   distribute(m;::)                 unbinds m (training is local again); returns ::
//   distribute(m;[g;]options)        with options: `overlap (boolean, default 1b: average while
//                                    backward runs), `bucketbytes (default 25 MiB) and
//                                    `firstbucketbytes (1 MiB), as name-value pairs or a
//                                    dictionary (or positional after g, in that order)
//   allreduce x | allreduce(x;op) | allreduce(x;[op;]g)  op: `sum (default) `mean `max `min
//   broadcast(x;root) | broadcast(x;root;g)
//     x a tensor, vector or dictionary pointer: changed in place, returns ::
//     x data (an array, a dictionary of arrays, or a general list of arrays given enlisted or
//     with further arguments): returns the result as data of the same shape
//   allgather x | allgather(x;g)    x a tensor pointer -> a vector pointer of every rank's
//                                   tensor, in rank order; x an array -> a list of arrays
//   barrier[] | barrier g           returns :: once every rank arrived
// g, when given, is a group pointer; otherwise the default group (the last `group` made) is used.
// Every rank must make the same calls in the same order (api/distributed/collectives.h).
#include <chrono>
#include <climits>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/strip.h"
#include "api/core/pointer.h"
#include "api/distributed/collectives.h"
#include "api/distributed/distribute.h"
#include "api/distributed/group.h"
#include "api/nn/options.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"
#include "runtime/object_class.h"

namespace kscope::q {
namespace {

using kabi::K;

int IntAt(const Args& a, std::size_t i, const char* what) {
  const std::int64_t v = a.LongAt(i);
  if (v < INT_MIN || v > INT_MAX) Fail("%s: %s out of range, given %d", a.fn(), what, v);
  return static_cast<int>(v);
}

// Seconds as a long or float atom.
std::chrono::milliseconds SecondsAt(const Args& a, std::size_t i) {
  if (a[i]->t == -kabi::kFloat) {
    if (!std::isfinite(a[i]->f)) Fail("%s: timeout must be a finite number of seconds", a.fn());
    return std::chrono::milliseconds(std::llround(a[i]->f * 1000));
  }
  return std::chrono::seconds(a.LongAt(i));
}

// The trailing group argument at i, or the default group when there is none.
Handle GroupAt(const Args& a, std::size_t i) { return i < a.size() ? a.PointerAt(i) : Handle(); }

// Data of the class its k shape says: a dictionary, a general list (a vector) or an array.
Value DataAt(const Args& a, std::size_t i) {
  K x = a[i];
  const ObjectClass c = x->t == kabi::kDictionary ? ObjectClass::kDictionary
                        : x->t == kabi::kMixed    ? ObjectClass::kVector
                                                  : ObjectClass::kTensor;
  return ValueFromK(a.fn(), x, c);
}

using Entries = std::vector<std::pair<std::string, K>>;

K KFromEntries(const Entries& entries) {
  return KDictionary(entries, [](K x) { return x; });
}

// rank, world, rendezvous, backend, timeout, localrank of a group's options.
Entries GroupEntries(const GroupOptions& o) {
  const std::int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(o.timeout).count();
  return {{"rank", kabi::kj(o.rank)},
          {"world", kabi::kj(o.world)},
          {"rendezvous", Symbol(o.rendezvous)},
          {"backend", Symbol(o.backend)},
          {"timeout", kabi::ktj(-kabi::kTimespan, nanos)},
          {"localrank", kabi::kj(o.local_rank < 0 ? LLONG_MIN : o.local_rank)}};
}

// distribute's options, in their positional order, with their defaults; indexed by
// DistributeOption.
enum DistributeOption { kOverlap, kBucketBytes, kFirstBucketBytes };
const std::vector<nn::OptionSpec>& DistributeSpecs() {
  static const DistributeOptions defaults;
  static const std::vector<nn::OptionSpec> specs = {
      {"overlap", nn::OptionType::kBool, defaults.overlap},
      {"bucketbytes", nn::OptionType::kLong, defaults.bucket_bytes},
      {"firstbucketbytes", nn::OptionType::kLong, defaults.first_bucket_bytes}};
  return specs;
}

// A bound model's group entries, then its distribute options and buckets.
K KFromDistribution(const Distribution& d) {
  const std::vector<nn::OptionSpec>& specs = DistributeSpecs();
  Entries entries = GroupEntries(d.group);
  entries.emplace_back(specs[kOverlap].name, kabi::kb(d.options.overlap));
  entries.emplace_back(specs[kBucketBytes].name, kabi::kj(d.options.bucket_bytes));
  entries.emplace_back(specs[kFirstBucketBytes].name, kabi::kj(d.options.first_bucket_bytes));
  entries.emplace_back("buckets", kabi::kj(static_cast<long long>(d.buckets)));
  return KFromEntries(entries);
}

// [backend;][timeout] from argument `next` on: the last arguments of group's both forms.
void BackendAndTimeoutAt(const Args& a, std::size_t next, GroupOptions* o) {
  if (next < a.size() && a.IsSymbolAt(next)) o->backend = a.SymbolAt(next++);
  if (next < a.size() && (a[next]->t == -kabi::kLong || a[next]->t == -kabi::kFloat))
    o->timeout = SecondsAt(a, next++);
  if (next != a.size()) a.Unrecognized();
}

K Group(K x) {
  return Guard([&] {
    const Args a("group", x);
    if (a.size() == 1 && a.IsPointerAt(0)) {
      const Handle h = a.PointerAt(0);
      if (class_(h) == ObjectClass::kModel) {
        const std::optional<Distribution> d = distribution(h, "group");
        return d ? KFromDistribution(*d) : Null();
      }
      return KFromEntries(GroupEntries(group_options(h)));
    }
    GroupOptions o;
    if (a.size() <= 2) {  // the rank's place from its launcher's variables
      BackendAndTimeoutAt(a, 0, &o);
      return Pointer(group_from_environment(o.backend, o.timeout));
    }
    if (a.size() > 5) a.Unrecognized();
    o.rank = IntAt(a, 0, "rank");
    o.world = IntAt(a, 1, "world");
    o.rendezvous = std::string(absl::StripPrefix(a.SymbolAt(2), ":"));
    BackendAndTimeoutAt(a, 3, &o);
    return Pointer(group(o));
  });
}

K Allreduce(K x) {
  return Guard([&] {
    const Args a("allreduce", x);
    if (a.empty() || a.size() > 3) a.Unrecognized();
    std::size_t next = 1;
    const Reduction op =
        a.IsSymbolAt(next) ? ReductionFromName("allreduce", a.SymbolAt(next++)) : Reduction::kSum;
    const Handle g = GroupAt(a, next);
    if (a.size() > next + 1) a.Unrecognized();
    if (a.IsPointerAt(0)) {
      allreduce(a.PointerAt(0), op, g);
      return Null();
    }
    return KFromValue(allreduce(DataAt(a, 0), op, g));
  });
}

K Broadcast(K x) {
  return Guard([&] {
    const Args a("broadcast", x);
    if (a.size() < 2 || a.size() > 3) a.Unrecognized();
    const int root = IntAt(a, 1, "root");
    const Handle g = GroupAt(a, 2);
    if (a.IsPointerAt(0)) {
      broadcast(a.PointerAt(0), root, g);
      return Null();
    }
    return KFromValue(broadcast(DataAt(a, 0), root, g));
  });
}

K Allgather(K x) {
  return Guard([&] {
    const Args a("allgather", x);
    if (a.empty() || a.size() > 2) a.Unrecognized();
    return KFromResult(allgather(a.OperandAt(0), GroupAt(a, 1)));
  });
}

K Barrier(K x) {
  return Guard([&] {
    const Args a("barrier", x);
    if (a.size() > 1) a.Unrecognized();
    barrier(GroupAt(a, 0));
    return Null();
  });
}

// Whether item x starts distribute's options: an option's name or a dictionary.
bool StartsDistributeOptions(K x) {
  if (x->t == kabi::kDictionary) return true;
  if (!IsSymbol(x)) return false;
  const std::string name = SymbolText(x);
  for (const nn::OptionSpec& spec : DistributeSpecs()) {
    if (name == spec.name) return true;
  }
  return false;
}

// distribute's options from item `from` of the general list x on: positional in the order of
// DistributeSpecs, then name-value pairs or a dictionary.
DistributeOptions DistributeOptionsFrom(K x, long long from) {
  const std::vector<nn::OptionSpec>& specs = DistributeSpecs();
  std::vector<std::string> names;
  for (const nn::OptionSpec& spec : specs) names.emplace_back(spec.name);
  std::vector<nn::OptionValue> positional;
  nn::NamedValues named;
  OptionsFromK("distribute", x, from, names, &positional, &named);
  const nn::OptionSet set = nn::OptionSet::Parse("distribute", specs, positional, named);
  DistributeOptions options;
  options.overlap = set.Bool(specs[kOverlap].name);
  options.bucket_bytes = set.Long(specs[kBucketBytes].name);
  options.first_bucket_bytes = set.Long(specs[kFirstBucketBytes].name);
  return options;
}

K Distribute(K x) {
  return Guard([&] {
    const Args a("distribute", x);
    if (a.empty()) a.Unrecognized();
    const Handle m = a.PointerAt(0);
    if (a.size() == 2 && IsNull(a[1])) {
      // undistribute names itself in its errors; through q the call is distribute's.
      if (class_(m) != ObjectClass::kModel)
        Fail("distribute: expected model, given %s", ClassName(class_(m)));
      undistribute(m);
      return Null();
    }
    const std::size_t options_from = a.size() > 1 && !StartsDistributeOptions(a[1]) ? 2 : 1;
    const Handle g = options_from == 2 ? a.PointerAt(1) : Handle();
    distribute(
        m, g,
        a.size() > options_from ? DistributeOptionsFrom(x, options_from) : DistributeOptions());
    return Null();
  });
}

}  // namespace

std::vector<Export> DistributedExports() {
  return {Unary("group", Group),         Unary("allreduce", Allreduce),
          Unary("broadcast", Broadcast), Unary("allgather", Allgather),
          Unary("barrier", Barrier),     Unary("distribute", Distribute)};
}

}  // namespace kscope::q
