#include "api/nn/optimizer_object.h"

#include <sstream>
#include <type_traits>
#include <typeinfo>
#include <variant>

#include <c10/util/C++17.h>
#include <c10/util/Type.h>

#include "runtime/errors.h"

namespace kscope::nn {
namespace {

// An option value as libtorch's printouts show one: true/false, numbers, [a, b], None.
void Print(std::ostream& out, const OptionValue& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          out << "None";
        } else if constexpr (std::is_same_v<T, bool>) {
          out << (v ? "true" : "false");
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>> || std::is_same_v<T, std::vector<double>>) {
          out << '[';
          for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
          out << ']';
        } else {
          out << v;
        }
      },
      value);
}

}  // namespace

std::vector<at::Tensor> OptimizerObject::tensors() const {
  std::vector<at::Tensor> all;
  const auto& state = optimizer_->state();
  for (const at::Tensor& p : parameters()) {
    // libtorch keys a parameter's state by the address of its TensorImpl.
    auto it = state.find(c10::guts::to_string(p.unsafeGetTensorImpl()));
    if (it == state.end()) continue;
    for (at::Tensor& t : spec_->kind->state(*it->second)) all.push_back(std::move(t));
  }
  return all;
}

std::vector<at::Tensor> OptimizerObject::parameters() const {
  std::vector<at::Tensor> all;
  for (const auto& group : optimizer_->param_groups()) {
    all.insert(all.end(), group.params().begin(), group.params().end());
  }
  return all;
}

std::int64_t OptimizerObject::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& group : optimizer_->param_groups()) n += static_cast<std::int64_t>(group.params().size());
  return n;
}

std::string OptimizerObject::str() const {
  const torch::optim::Optimizer& optimizer = *optimizer_;
  std::ostringstream out;
  out << c10::demangle(typeid(optimizer).name()) << '(';
  const NamedValues values = spec_->options.Values(true);
  for (std::size_t i = 0; i < values.size(); ++i) {
    out << (i ? ", " : "") << values[i].first << '=';
    Print(out, values[i].second);
  }
  out << ')';
  return out.str();
}

void OptimizerObject::MoveTo(std::optional<c10::Device>, std::optional<c10::ScalarType>) {
  Fail("to: not implemented for optimizers, move the module they optimize");
}

std::shared_ptr<CompositeObject> OptimizerObject::share() const {
  return std::make_shared<OptimizerObject>(spec_, optimizer_);
}

void OptimizerObject::set_lr(double rate) {
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(rate);
  optimizer_->defaults().set_lr(rate);
  NamedValues values = spec_->options.Values(true);
  for (auto& [name, value] : values) {
    if (name == "lr") value = rate;
  }
  spec_->options = OptionSet::Parse(spec_->kind->name, spec_->kind->options, {}, values);
}

std::shared_ptr<OptimizerObject> OptimizerOf(const char* fn, Handle h) {
  return std::static_pointer_cast<OptimizerObject>(CompositeOf(fn, h, ObjectClass::kOptimizer));
}

}  // namespace kscope::nn
