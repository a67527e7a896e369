// MNIST-shaped generated data for the examples: 784 inputs (a flattened 28 x 28 image) and 10
// classes. The data is learnable: each class has a mean image (drawn once, MeanImages) and every
// row is its class's mean plus unit noise (Images), so a linear classifier can tell the classes
// apart while chance is 10%. Drawn from libtorch's default generator: seed it for the same data.
#ifndef KSCOPE_EXAMPLES_MNIST_DATA_H_
#define KSCOPE_EXAMPLES_MNIST_DATA_H_

#include <cstdint>

#include <ATen/TensorOperators.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>

namespace kscope::examples {

constexpr std::int64_t kInputs = 784;
constexpr std::int64_t kClasses = 10;
constexpr double kMeanScale = 0.15;  // spread of the class means against unit noise

struct Sample {
  at::Tensor x;  // rows x kInputs
  at::Tensor y;  // class of each row
};

inline at::Tensor MeanImages() { return at::randn({kClasses, kInputs}) * kMeanScale; }

// `rows` generated images: uniform classes, each row its class's mean plus unit normal noise.
inline Sample Images(const at::Tensor& means, std::int64_t rows) {
  const at::Tensor y = at::randint(kClasses, {rows}, at::kLong);
  return {means.index_select(0, y) + at::randn({rows, kInputs}), y};
}

}  // namespace kscope::examples

#endif  // KSCOPE_EXAMPLES_MNIST_DATA_H_
