// kscope::Scope — the RAII guard that owns every handle created while it is the innermost
// scope of its thread, and with_scope(f), its callback form.
//
//   {
//     auto scope = kscope::Scope::Open();           // or Scope::Open(GradPolicy::kNoGrad)
//     kscope::Handle x = kscope::tensor(...);        // owned by `scope`
//     kscope::Handle y = scope.keep(kscope::mul(x, x));  // handed to the parent on normal exit
//   }                                                // x released here, y lives on outside
//
// Ownership: on exit, normal or by exception, the scope releases every handle it still owns,
// newest first. Handles passed to keep() move to the parent scope (same id, same reference
// count), but only when the scope exits normally: during exception unwinding nothing is handed
// off. keep() of a handle owned by an enclosing scope or the root is a no-op.
// Grad policy: kNoGrad or kInference set the thread's autograd mode for the scope's lifetime
// and restore it on every exit path. Footprint::kTracked: the scope counts the memory allocated
// and freed while it is open (ScopeFootprint(id()), scope/scope_footprint.h).
// Errors: keep() throws kscope::Error (and changes nothing) for a stale handle or one owned by
// another thread or by a still-open inner scope. The destructor never throws.
// Thread-safety: a Scope belongs to the thread that opened it; it cannot be copied or moved.
// Scopes must close in LIFO order, which RAII guarantees for stack-allocated guards.
#ifndef KSCOPE_SCOPE_SCOPE_H_
#define KSCOPE_SCOPE_SCOPE_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>

#include "runtime/handle.h"
#include "scope/scope_stack.h"

namespace at {
class Tensor;
}  // namespace at

namespace kscope {

enum class GradPolicy {
  kInherit,    // leave the thread's grad mode as it is
  kNoGrad,     // autograd off (at::NoGradGuard)
  kInference,  // c10::InferenceMode: no autograd, no version counters, views untracked
};

class [[nodiscard]] Scope {
 public:
  [[nodiscard]] static Scope Open(GradPolicy policy = GradPolicy::kInherit,
                                  Footprint footprint = Footprint::kUntracked) {
    return Scope(policy, footprint);
  }

  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  Scope(Scope&&) = delete;
  Scope& operator=(Scope&&) = delete;
  ~Scope();

  // Marks h to move to the parent scope on normal exit; returns h.
  Handle keep(Handle h);

  ScopeId id() const { return id_; }
  // Depth of this scope: 1 for the outermost scope of a thread (the root is 0).
  int depth() const { return depth_; }

 private:
  Scope(GradPolicy policy, Footprint footprint);

  std::optional<c10::AutoGradMode> grad_mode_;
  std::optional<c10::InferenceMode> inference_mode_;
  ScopeId id_;
  int depth_;
  int uncaught_at_open_;
  std::vector<Handle> kept_;
};

// Types that carry no handles: with_scope returns them as they are. Arithmetic types, enums,
// strings and at::Tensor (data, not a handle) are; specialize it (std::true_type) for another
// type of yours that holds no kscope::Handle.
template <typename T>
struct CarriesNoHandles
    : std::bool_constant<std::is_arithmetic_v<T> || std::is_enum_v<T> ||
                         std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                         std::is_same_v<T, at::Tensor>> {};

namespace scope_internal {
template <typename T, template <typename...> class Template>
struct IsSpecialization : std::false_type {};
template <template <typename...> class Template, typename... A>
struct IsSpecialization<Template<A...>, Template> : std::true_type {};
template <typename T>
struct IsArray : std::false_type {};
template <typename T, std::size_t N>
struct IsArray<std::array<T, N>> : std::true_type {};
template <typename T, typename = void>
struct IsMap : std::false_type {};  // std::map, std::unordered_map, absl's hash maps ...
template <typename T>
struct IsMap<T, std::void_t<typename T::key_type, typename T::mapped_type>> : std::true_type {};
template <typename T>
inline constexpr bool kAlwaysFalse = false;
}  // namespace scope_internal

// KeepHandles(scope, value) keeps every handle `value` carries: a Handle; a std::vector,
// std::array, std::optional, std::pair, std::tuple or map of such values (keys and values); a
// type for which CarriesNoHandles holds carries none. It is a customization point found by
// argument-dependent lookup: a type that carries handles (e.g. kscope::Result) declares its own
// overload beside it. Any other type is refused at compile time, so a result whose handles
// with_scope cannot see is never released silently.
inline void KeepHandles(Scope& s, Handle h) { s.keep(h); }
template <typename T>
void KeepHandles(Scope& s, const T& value) {
  namespace si = scope_internal;
  if constexpr (CarriesNoHandles<T>::value) {
    (void)s, (void)value;
  } else if constexpr (si::IsSpecialization<T, std::vector>::value || si::IsArray<T>::value ||
                       si::IsMap<T>::value) {
    for (const auto& item : value) KeepHandles(s, item);
  } else if constexpr (si::IsSpecialization<T, std::optional>::value) {
    if (value) KeepHandles(s, *value);
  } else if constexpr (si::IsSpecialization<T, std::pair>::value) {
    KeepHandles(s, value.first);
    KeepHandles(s, value.second);
  } else if constexpr (si::IsSpecialization<T, std::tuple>::value) {
    std::apply([&](const auto&... item) { (KeepHandles(s, item), ...); }, value);
  } else {
    static_assert(si::kAlwaysFalse<T>,
                  "with_scope cannot see the handles this type may carry: declare "
                  "KeepHandles(kscope::Scope&, const T&) beside the type, or specialize "
                  "kscope::CarriesNoHandles<T> as std::true_type if it holds no handle");
  }
}

// Runs f() in a new scope and returns its result. Handles in the result (anything KeepHandles
// accepts: a Handle, a kscope::Result, containers of them ...) are handed off to the calling
// scope; everything else f created is released. A result type KeepHandles does not know fails
// to compile. If f throws, everything it created is released and the exception propagates.
template <typename F>
auto with_scope(F&& f, GradPolicy policy = GradPolicy::kInherit) {
  using Returned = std::decay_t<std::invoke_result_t<F>>;
  Scope scope = Scope::Open(policy);
  if constexpr (std::is_void_v<Returned>) {
    std::forward<F>(f)();
  } else {
    Returned returned = std::forward<F>(f)();
    KeepHandles(scope, returned);
    return returned;
  }
}

}  // namespace kscope

#endif  // KSCOPE_SCOPE_SCOPE_H_
