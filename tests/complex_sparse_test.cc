// api/tensor/complex_parts.h and api/tensor/sparse.h: every form checked against the same libtorch
// call made directly, data in -> data out and handle in -> handle out; bad arguments give errors
// naming the function and leave every handle as it was.
#include <ATen/ops/allclose.h>
#include <ATen/ops/complex.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/imag.h>
#include <ATen/ops/isreal.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/real.h>
#include <ATen/ops/sparse_coo_tensor.h>
#include <ATen/ops/view_as_complex.h>

#include "api/tensor/complex_parts.h"
#include "api/tensor/sparse.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace complex_sparse_test {

using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using ComplexPartsTest = LeakCheckTest;
using SparseTest = LeakCheckTest;

// The tensor a handle holds, as stored (sparse tensors stay sparse).
at::Tensor Held(Handle h) { return TensorOf("test", h); }

// A complex double 3 x 2 tensor, with a zero imaginary part in two places.
at::Tensor SomeComplex() {
  at::Tensor parts = at::randn({3, 2, 2}, at::kDouble);
  parts.select(2, 1).view(-1).index_put_({0}, 0.0);
  parts.select(2, 1).view(-1).index_put_({3}, 0.0);
  return at::view_as_complex(parts);
}

// Same layout, size, dims, indices and values.
void ExpectSameSparse(const at::Tensor& actual, const at::Tensor& expected) {
  ASSERT_TRUE(actual.is_sparse());
  ASSERT_TRUE(expected.is_sparse());
  EXPECT_EQ(actual.sizes(), expected.sizes());
  EXPECT_EQ(actual.sparse_dim(), expected.sparse_dim());
  EXPECT_EQ(actual.is_coalesced(), expected.is_coalesced());
  const at::Tensor a = actual.coalesce(), e = expected.coalesce();
  EXPECT_TRUE(at::equal(a.indices(), e.indices()));
  EXPECT_TRUE(at::equal(a.values(), e.values()));
}

// A dense 3 x 4 x 2 tensor with zeros: entries (i,j,:) are zero unless i+j is even.
at::Tensor WithZeros() {
  at::Tensor x = at::randn({3, 4, 2}, at::kDouble);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      if ((i + j) % 2) x[i][j].zero_();
    }
  }
  x[0][0][1] = 0.0;  // a zero beside a nonzero in the dense dim
  return x;
}

TEST_F(ComplexPartsTest, RealAndImagMatchLibtorchForDataAndHandles) {
  auto scope = Scope::Open();
  const at::Tensor x = SomeComplex();
  Handle h = tensor(x);
  for (auto [part, direct] :
       {std::pair{&kscope::real, at::real(x)}, std::pair{&kscope::imag, at::imag(x)}}) {
    Result data = part(x);
    ASSERT_FALSE(data.is_handle());
    EXPECT_TRUE(at::equal(data.tensor(), direct));
    Result handle = part(h);
    ASSERT_TRUE(handle.is_handle());
    EXPECT_TRUE(at::equal(Held(handle.handle()), direct));
    EXPECT_EQ(Held(handle.handle()).scalar_type(), at::kDouble);
  }
  EXPECT_EQ(live_handles(), 3u);
  // complex float -> float parts
  const at::Tensor f = at::complex(at::randn({4}), at::randn({4}));
  EXPECT_TRUE(at::equal(kscope::real(f).tensor(), at::real(f)));
  EXPECT_TRUE(at::equal(kscope::imag(f).tensor(), at::imag(f)));
}

TEST_F(ComplexPartsTest, RealAndImagOfARealTensorAreErrorsThatChangeNothing) {
  auto scope = Scope::Open();
  const at::Tensor x = at::randn({3});
  Handle h = tensor(x);
  EXPECT_EQ(ErrorOf([&] { kscope::real(x); }), "real: expects complex tensor, given float tensor");
  EXPECT_EQ(ErrorOf([&] { kscope::imag(h); }), "imag: expects complex tensor, given float tensor");
  EXPECT_EQ(live_handles(), 1u);
  EXPECT_TRUE(at::equal(Held(h), x));
}

