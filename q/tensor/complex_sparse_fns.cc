// Adapters for the parts of complex and sparse tensors, with ktorch's argument forms:
//   real t | imag t | indices t | values t   -> k values of the part; enlist t -> a new pointer
//   isreal x                                 -> k bools (x a pointer or k data); enlist t ->
//   pointer sparse x | sparse(x;sparsedim)           -> a new sparse pointer, for k data too (k has
//   no
//                                               sparse form), as in ktorch
//   sparse(x;mask)                           -> x at a sparse mask's indices (a pointer)
//   sparseindex x | sparseindex(x;sparsedim) -> the COO index, k data or a pointer as x is
//   dense t                                  -> a dense copy of a sparse tensor (a pointer)
//   coalesce t                               -> `::`, t coalesced in place
// k data is read in place (InputFromK) and results that share it are converted to k at once.
#include <utility>

#include "api/tensor/complex_parts.h"
#include "api/tensor/sparse.h"
#include "api/tensor/tensor.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsEnlistedPointer(K x) {
  return !IsPointer(x) && x->t == kabi::kMixed && x->n == 1 && IsPointer(kabi::Items(x)[0]);
}

// Whether x, a general list, holds a pointer or an atom: arguments, not the rows of a k array.
bool HoldsArguments(K x) {
  if (x->t != kabi::kMixed || IsPointer(x)) return false;
  for (long long i = 0; i < x->n; ++i) {
    if (IsPointer(kabi::Items(x)[i]) || kabi::Items(x)[i]->t < 0) return true;
  }
  return false;
}

// ktorch's reading of a part's argument: a pointer stands for its tensor's values (the result
// comes back as k data), an enlisted pointer for the handle (the result is a new pointer), and,
// where `k_data` allows, other k values are data. kscope::Error naming fn otherwise.
Operand PartArgument(const char* fn, K x, bool k_data) {
  if (IsPointer(x)) return Operand(TensorOf(fn, HandleOf(x)));
  if (IsEnlistedPointer(x)) return Operand(HandleOf(kabi::Items(x)[0]));
  if (!k_data || HoldsArguments(x))
    Fail("%s: expects a tensor pointer or an enlisted pointer, given %s", fn, KName(x));
  return InputFromK(fn, x);
}

template <Result (*Op)(const Operand&)>
K Part(const char* fn, K x, bool k_data = false) {
  return Guard([&] { return KFromResult(Op(PartArgument(fn, x, k_data))); });
}
K Real(K x) { return Part<kscope::real>("real", x); }
K Imag(K x) { return Part<kscope::imag>("imag", x); }
K Isreal(K x) { return Part<kscope::isreal>("isreal", x, true); }
K Indices(K x) { return Part<kscope::indices>("indices", x); }
K Values(K x) { return Part<kscope::values>("values", x); }

bool IsIntegerAtom(K x) {
  return x->t == -kabi::kLong || x->t == -kabi::kInt || x->t == -kabi::kShort ||
         x->t == -kabi::kByte;
}

// f x | f(x;n) with n an integer atom | f(x;p) with p a pointer: (x, the second argument or
// null). A k array of any shape (a matrix is a general list) is the whole x; other arguments
// are unrecognized.
std::pair<Operand, K> InputAndOption(const Args& a, K x) {
  if (a.size() == 2 && (a.IsPointerAt(1) || IsIntegerAtom(a[1]))) {
    return {a.InputAt(0), a[1]};
  }
  if (HoldsArguments(x)) a.Unrecognized();
  return {InputFromK(a.fn(), x), nullptr};
}

// A sparse result as k: always a pointer (the result of k data is a fresh tensor, owned anew).
K KFromSparse(const Result& r) {
  return r.is_handle() ? KFromResult(r) : Pointer(OwnTensor("sparse", r.tensor(), {}));
}

K Sparse(K x) {
  return Guard([&] {
    const Args a("sparse", x);
    const auto [input, option] = InputAndOption(a, x);
    if (option == nullptr) return KFromSparse(sparse(input));
    if (a.IsPointerAt(1)) return KFromSparse(sparse_mask(input, a.PointerAt(1)));
    return KFromSparse(sparse(input, a.LongAt(1)));
  });
}

K Sparseindex(K x) {
  return Guard([&] {
    const Args a("sparseindex", x);
    const auto [input, option] = InputAndOption(a, x);
    if (option == nullptr) return KFromResult(sparseindex(input));
    return KFromResult(sparseindex(input, a.LongAt(1)));
  });
}

K Dense(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("dense: expects a sparse tensor pointer, given %s", KName(x));
    return KFromResult(dense(HandleOf(x)));
  });
}

K Coalesce(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("coalesce: expects a sparse tensor pointer, given %s", KName(x));
    coalesce(HandleOf(x));
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> ComplexSparseExports() {
  return {Unary("real", Real),
          Unary("imag", Imag),
          Unary("isreal", Isreal),
          Unary("sparse", Sparse),
          Unary("sparseindex", Sparseindex),
          Unary("dense", Dense),
          Unary("indices", Indices),
          Unary("values", Values),
          Unary("coalesce", Coalesce)};
}

}  // namespace kscope::q
