// eval.cc — k, vak and the registry of expressions they can evaluate.
#include "tests/khost/eval.h"

#include <cstdarg>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "tests/khost/apply.h"
#include "tests/khost/builtins.h"
#include "tests/khost/errors.h"
#include "tests/khost/format.h"
#include "tests/khost/heap.h"
#include "tests/khost/kref.h"
#include "tests/khost/report.h"
#include "tests/khost/validate.h"

namespace khost {
namespace {

using kabi::K;

constexpr std::size_t kMaxArgs = 8;

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, Body> defined ABSL_GUARDED_BY(mu);
  std::string console ABSL_GUARDED_BY(mu);
};

Registry& Reg() {
  static Registry* registry = new Registry;
  return *registry;
}

// A built-in of fixed rank.
template <std::size_t Rank, typename F>
Body Builtin(F f) {
  return [f](const std::vector<K>& args) -> K {
    if (args.size() != Rank) return internal::Fail("rank");
    return f(args);
  };
}

const absl::flat_hash_map<std::string, Body>& Builtins() {
  static const auto* builtins = new absl::flat_hash_map<std::string, Body>{
      {".Q.s1", Builtin<1>([](const std::vector<K>& a) {
         std::string text = S1(a[0]);
         return kabi::kpn(text.data(), static_cast<long long>(text.size()));
       })},
      {"0N!", Builtin<1>([](const std::vector<K>& a) {
         Registry& r = Reg();
         std::string text = S1(a[0]);
         absl::MutexLock lock(&r.mu);
         r.console += text + "\n";
         return kabi::r1(a[0]);
       })},
      {"enlist", Builtin<1>([](const std::vector<K>& a) { return internal::Enlist(a[0]); })},
      {"~", Builtin<2>([](const std::vector<K>& a) { return kabi::kb(Match(a[0], a[1])); })},
      {"$", Builtin<2>([](const std::vector<K>& a) { return internal::Cast(a[0], a[1]); })},
      {"1:", Builtin<2>([](const std::vector<K>& a) { return internal::WriteBytes(a[0], a[1]); })},
      {".", Builtin<2>([](const std::vector<K>& a) { return kabi::dot(a[0], a[1]); })},
      {"@", Builtin<2>([](const std::vector<K>& a) {
         return internal::ApplyForPlugin(a[0], {a[1]}, "@");
       })},
  };
  return *builtins;
}

// The callable for `expression`, or an empty one.
Body Find(const std::string& expression) {
  Registry& r = Reg();
  {
    absl::MutexLock lock(&r.mu);
    auto it = r.defined.find(expression);
    if (it != r.defined.end()) return it->second;
  }
  auto it = Builtins().find(expression);
  return it == Builtins().end() ? Body() : it->second;
}

// Runs `callable` on borrowed args and converts a pending error into an error object.
K Evaluate(const Body& callable, const std::vector<K>& args) {
  K result;
  try {
    result = callable(args);
  } catch (const std::exception& e) {
    ClearError();
    return internal::MakeError(e.what());
  }
  std::optional<internal::PendingMessage> pending = internal::TakePending();
  if (result != nullptr) return result;
  return pending ? internal::MakeError(pending->copy) : kabi::ka(kabi::kUnaryPrimitive);
}

}  // namespace

void Define(const std::string& name, Body body) {
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  r.defined[name] = std::move(body);
}

void Undefine(const std::string& name) {
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  r.defined.erase(name);
}

std::string TakeConsole() {
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  return std::exchange(r.console, std::string());
}

}  // namespace khost

kabi::K kabi::vak(int handle, const char* expression, va_list list) {
  std::vector<K> args;
  std::vector<khost::KRef> owned;  // released when k returns: k takes its arguments over
  while (K arg = va_arg(list, K)) {
    if (args.size() == khost::kMaxArgs) {
      khost::Emit(khost::Check::kBadArgument,
                  "k: more than 8 arguments, or a missing (K)0 terminator");
      break;
    }
    if (khost::internal::CheckEntry(arg, "k")) owned.emplace_back(arg);
    args.push_back(arg);
  }
  if (expression == nullptr) {
    khost::Emit(khost::Check::kBadPointer, "k: NULL expression");
    return khost::internal::MakeError("khost: k(NULL)");
  }
  if (handle > 0)
    return khost::internal::MakeError(absl::StrFormat("khost: no connection on handle %d", handle));
  if (handle < 0) return khost::internal::AsyncSentinel();
  if (!khost::internal::IsMainThread()) {
    khost::Emit(khost::Check::kThread,
                absl::StrFormat("k(0, \"%s\") off the main thread", expression));
  }
  const khost::Body callable = khost::Find(expression);
  if (!callable) {
    khost::Emit(khost::Check::kCannotEvaluate, absl::StrFormat("k(0, \"%s\")", expression));
    return khost::internal::MakeError(absl::StrFormat("khost: cannot evaluate '%s'", expression));
  }
  if (owned.size() != args.size()) return khost::internal::MakeError("khost: invalid argument");
  return khost::Evaluate(callable, args);
}

kabi::K kabi::k(int handle, const char* expression, ...) {
  va_list list;
  va_start(list, expression);
  K result = vak(handle, expression, list);
  va_end(list);
  return result;
}
