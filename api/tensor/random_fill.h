// ktorch's random group (ktorch-api.md §1.5 D8) over libtorch's random draws: the fills
// normal uniform random cauchy exponential geometric lognormal, which draw in place into the
// tensors an init::Target names (api/nn/init.h: data, a tensor handle, every tensor of a vector or
// dictionary or those at given indices / keys, a module's parameters or the named parameters
// and buffers), and bernoulli and multinomial, which draw a new tensor from probabilities.
//
// Fills: every tensor receives the draw libtorch's in-place op makes on a tensor of its size,
// dtype and layout (x.normal_(mean, std) ... under the same generator state), under no-grad, so
// every handle sharing it sees the change and leaf parameters keep requires_grad; no handle is
// created. Each tensor's draw is made into a fresh tensor first and copied in only when every
// draw has succeeded, so a failed call changes nothing (it may advance the generator).
// bernoulli/multinomial follow the Operand/Result convention (api/core/operand.h): data in -> data
// out, a handle in -> a new handle, or the values written into an output handle.
//
// Errors: kscope::Error naming the ktorch function ("normal: std -1 is negative", "uniform:
// vector[1] is long, expected a floating-point tensor", "random: low 5 is not below high 2"),
// the selection errors of init::Select, or libtorch's message (random's range for a dtype,
// bernoulli's probabilities outside 0-1, multinomial's sample count). Thread-safety: any
// thread; the tensors must not be in use by another thread; draws use libtorch's default
// generator (kscope's seed).
#ifndef KSCOPE_API_TENSOR_RANDOM_FILL_H_
#define KSCOPE_API_TENSOR_RANDOM_FILL_H_

#include <cstdint>

#include "api/core/operand.h"
#include "api/nn/init.h"
#include "runtime/handle.h"

namespace kscope::random_fill {

// Floating-point tensors only: normal uniform cauchy exponential lognormal.
void normal(const init::Target& t, double mean = 0, double std = 1);      // std >= 0
void uniform(const init::Target& t, double low = 0, double high = 1);     // low <= high
void cauchy(const init::Target& t, double median = 0, double sigma = 1);  // sigma > 0
void exponential(const init::Target& t, double rate = 1);                 // rate > 0
void lognormal(const init::Target& t, double mean = 1, double std = 2);   // std > 0
// Any dtype: integers in [0, high) or [low, high) (within the dtype's range); failures 1, 2 ...
// until the first success with `probability` (0 < probability < 1).
void random(const init::Target& t);  // 0 .. the largest integer the dtype holds exactly
void random(const init::Target& t, std::int64_t high);
void random(const init::Target& t, std::int64_t low, std::int64_t high);  // low < high
void geometric(const init::Target& t, double probability);

// 0/1 draws with the probabilities of x (x's dtype).
Result bernoulli(const Operand& x, Handle out = Handle());
// `samples` category indices (long) drawn from each row of weights x (1 or 2-d); samples < 0:
// one, without the samples dimension (ktorch's multinomial x).
Result multinomial(const Operand& x, std::int64_t samples, bool replacement = false,
                   Handle out = Handle());

}  // namespace kscope::random_fill

#endif  // KSCOPE_API_TENSOR_RANDOM_FILL_H_