TEST_F(ComplexPartsTest, IsrealMatchesLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor x = SomeComplex();
  Handle h = tensor(x);
  Result data = kscope::isreal(x), handle = kscope::isreal(h);
  EXPECT_TRUE(at::equal(data.tensor(), at::isreal(x)));
  EXPECT_TRUE(at::equal(Held(handle.handle()), at::isreal(x)));
  EXPECT_EQ(data.tensor().sum().item<std::int64_t>(), 2);
  const at::Tensor r = at::randn({2, 2});  // real: true everywhere
  EXPECT_TRUE(at::equal(kscope::isreal(r).tensor(), at::isreal(r)));
  EXPECT_TRUE(kscope::isreal(r).tensor().all().item<bool>());
  Handle gone = tensor(r);
  kscope::free(gone);
  EXPECT_THAT(ErrorOf([&] { kscope::isreal(gone); }), HasSubstr("stale pointer"));
}

TEST_F(SparseTest, SparseMatchesToSparseForDataAndHandles) {
  auto scope = Scope::Open();
  const at::Tensor x = WithZeros();
  Handle h = tensor(x);
  ExpectSameSparse(kscope::sparse(x).tensor(), x.to_sparse());
  ExpectSameSparse(Held(kscope::sparse(h).handle()), x.to_sparse());
  for (std::int64_t d : {1, 2, 3}) {
    ExpectSameSparse(kscope::sparse(x, d).tensor(), x.to_sparse(d));
    ExpectSameSparse(Held(kscope::sparse(h, d).handle()), x.to_sparse(d));
  }
  EXPECT_EQ(obj().back().origin, "sparse");
}

TEST_F(SparseTest, SparseMaskMatchesLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor x = at::randn({3, 4}, at::kDouble);
  const at::Tensor mask = WithZeros().select(2, 0).to_sparse();
  Handle hx = tensor(x), hmask = tensor(mask);
  ExpectSameSparse(kscope::sparse_mask(x, mask).tensor(), x.sparse_mask(mask));
  ExpectSameSparse(Held(kscope::sparse_mask(hx, mask).handle()), x.sparse_mask(mask));
  Result from_data = kscope::sparse_mask(x, hmask);  // a handle among the operands: a handle out
  ASSERT_TRUE(from_data.is_handle());
  ExpectSameSparse(Held(from_data.handle()), x.sparse_mask(mask));
  EXPECT_EQ(live_handles(), 4u);
}

TEST_F(SparseTest, SparseErrorsNameTheFunctionAndChangeNothing) {
  auto scope = Scope::Open();
  const at::Tensor x = at::randn({3, 4}, at::kDouble);
  Handle hx = tensor(x), hs = tensor(x.to_sparse());
  EXPECT_EQ(ErrorOf([&] { kscope::sparse(hs); }),
            "sparse: expects strided tensor, given sparse tensor");
  EXPECT_EQ(ErrorOf([&] { kscope::sparse_mask(hx, hx); }),
            "sparse: expects sparse mask, given strided tensor");
  EXPECT_THAT(ErrorOf([&] { kscope::sparse(hx, 3); }), HasSubstr("sparse_dim"));  // libtorch's text
  EXPECT_EQ(ErrorOf([&] { kscope::sparseindex(hs); }),
            "sparseindex: expects strided tensor, given sparse tensor");
  EXPECT_EQ(ErrorOf([&] { kscope::dense(hx); }),
            "dense: expects sparse tensor, given strided tensor");
  EXPECT_EQ(ErrorOf([&] { kscope::indices(x); }),
            "indices: expects sparse tensor, given strided tensor");
  EXPECT_EQ(ErrorOf([&] { kscope::values(hx); }),
            "values: expects sparse tensor, given strided tensor");
  EXPECT_EQ(ErrorOf([&] { kscope::coalesce(hx); }),
            "coalesce: expects sparse tensor, given strided tensor");
  EXPECT_EQ(live_handles(), 2u);
  EXPECT_TRUE(at::equal(Held(hx), x));
  ExpectSameSparse(Held(hs), x.to_sparse());
}

