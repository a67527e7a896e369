// Argument helpers shared by the math and shape adapters: where the input and the optional
// trailing output pointer sit in ktorch's argument forms. Errors: Args::Unrecognized's text.
#ifndef KSCOPE_Q_CONVERT_MATH_ARGS_H_
#define KSCOPE_Q_CONVERT_MATH_ARGS_H_

#include <cstddef>

#include "api/core/operand.h"
#include "q/convert/args.h"
#include "q/convert/k_abi.h"

namespace kscope::q {

// True when the whole argument is the one input: a pointer, or a k value that is not a
// general list (f x rather than f(x;...)).
bool IsWholeInput(kabi::K x);

// The single input of a call: the whole argument (see IsWholeInput), else the first item.
Operand SoleInput(const Args& a, kabi::K x);

// The output pointer after `inputs` arguments, or a null Handle when none is given; any other
// trailing argument is unrecognized.
Handle OutputAt(const Args& a, std::size_t inputs);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_MATH_ARGS_H_
