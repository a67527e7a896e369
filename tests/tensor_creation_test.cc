// api/tensor/tensor_creation.h and the ktorch `tensor` forms of api/tensor/tensor.h: every creation
// mode, its _like and _out forms, every option symbol, copying data into a tensor, selecting
// values, and a vector's or dictionary's elements as new handles; each checked against the same
// libtorch call made directly.
#include <ATen/ops/complex.h>
#include <ATen/ops/logspace.h>
#include <ATen/ops/randint_like.h>
#include <ATen/ops/randn_like.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/range.h>
#include <ATen/ops/sparse_coo_tensor.h>

#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace tensor_creation_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using TensorOptionsTest = LeakCheckTest;
using TensorCreationTest = LeakCheckTest;
using TensorOutTest = LeakCheckTest;
using TensorSelectionTest = LeakCheckTest;

// The tensor a handle holds (not a copy).
at::Tensor Held(Handle h) { return TensorOf("test", h); }

TEST_F(TensorOptionsTest, EveryOptionSymbol) {
  const std::vector<std::pair<const char*, c10::ScalarType>> dtypes = {
      {"float", at::kFloat},         {"double", at::kDouble},
      {"half", at::kHalf},           {"bool", at::kBool},
      {"byte", at::kByte},           {"char", at::kChar},
      {"long", at::kLong},           {"int", at::kInt},
      {"short", at::kShort},         {"chalf", at::kComplexHalf},
      {"cfloat", at::kComplexFloat}, {"cdouble", at::kComplexDouble}};
  for (const auto& [name, type] : dtypes)
    EXPECT_EQ(Options::Parse("tensor", {name}).dtype, type) << name;
  EXPECT_EQ(Options::Parse("tensor", {"cpu"}).device, c10::Device(c10::kCPU));
  EXPECT_EQ(Options::Parse("tensor", {"strided"}).layout, c10::kStrided);
  EXPECT_EQ(Options::Parse("tensor", {"sparse"}).layout, c10::kSparse);
  EXPECT_TRUE(Options::Parse("tensor", {"grad"}).grad);
  EXPECT_FALSE(Options::Parse("tensor", {"grad", "nograd"}).grad);  // the later name wins
  EXPECT_EQ(Options::Parse("tensor", {"pinned"}).pinned, true);
  EXPECT_EQ(Options::Parse("tensor", {"unpinned"}).pinned, false);
  EXPECT_EQ(Options::Parse("tensor", {"contiguous"}).memory, c10::MemoryFormat::Contiguous);
  EXPECT_EQ(Options::Parse("tensor", {"preserve"}).memory, c10::MemoryFormat::Preserve);
  EXPECT_EQ(Options::Parse("tensor", {"channel2d"}).memory, c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(Options::Parse("tensor", {"channel3d"}).memory, c10::MemoryFormat::ChannelsLast3d);
  const Options none;
  EXPECT_FALSE(none.dtype || none.device || none.layout || none.pinned || none.memory || none.grad);
  const at::TensorOptions f =
      Options::Parse("tensor", {"double", "cpu", "sparse", "unpinned"}).factory();
  EXPECT_EQ(f.dtype(), at::kDouble);
  EXPECT_EQ(f.layout(), c10::kSparse);
  EXPECT_FALSE(f.pinned_memory());
  EXPECT_EQ(ErrorOf([] {
              Options::Parse("tensor", {"cpu", "fast"});
            }),
            "unrecognized tensor option: `fast");
  if (!at::hasMPS()) {
    EXPECT_EQ(ErrorOf([] { Options::Parse("tensor", {"mps"}); }),
              "tensor: `mps device not available");
    EXPECT_EQ(ErrorOf([] { Options::Parse("tensor", {"mps:0"}); }),
              "tensor: `mps:0 device not available");
  }
  if (!at::hasCUDA()) {
    EXPECT_EQ(ErrorOf([] { Options::Parse("tensor", {"cuda:1"}); }),
              "tensor: `cuda:1 device not available");
  } else {
    EXPECT_EQ(Options::Parse("tensor", {"cuda:0"}).device, c10::Device(c10::kCUDA, 0));
  }
}

TEST_F(TensorOptionsTest, LayoutMemoryFormatGradAndPinningApply) {
  auto scope = Scope::Open();
  EXPECT_TRUE(Held(zeros({2, 3}, Options::Parse("tensor", {"sparse"}))).is_sparse());
  EXPECT_TRUE(
      Held(tensor(at::eye(2), Options::Parse("tensor", {"sparse"}))).to_dense().equal(at::eye(2)));
  const at::Tensor cl = Held(ones({2, 3, 4, 5}, Options::Parse("tensor", {"channel2d"})));
  EXPECT_TRUE(cl.is_contiguous(c10::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(Held(empty({2, 3, 4, 5, 6}, Options::Parse("tensor", {"channel3d"})))
                  .is_contiguous(c10::MemoryFormat::ChannelsLast3d));
  // preserve keeps an example's strides in a _like form, contiguous does not
  EXPECT_EQ(Held(zeros_like(Operand(cl), Options::Parse("tensor", {"preserve"}))).strides(),
            cl.strides());
  EXPECT_TRUE(
      Held(zeros_like(Operand(cl), Options::Parse("tensor", {"contiguous"}))).is_contiguous());
  EXPECT_TRUE(Held(randn({3}, Options::Parse("tensor", {"double", "grad"}))).requires_grad());
  EXPECT_EQ(Held(zeros({2}, Options::Parse("tensor", {"chalf"}))).scalar_type(), at::kComplexHalf);
  const std::size_t before = live_handles();
  if (at::hasCUDA()) {
    EXPECT_TRUE(Held(zeros({2}, Options::Parse("tensor", {"pinned"}))).is_pinned());
  } else {  // libtorch's own error: pinning needs CUDA; nothing registered
    EXPECT_NE(ErrorOf([] { zeros({2}, Options::Parse("tensor", {"pinned"})); }), "no error");
    EXPECT_EQ(live_handles(), before);
  }
  EXPECT_FALSE(Held(zeros({2}, Options::Parse("tensor", {"unpinned"}))).is_pinned());
  // to keeps to devices and dtypes
  Handle x = zeros({2});
  EXPECT_EQ(ErrorOf([&] { to(x, Options::Parse("to", {"sparse"})); }),
            "to: expects a device and/or a dtype, not a layout, pinning or memory format");
  EXPECT_EQ(ErrorOf([&] { to(x, Options::Parse("to", {"channel2d"})); }),
            "to: expects a device and/or a dtype, not a layout, pinning or memory format");
  EXPECT_FALSE(Held(x).is_sparse());
}

TEST_F(TensorCreationTest, NewModesMatchLibtorch) {
  auto scope = Scope::Open();
  EXPECT_TRUE(Held(logspace(0, 3, 4)).equal(at::logspace(0, 3, 4)));
  EXPECT_TRUE(Held(logspace(0, 3, 4, 2, Options::Parse("tensor", {"double"})))
                  .equal(at::logspace(0, 3, 4, 2, at::kDouble)));
  EXPECT_TRUE(Held(range(1, 4)).equal(at::range(1, 4, 1)));
  EXPECT_TRUE(Held(range(1, 2, .25)).equal(at::range(1, 2, .25)));
  seed(7);
  const at::Tensor perm = Held(randperm(10));
  seed(7);
  EXPECT_TRUE(perm.equal(at::randperm(10)));
  EXPECT_EQ(perm.scalar_type(), at::kLong);
  EXPECT_EQ(Held(randperm(4, Options::Parse("tensor", {"int"}))).scalar_type(), at::kInt);
  const at::Tensor re = at::tensor({1.0f, 2.0f}), im = at::tensor({3.0f, -4.0f});
  Handle real = tensor(re);
  EXPECT_TRUE(Held(complex(real, Operand(im))).equal(at::complex(re, im)));  // handle or data
  const at::Tensor cd =
      Held(complex(Operand(re), Operand(im), Options::Parse("tensor", {"cdouble"})));
  EXPECT_TRUE(cd.equal(at::complex(re.to(at::kDouble), im.to(at::kDouble))));
  const at::Tensor ind = at::tensor({0, 1, 1, 0}, at::kLong).reshape({2, 2}),
                   val = at::tensor({5.0f, 6.0f});
  const at::Tensor sp = Held(sparse_coo(Operand(ind), Operand(val), {3, 3}));
  EXPECT_TRUE(sp.is_sparse());
  EXPECT_TRUE(sp.to_dense().equal(at::sparse_coo_tensor(ind, val, {3, 3}).to_dense()));
  EXPECT_THAT(size(sparse_coo(Operand(ind), Operand(val))).single(), ElementsAre(2, 2));
  EXPECT_EQ(Held(sparse_coo(Operand(ind), Operand(val), {}, Options::Parse("tensor", {"double"})))
                .scalar_type(),
            at::kDouble);
  const std::size_t before = live_handles();
  EXPECT_THAT(ErrorOf([] {
                complex(Operand(at::tensor({1, 2})), Operand(at::tensor({1, 2})));
              }),
              HasSubstr("Float or Double"));  // libtorch's own text
  EXPECT_THAT(ErrorOf([] { randperm(-1); }), HasSubstr("negative dimension"));
  EXPECT_EQ(ErrorOf([] { complex(Handle(), Operand(at::ones(1))); }), "stale pointer");
  EXPECT_EQ(live_handles(), before);
}

TEST_F(TensorCreationTest, LikeFormsMatchLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor ex = at::rand({2, 3}, at::kDouble);
  Handle h = tensor(ex);
  for (const Operand& example : {Operand(h), Operand(ex)}) {  // an example handle, or data
    EXPECT_TRUE(Held(zeros_like(example)).equal(at::zeros_like(ex)));
    EXPECT_TRUE(Held(ones_like(example)).equal(at::ones_like(ex)));
    EXPECT_TRUE(Held(full_like(example, 2.5)).equal(at::full_like(ex, 2.5)));
    EXPECT_THAT(size(empty_like(example)).single(), ElementsAre(2, 3));
    seed(3);
    const at::Tensor r = Held(rand_like(example)), n = Held(randn_like(example)),
                     i = Held(randint_like(example, 2, 9));
    seed(3);
    EXPECT_TRUE(r.equal(at::rand_like(ex)));
    EXPECT_TRUE(n.equal(at::randn_like(ex)));
    EXPECT_TRUE(i.equal(at::randint_like(ex, 2, 9)));
  }
  // options override the example's dtype
  EXPECT_EQ(Held(zeros_like(Operand(h), Options::Parse("tensor", {"float", "grad"}))).scalar_type(),
            at::kFloat);
  EXPECT_EQ(ErrorOf([] { zeros_like(Handle()); }), "stale pointer");
}

TEST_F(TensorOutTest, OutFormsWriteIntoTheHandleAsLibtorchDoes) {
  auto scope = Scope::Open();
  Handle out = zeros({1}, Options::Parse("tensor", {"double"}));
  const std::size_t before = live_handles();
  auto expect = [&](const at::Tensor& want) {
    EXPECT_TRUE(Held(out).equal(want)) << Held(out) << want;
  };
  at::Tensor want = at::empty({0}, at::kDouble);
  auto fresh = [&]() -> at::Tensor& {  // emptied, so that libtorch warns of no resize
    want.resize_({0});
    return want;
  };
  zeros_out(out, {2, 2});
  expect(at::zeros_out(fresh(), {2, 2}));
  ones_out(out, {3});
  expect(at::ones_out(fresh(), {3}));
  full_out(out, {2}, 4.5);
  expect(at::full_out(fresh(), {2}, 4.5));
  empty_out(out, {4, 1});
  EXPECT_THAT(size(out).single(), ElementsAre(4, 1));
  seed(11);
  rand_out(out, {5});
  const at::Tensor r = Held(out).clone();
  randn_out(out, {5});
  const at::Tensor n = Held(out).clone();
  randint_out(out, 1, 6, {5});
  const at::Tensor i = Held(out).clone();
  randperm_out(out, 6);
  const at::Tensor p = Held(out).clone();
  seed(11);
  EXPECT_TRUE(r.equal(at::rand_out(fresh(), {5})));
  EXPECT_TRUE(n.equal(at::randn_out(fresh(), {5})));
  EXPECT_TRUE(i.equal(at::randint_out(fresh(), 1, 6, {5})));
  EXPECT_TRUE(p.equal(at::randperm_out(fresh(), 6)));
  arange_out(out, 1, 7, 2);
  expect(at::arange_out(fresh(), 1, 7, 2));
  range_out(out, 1, 2, .5);
  expect(at::range_out(fresh(), 1, 2, .5));
  linspace_out(out, 0, 1, 5);
  expect(at::linspace_out(fresh(), 0, 1, 5));
  logspace_out(out, 0, 2, 3, 3);
  expect(at::logspace_out(fresh(), 0, 2, 3, 3));
  eye_out(out, 2, 3);
  expect(at::eye_out(fresh(), 2, 3));
  eye_out(out, 2);
  expect(at::eye_out(fresh(), 2));
  EXPECT_EQ(live_handles(), before);  // out forms register nothing
  Handle c = zeros({1}, Options::Parse("tensor", {"cfloat"}));
  complex_out(c, Operand(at::tensor({1.0f})), Operand(at::tensor({2.0f})));
  EXPECT_TRUE(Held(c).equal(at::complex(at::tensor({1.0f}), at::tensor({2.0f}))));
  // A bad argument leaves out as it was.
  const at::Tensor kept = Held(out).clone();
  EXPECT_THAT(ErrorOf([&] { randperm_out(out, -1); }), HasSubstr("non-negative"));
  EXPECT_THAT(
      ErrorOf([&] { complex_out(out, Operand(at::tensor({1.0f})), Operand(at::tensor({2.0f}))); }),
      HasSubstr("Expected object of scalar type"));
  EXPECT_TRUE(Held(out).equal(kept));
  Handle v = vector({Operand(at::ones(1))});
  EXPECT_EQ(ErrorOf([&] { zeros_out(v, {2}); }), "tensor: expected tensor, given vector");
}

TEST_F(TensorOutTest, CopiesDataIntoATensor) {
  auto scope = Scope::Open();
  Handle out = zeros({1}, Options::Parse("tensor", {"double"}));
  const std::int64_t id = static_cast<std::int64_t>(out.id());
  tensor_out(out, at::tensor({1, 2, 3}));  // converted to out's dtype, resized
  EXPECT_EQ(static_cast<std::int64_t>(out.id()), id);
  EXPECT_EQ(values<double>(out), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(dtype(out).single(), "double");
  Handle d = dict({{"a", Operand(at::ones(1))}});
  EXPECT_EQ(ErrorOf([&] { tensor_out(d, at::ones(2)); }),
            "tensor: expected tensor, given dictionary");
  EXPECT_EQ(ErrorOf([&] { tensor_out(Handle(), at::ones(2)); }), "stale pointer");
  EXPECT_EQ(values<double>(out), (std::vector<double>{1, 2, 3}));
}

TEST_F(TensorSelectionTest, SelectsAsLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor t = at::arange(12).reshape({3, 4});
  Handle h = tensor(t);
  EXPECT_TRUE(tensor(h, 0, 1).equal(t.select(0, 1)));
  EXPECT_TRUE(tensor(h, 1, -1).equal(t.select(1, 3)));
  EXPECT_TRUE(
      tensor(h, -1, std::vector<std::int64_t>{3, 0}).equal(t.index_select(1, at::tensor({3, 0}))));
  EXPECT_EQ(ErrorOf([&] { tensor(h, 2, 0); }), "tensor: dimension 2 out of range for a 2-d tensor");
  EXPECT_EQ(ErrorOf([&] { tensor(h, 0, 3); }),
            "tensor: index 3 out of range for dimension 0 of size 3");
  EXPECT_EQ(ErrorOf([&] {
              tensor(h, 1, std::vector<std::int64_t>{0, 4});
            }),
            "tensor: index 4 out of range for dimension 1 of size 4");
  EXPECT_TRUE(Held(h).equal(t));
}

TEST_F(TensorSelectionTest, ElementsAsNewHandlesSharingTheTensors) {
  auto scope = Scope::Open();
  Handle v = vector({Operand(at::ones(2)), Operand(at::zeros(3))});
  const std::vector<Handle> parts = element_handles(v);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(ptr(parts[1]).single(), ptr(v).list()[1]);  // the same tensor, not a copy
  EXPECT_EQ(values<float>(parts[0]), (std::vector<float>{1, 1}));
  EXPECT_EQ(ptr(element_handle(v, 1)).single(), ptr(v).list()[1]);
  Handle d = dict({{"a", Operand(at::ones(1))}, {"b", Operand(at::full({2}, 7.0))}});
  const auto named = named_element_handles(d);
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[1].first, "b");
  EXPECT_EQ(values<double>(named[1].second), (std::vector<double>{7, 7}));
  EXPECT_EQ(values<double>(element_handle(d, "b")), (std::vector<double>{7, 7}));
  const std::size_t before = live_handles();
  EXPECT_EQ(ErrorOf([&] { element_handle(v, 2); }),
            "tensor: vector index 2 out of range for 2 tensor(s)");
  EXPECT_EQ(ErrorOf([&] { element_handle(d, "c"); }), "tensor: no key `c in dictionary");
  EXPECT_EQ(ErrorOf([&] { element_handles(d); }), "tensor: expected vector, given dictionary");
  EXPECT_EQ(ErrorOf([&] { named_element_handles(v); }),
            "tensor: expected dictionary, given vector");
  EXPECT_EQ(live_handles(), before);
}

}  // namespace tensor_creation_test
}  // namespace kscope
