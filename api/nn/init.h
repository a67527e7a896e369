// Initializing tensors in place, ktorch's zeros ones fill eye dirac orthogonal knormal kuniform
// snormal xnormal xuniform and gain, over libtorch's torch::nn::init (namespace kscope::init,
// apart from kscope::zeros/ones, which create tensors): zeros, ones, fill, eye, dirac,
// orthogonal, kaiming_normal (ktorch knormal), kaiming_uniform (kuniform), sparse (snormal),
// xavier_normal (xnormal), xavier_uniform (xuniform), gain (calculate_gain).
//
// A Target names the tensors changed: data (an at::Tensor the caller owns), a tensor handle,
// every tensor of a vector or dictionary handle or those at the given vector indices /
// dictionary keys, or a module's parameters (all of them, or the named parameters and buffers,
// libtorch's dotted names). The tensors are changed in place under no-grad (leaf parameters
// keep requires_grad), so every handle sharing them sees the change; no handle is created.
//
// Errors: kscope::Error naming the ktorch function and what was expected ("knormal: parameter
// `bias has 1 dimension, expected 2 or more", "eye: no key `w in dictionary", "snormal:
// sparsity 2 is outside 0-1", "gain: unknown nonlinearity `foo, expected one of ..."); every
// tensor is checked before any is changed, so a failed call changes nothing (and draws no
// random numbers). Thread-safety: any thread; the tensors must not be in use by another thread.
#ifndef KSCOPE_API_NN_INIT_H_
#define KSCOPE_API_NN_INIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include "api/core/selection.h"
#include "runtime/handle.h"

namespace kscope::init {

// The tensors an init call changes.
class Target {
 public:
  Target(at::Tensor data) : value_(std::move(data)) {}  // NOLINT: implicit by design
  Target(Handle h) : value_(h) {}                       // NOLINT
  Target(Handle vector, std::vector<std::int64_t> indices)
      : value_(vector), indices_(std::move(indices)) {}
  Target(Handle h, std::vector<std::string> names) : value_(h), names_(std::move(names)) {}

  bool is_data() const { return std::holds_alternative<at::Tensor>(value_); }
  const at::Tensor& data() const { return std::get<at::Tensor>(value_); }
  Handle handle() const { return std::get<Handle>(value_); }
  const std::vector<std::int64_t>& indices() const { return indices_; }  // empty: every tensor
  const std::vector<std::string>& names() const { return names_; }       // empty: every tensor

 private:
  std::variant<at::Tensor, Handle> value_;
  std::vector<std::int64_t> indices_;
  std::vector<std::string> names_;
};

// One tensor a Target names, and how messages name it ("tensor", "vector[2]", "key `w",
// "parameter `0.weight", "buffer `running_mean").
using Located = Selected;

// The tensors t names (sharing storage with the objects holding them), each defined; shared by
// every function that changes tensors in place (this file's, and api/tensor/random_fill.h's).
// kscope::Error naming `fn` for a selection the object's class does not take, an index or key
// it lacks, a stale handle, an object of another class or an undefined tensor. Changes nothing.
std::vector<Located> Select(const char* fn, const Target& t);

// Kaiming initialization's options, libtorch's defaults: negative slope a (leakyrelu), fan-in
// mode, and ktorch's nonlinearity symbol (linear conv1d conv2d conv3d convtranspose1d
// convtranspose2d convtranspose3d sigmoid tanh relu leakyrelu).
struct Kaiming {
  double a = 0;
  bool fan_out = false;
  std::string nonlinearity = "leakyrelu";
};

void zeros(const Target& t);
void ones(const Target& t);
void fill(const Target& t, const c10::Scalar& value);
void eye(const Target& t);  // 2-d tensors
// 3 to 5-d tensors whose first size is divisible by groups (python's dirac_ with groups).
void dirac(const Target& t, std::int64_t groups = 1);
void orthogonal(const Target& t, double gain = 1);  // floating tensors of 2 or more dimensions
// Floating tensors of 2 or more dimensions.
void kaiming_normal(const Target& t, const Kaiming& options = {});
void kaiming_uniform(const Target& t, const Kaiming& options = {});
void sparse(const Target& t, double sparsity, double std = 0.01);  // floating 2-d; sparsity 0-1
void xavier_normal(const Target& t, double gain = 1);
void xavier_uniform(const Target& t, double gain = 1);

// The recommended gain for a nonlinearity (Kaiming's names); param is leakyrelu's negative
// slope (libtorch's default 0.01), ignored for the others.
double gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);
// Whether `name` is one of gain's nonlinearity names.
bool is_nonlinearity(const std::string& name);

}  // namespace kscope::init

#endif  // KSCOPE_API_NN_INIT_H_
