// apply.cc — dl, dot, host functions and the checked call.
#include "tests/khost/apply.h"

#include <cstring>
#include <exception>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/khost/builtins.h"
#include "tests/khost/census.h"
#include "tests/khost/errors.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/validate.h"

namespace khost {
namespace internal {
namespace {

using kabi::K;

constexpr int kMaxRank = 8;

// The payload of a type-112 object.
struct DynamicFunction {
  void* f;
  std::int64_t rank;
};

// The payload of a type-100 object (behind a pointer, freed by r0).
class HostFunction final : public OwnedPayload {
 public:
  HostFunction(int rank, Body body) : rank(rank), body(std::move(body)) {}
  const int rank;
  const Body body;
};

DynamicFunction& DynamicOf(K f) { return *static_cast<DynamicFunction*>(kabi::Payload(f)); }
HostFunction& HostOf(K f) { return **static_cast<HostFunction**>(kabi::Payload(f)); }

K Invoke(void* f, std::int64_t rank, const std::vector<K>& a) {
  using F1 = K (*)(K);
  using F2 = K (*)(K, K);
  using F3 = K (*)(K, K, K);
  using F4 = K (*)(K, K, K, K);
  using F5 = K (*)(K, K, K, K, K);
  using F6 = K (*)(K, K, K, K, K, K);
  using F7 = K (*)(K, K, K, K, K, K, K);
  using F8 = K (*)(K, K, K, K, K, K, K, K);
  switch (rank) {
    case 1: return reinterpret_cast<F1>(f)(a[0]);
    case 2: return reinterpret_cast<F2>(f)(a[0], a[1]);
    case 3: return reinterpret_cast<F3>(f)(a[0], a[1], a[2]);
    case 4: return reinterpret_cast<F4>(f)(a[0], a[1], a[2], a[3]);
    case 5: return reinterpret_cast<F5>(f)(a[0], a[1], a[2], a[3], a[4]);
    case 6: return reinterpret_cast<F6>(f)(a[0], a[1], a[2], a[3], a[4], a[5]);
    case 7: return reinterpret_cast<F7>(f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    default: return reinterpret_cast<F8>(f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  }
}

// The arguments q passes: f[] gives a rank-1 function `::`, f(a;b) gives it the list (a;b).
struct Shaped {
  std::vector<K> passed;
  KRef wrapper;  // the `::` or the list the host made, if any
};

bool Shape(std::int64_t rank, const std::vector<K>& args, Shaped* shaped) {
  if (rank < 1 || rank > kMaxRank) return false;
  if (rank == 1 && args.size() != 1) {
    K wrapper = args.empty() ? kabi::ka(kabi::kUnaryPrimitive)
                             : kabi::ktn(kabi::kMixed, static_cast<long long>(args.size()));
    for (std::size_t i = 0; i < args.size(); ++i) kabi::Items(wrapper)[i] = kabi::r1(args[i]);
    shaped->wrapper.reset(wrapper);
    shaped->passed = {wrapper};
    return true;
  }
  if (args.size() != static_cast<std::size_t>(rank)) return false;
  shaped->passed = args;
  return true;
}

Result Failure(std::string error) {
  Result result;
  result.failed = true;
  result.error = std::move(error);
  return result;
}

// The host's own wrapper is freed after the call, unless the plugin already (wrongly) freed it.
void ReleaseWrapper(KRef& wrapper) {
  if (wrapper && Lookup(wrapper.get()).kind != Kind::kLive) wrapper.release();
  wrapper.reset();
}

struct Snapshot {
  K x;
  std::int32_t r;
  std::uint64_t serial;
};

std::vector<Snapshot> TakeSnapshots(const Shaped& shaped, const std::vector<K>& args) {
  std::vector<Snapshot> snapshots;
  absl::flat_hash_set<K> seen;
  for (const std::vector<K>* list : {&shaped.passed, &args}) {
    for (K x : *list) {
      if (seen.insert(x).second) snapshots.push_back(Snapshot{x, x->r, Lookup(x).serial});
    }
  }
  return snapshots;
}

// References to `target` the call created inside `root`: root itself, and every slot of a
// container allocated during the call (serial > since) that holds target.
std::int64_t NewReferences(K root, K target, std::uint64_t since) {
  std::int64_t count = root == target;
  std::vector<K> pending{root};
  absl::flat_hash_set<K> visited;
  while (!pending.empty()) {
    K x = pending.back();
    pending.pop_back();
    const Status s = Lookup(x);
    if (s.kind != Kind::kLive || !visited.insert(x).second) continue;
    for (K child : Children(x)) {
      if (IsUnfilled(child)) continue;
      if (child == target && s.serial > since) ++count;
      pending.push_back(child);
    }
  }
  return count;
}

void CheckArguments(const std::vector<Snapshot>& snapshots, K result, std::uint64_t since,
                    absl::string_view name) {
  for (const Snapshot& s : snapshots) {
    const Status now = Lookup(s.x);
    if (now.kind != Kind::kLive || now.serial != s.serial) {
      Emit(Check::kBorrowedFreed,
           absl::StrFormat("%s freed its borrowed argument #%d", name, s.serial), s.serial);
      continue;
    }
    if (s.x->r < s.r) {
      Emit(Check::kBorrowedFreed,
           absl::StrFormat("%s dropped a reference to its borrowed argument #%d (r %d -> %d)", name,
                           s.serial, s.r, s.x->r),
           s.serial, s.x->t);
      continue;
    }
    if (result == nullptr) continue;
    const std::int64_t references = NewReferences(result, s.x, since);
    if (references > s.x->r - s.r) {
      Emit(Check::kBorrowedReturned,
           absl::StrFormat(
               "%s returned its argument #%d in %d new place(s) but r rose by %d: r1 it first",
               name, s.serial, references, s.x->r - s.r),
           s.serial, s.x->t);
    }
  }
}

// Turns what a function returned (value, pending error) into a Result; `check` enables the
// plugin-boundary checks.
Result Collect(K value, std::optional<PendingMessage> pending, absl::string_view name, bool check) {
  if (value == nullptr) {
    if (!pending) return Result{};
    if (check && std::strcmp(pending->pointer, pending->copy.c_str()) != 0) {
      Emit(Check::kUnstableMessage,
           absl::StrFormat("%s: krr(\"%s\") text changed before q read it (now \"%s\")", name,
                           pending->copy, pending->pointer));
    }
    return Failure(pending->copy);
  }
  if (check && pending) {
    Emit(Check::kKrrThenValue, absl::StrFormat("%s called krr(\"%s\") and then returned object #%d",
                                               name, pending->copy, Lookup(value).serial));
  }
  if (!CheckEntry(value, absl::StrFormat("result of %s", name), kAllowError))
    return Failure("khost: invalid result");
  if (value->t == kabi::kError) {
    Result result = Failure(value->s);
    kabi::r0(value);
    return result;
  }
  if (check) ValidateTree(value, absl::StrFormat("result of %s", name));
  Result result;
  result.value.reset(value);
  return result;
}

Result CallPlugin(K f, const std::vector<K>& args, absl::string_view name) {
  const DynamicFunction fn = DynamicOf(f);
  Shaped shaped;
  if (!Shape(fn.rank, args, &shaped)) return Failure("rank");
  const std::vector<Snapshot> snapshots = TakeSnapshots(shaped, args);
  ClearError();
  const std::uint64_t since = LastSerial();
  K value = nullptr;
  std::string exception;
  try {
    value = Invoke(fn.f, fn.rank, shaped.passed);
  } catch (const std::exception& e) {
    exception = e.what();
  } catch (...) {
    exception = "an exception not derived from std::exception";
  }
  Result result;
  if (exception.empty()) {
    result = Collect(value, TakePending(), name, /*check=*/true);
  } else {
    ClearError();
    Emit(Check::kException,
         absl::StrFormat("%s let a C++ exception escape (q would abort): %s", name, exception));
    result = Failure(absl::StrCat("khost: exception escaped: ", exception));
  }
  CheckArguments(snapshots, result.value.get(), since, name);
  ReleaseWrapper(shaped.wrapper);
  SweepAfterCall(since, result.value.get(), name);
  return result;
}

Result CallHost(K f, const std::vector<K>& args) {
  const HostFunction& h = HostOf(f);
  Shaped shaped;
  if (!Shape(h.rank, args, &shaped)) return Failure("rank");
  const Body body = h.body;  // the body may free f
  K value;
  try {
    value = body(shaped.passed);
  } catch (const std::exception& e) {
    ClearError();
    return Failure(e.what());
  }
  Result result = Collect(value, TakePending(), "host function", /*check=*/false);
  ReleaseWrapper(shaped.wrapper);
  return result;
}

}  // namespace

int RankOf(K f) {
  return f->t == kabi::kLambda ? HostOf(f).rank : static_cast<int>(DynamicOf(f).rank);
}

K ApplyForPlugin(K f, const std::vector<K>& args, absl::string_view name) {
  Result result = Call(f, args, name);
  if (result.failed) return Fail(result.error);
  if (!result.value) return kabi::ka(kabi::kUnaryPrimitive);
  return result.value.release();
}

}  // namespace internal

kabi::K Function(int rank, Body body) {
  if (rank < 1 || rank > internal::kMaxRank) {
    Emit(Check::kBadArgument, absl::StrFormat("Function(%d, ...): rank must be 1..8", rank));
  }
  kabi::K x = internal::Allocate(kabi::kLambda, sizeof(internal::OwnedPayload*));
  *static_cast<internal::OwnedPayload**>(kabi::Payload(x)) =
      new internal::HostFunction(rank, std::move(body));
  return x;
}

void* NativeFunction(kabi::K f) {
  if (f == nullptr || internal::Lookup(f).kind != internal::Kind::kLive ||
      f->t != kabi::kDynamicLoad)
    return nullptr;
  return internal::DynamicOf(f).f;
}

Result Call(kabi::K f, const std::vector<kabi::K>& args, absl::string_view name) {
  if (!internal::CheckEntry(f, name)) return internal::Failure("khost: not a function object");
  for (kabi::K arg : args) {
    if (!internal::ValidateTree(arg, absl::StrFormat("argument of %s", name)) &&
        internal::Lookup(arg).kind != internal::Kind::kLive) {
      return internal::Failure("khost: invalid argument");
    }
  }
  switch (f->t) {
    case kabi::kDynamicLoad: return internal::CallPlugin(f, args, name);
    case kabi::kLambda: return internal::CallHost(f, args);
    default: return internal::Failure("type");
  }
}

}  // namespace khost

kabi::K kabi::dl(void* f, long long rank) {
  if (f == nullptr) khost::Emit(khost::Check::kBadPointer, "dl: NULL function pointer");
  if (rank < 1 || rank > khost::internal::kMaxRank) {
    khost::Emit(khost::Check::kBadArgument, absl::StrFormat("dl(f, %d): rank must be 1..8", rank));
  }
  K x = khost::internal::Allocate(kDynamicLoad, sizeof(khost::internal::DynamicFunction));
  khost::internal::DynamicOf(x) = khost::internal::DynamicFunction{f, rank};
  return x;
}

kabi::K kabi::dot(K f, K args) {
  if (!khost::internal::CheckEntry(f, "dot") || !khost::internal::CheckEntry(args, "dot")) {
    return khost::internal::Fail("type");
  }
  std::vector<K> items;
  std::vector<khost::KRef> atoms;
  if (args->t == kMixed) {
    items.assign(Items(args), Items(args) + args->n);
  } else if (khost::internal::IsVectorType(args->t)) {
    for (long long i = 0; i < args->n; ++i) {
      atoms.emplace_back(khost::internal::ItemAtom(args, i));
      items.push_back(atoms.back().get());
    }
  } else {
    return khost::internal::Fail("type");
  }
  return khost::internal::ApplyForPlugin(f, items, "dot");
}
