#include "api/tensor/sparse.h"

#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope {
namespace {

const char* LayoutOf(const at::Tensor& t) { return t.is_sparse() ? "sparse" : "strided"; }

// t, when its layout is sparse (strided when `want_sparse` is false); otherwise kscope::Error
// "<fn>: expects sparse <noun>, given strided tensor".
const at::Tensor& WithLayout(const char* fn, const at::Tensor& t, bool want_sparse,
                             const char* noun = "tensor") {
  if (t.is_sparse() != want_sparse) {
    Fail("%s: expects %s %s, given %s tensor", fn, want_sparse ? "sparse" : "strided", noun,
         LayoutOf(t));
  }
  return t;
}
const at::Tensor& Sparse(const char* fn, const at::Tensor& t) { return WithLayout(fn, t, true); }
const at::Tensor& Strided(const char* fn, const at::Tensor& t) { return WithLayout(fn, t, false); }

at::Tensor ToSparse(const at::Tensor& t, std::optional<std::int64_t> sparse_dims) {
  return sparse_dims ? t.to_sparse(*sparse_dims) : t.to_sparse();
}

}  // namespace

Result sparse(const Operand& x, std::optional<std::int64_t> sparse_dims) {
  return Compute("sparse", {&x}, Handle(), [&](const TensorList& t) {
    return ToSparse(Strided("sparse", t[0]), sparse_dims);
  });
}

Result sparse_mask(const Operand& x, const Operand& mask) {
  return Compute("sparse", {&x, &mask}, Handle(), [](const TensorList& t) {
    return Strided("sparse", t[0]).sparse_mask(WithLayout("sparse", t[1], true, "mask"));
  });
}

Result sparseindex(const Operand& x, std::optional<std::int64_t> sparse_dims) {
  return Compute("sparseindex", {&x}, Handle(), [&](const TensorList& t) {
    return ToSparse(Strided("sparseindex", t[0]), sparse_dims).indices();
  });
}

Result dense(const Operand& x) {
  return Compute("dense", {&x}, Handle(),
                 [](const TensorList& t) { return Sparse("dense", t[0]).to_dense(); });
}

Result indices(const Operand& x) {
  return Compute("indices", {&x}, Handle(),
                 [](const TensorList& t) { return Sparse("indices", t[0]).indices(); });
}

Result values(const Operand& x) {
  return Compute("values", {&x}, Handle(),
                 [](const TensorList& t) { return Sparse("values", t[0]).values(); });
}

void coalesce(Handle h) {
  at::Tensor coalesced = Sparse("coalesce", TensorOf("coalesce", h)).coalesce();
  HandleTable::Global().Replace(h, Object(std::move(coalesced)));
}

}  // namespace kscope