TEST_F(SparseTest, SparseindexIsTheIndexOfToSparse) {
  auto scope = Scope::Open();
  const at::Tensor x = WithZeros();
  Handle h = tensor(x);
  EXPECT_TRUE(at::equal(kscope::sparseindex(x).tensor(), x.to_sparse().indices()));
  EXPECT_TRUE(at::equal(kscope::sparseindex(x).tensor(), x.nonzero().t()));
  for (std::int64_t d : {1, 2}) {
    EXPECT_TRUE(at::equal(kscope::sparseindex(x, d).tensor(), x.to_sparse(d).indices()));
    EXPECT_TRUE(at::equal(Held(kscope::sparseindex(h, d).handle()), x.to_sparse(d).indices()));
  }
  // 2 sparse dims: the (i,j) whose 2 values are not both zero, i+j even
  EXPECT_EQ(kscope::sparseindex(x, 2).tensor().size(1), 6);
}

TEST_F(SparseTest, DenseIndicesAndValuesMatchLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor x = WithZeros();
  const at::Tensor s = x.to_sparse(2);
  Handle h = tensor(s);
  EXPECT_TRUE(at::equal(kscope::dense(s).tensor(), s.to_dense()));
  Result d = kscope::dense(h);
  EXPECT_TRUE(at::equal(Held(d.handle()), x));
  EXPECT_FALSE(Held(d.handle()).is_sparse());
  EXPECT_TRUE(at::equal(kscope::indices(s).tensor(), s.indices()));
  EXPECT_TRUE(at::equal(Held(kscope::indices(h).handle()), s.indices()));
  EXPECT_TRUE(at::equal(kscope::values(s).tensor(), s.values()));
  EXPECT_TRUE(at::equal(Held(kscope::values(h).handle()), s.values()));
  EXPECT_EQ(obj().back().origin, "values");
}

TEST_F(SparseTest, BytesAndElementsCountIndicesAndValues) {
  auto scope = Scope::Open();
  const at::Tensor s = WithZeros().to_sparse();
  const std::int64_t nnz = s._nnz();
  ASSERT_GT(nnz, 0);
  Handle h = tensor(s);
  // indices: sparse_dim x nnz longs; values: nnz doubles
  EXPECT_EQ(bytes(h), s.sparse_dim() * nnz * 8 + nnz * 8);
  EXPECT_EQ(elements(h), s.sparse_dim() * nnz + nnz);
  EXPECT_EQ(obj().back().bytes, bytes(h));
}

TEST_F(SparseTest, CoalesceReplacesTheHandlesTensorInPlace) {
  auto scope = Scope::Open();
  // (0,1) given twice: 1+2 once coalesced
  const at::Tensor raw = at::sparse_coo_tensor(
      at::tensor({0, 0, 1, 1, 1, 0}, at::kLong).view({2, 3}), at::tensor({1.0, 2.0, 5.0}), {2, 2});
  Handle h = tensor(raw);
  ASSERT_FALSE(Held(h).is_coalesced());
  EXPECT_THAT(ErrorOf([&] { kscope::indices(h); }), HasSubstr("coalesce"));  // libtorch's text
  const std::size_t before = live_handles();
  kscope::coalesce(h);
  EXPECT_EQ(live_handles(), before);  // no new handle: h itself holds the coalesced tensor
  ExpectSameSparse(Held(h), raw.coalesce());
  EXPECT_TRUE(Held(h).is_coalesced());
  EXPECT_TRUE(at::equal(Held(kscope::values(h).handle()), at::tensor({3.0, 5.0})));
  Handle gone = tensor(raw);
  kscope::free(gone);
  EXPECT_THAT(ErrorOf([&] { kscope::coalesce(gone); }), HasSubstr("stale pointer"));
}

}  // namespace complex_sparse_test
}  // namespace kscope
