#include "scope/scope.h"

#include <exception>

namespace kscope {

Scope::Scope(GradPolicy policy, Footprint footprint)
    : id_(OpenScope(footprint)),
      depth_(ScopeDepth()),
      uncaught_at_open_(std::uncaught_exceptions()) {
  if (policy == GradPolicy::kNoGrad) grad_mode_.emplace(false);
  if (policy == GradPolicy::kInference) inference_mode_.emplace(true);
}

Scope::~Scope() {
  const bool unwinding = std::uncaught_exceptions() > uncaught_at_open_;
  CloseScopeNoThrow(id_, unwinding ? absl::Span<const Handle>() : absl::MakeConstSpan(kept_));
}

Handle Scope::keep(Handle h) {
  ValidateHandOff(id_, h);
  kept_.push_back(h);
  return h;
}

}  // namespace kscope
