// The manipulation functions of catalogue group B through the C++ API: to/copyto (api/core/move.h),
// grad/detach/gradflag (api/tensor/autograd.h), reshape_as/expand/in-place transpose, squeeze and
// unsqueeze/cat/stack (api/tensor/shape.h), amend/reset/resize/filldiagonal
// (api/tensor/storage_edit.h). Each result is compared with the same libtorch call made directly;
// each bad argument gives an error naming the function and leaves the handles as they were.
#include <ATen/ATen.h>

#include "api/core/move.h"
#include "api/model/model_object.h"
#include "api/tensor/storage_edit.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace manipulation_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using testing::Linear;
using ::testing::Pair;

using ManipulationTest = LeakCheckTest;

at::Tensor Floats(std::vector<float> v, at::IntArrayRef shape) {
  return at::tensor(v, at::kFloat).reshape(shape);
}
// The live tensor a handle holds (shares its TensorImpl).
at::Tensor Live(Handle h) { return TensorOf("test", h); }
bool Same(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && at::equal(a, b);
}

TEST_F(ManipulationTest, ToByOptionsOrExampleInPlace) {
  auto scope = Scope::Open();
  const at::Tensor x = Floats({1.5, 2.5, -3}, {3});
  Handle t = tensor(x.clone());
  to(t, Options::Parse("to", {"double"}), false);
  EXPECT_TRUE(Same(Live(t), x.to(at::kDouble)));
  to(t, Options::Parse("to", {"cpu", "float"}), true);  // async: non-blocking where possible
  EXPECT_TRUE(Same(Live(t), x));
  Handle example = tensor(at::zeros({1}, at::kLong));
  to(t, example, true);
  EXPECT_TRUE(Same(Live(t), x.to(at::kLong)));
  // a vector, a dictionary, a module and a loss move as a whole
  Handle v = vector({Operand(x.clone()), Operand(at::ones({2}, at::kInt))});
  to(v, Options::Parse("to", {"double"}), false);
  EXPECT_EQ(vector(v)[0].scalar_type(), at::kDouble);
  EXPECT_EQ(vector(v)[1].scalar_type(), at::kDouble);
  Handle d = dict(NamedOperands{{"a", Operand(x.clone())}});
  to(d, example);
  EXPECT_TRUE(Same(dict(d)["a"], x.to(at::kLong)));
  Handle q = Linear(2, 3);
  to(q, Options::Parse("to", {"double"}), false);
  EXPECT_EQ(dtype(parm(q, "weight")).single(), "double");
  Handle l = loss("mse");
  to(l, Options::Parse("to", {"cpu"}), false);
}

TEST_F(ManipulationTest, ToRefusesWhatItCannotMoveAndChangesNothing) {
  auto scope = Scope::Open();
  Handle t = tensor(Floats({1, 2}, {2}));
  Handle v = vector({Operand(at::ones({2}))});
  EXPECT_EQ(ErrorOf([&] {
              to(t, Options::Parse("to", {"double", "grad"}), false);
            }),
            "to: expects a device and/or a dtype; set gradients with gradflag");
  EXPECT_EQ(ErrorOf([&] { to(t, Options::Parse("to", {"sparse"}), false); }),
            "to: expects a device and/or a dtype, not a layout, pinning or memory format");
  EXPECT_EQ(ErrorOf([&] { to(t, v); }), "to: expected tensor, given vector");
  EXPECT_EQ(ErrorOf([&] { to(opt("sgd", Linear(1, 1)), Options::Parse("to", {"double"}), false); }),
            "to: not implemented for optimizers, move the module they optimize");
  EXPECT_EQ(dtype(t).single(), "float");
  EXPECT_EQ(class_(v), ObjectClass::kVector);
}

TEST_F(ManipulationTest, CopytoMakesANewTensorAndLeavesTheSource) {
  auto scope = Scope::Open();
  const at::Tensor x = Floats({1, 2, 3, 4}, {2, 2});
  Handle t = tensor(x.clone());
  Handle c = copyto(t, Options::Parse("copyto", {"double"}));
  EXPECT_TRUE(Same(Live(c), x.to(at::kDouble, false, true)));
  EXPECT_TRUE(Same(Live(t), x));
  Handle same = copyto(t, t, true);  // a copy even when nothing changes
  EXPECT_TRUE(Same(Live(same), x));
  EXPECT_NE(Live(same).data_ptr(), Live(t).data_ptr());
  Handle v = vector({Operand(x)});
  EXPECT_EQ(ErrorOf([&] { copyto(v, Options::Parse("copyto", {"double"})); }),
            "copyto: expected tensor, given vector");
  EXPECT_EQ(ErrorOf([&] { copyto(t, Options::Parse("copyto", {"grad"})); }),
            "copyto: expects a device and/or a dtype; set gradients with gradflag");
  EXPECT_EQ(class_(v), ObjectClass::kVector);
}

TEST_F(ManipulationTest, GradAsDataAndAsAPointerToTheGradientItself) {
  auto scope = Scope::Open();
  Handle x = tensor(at::tensor({1.0, 2.0, 3.0}), Options::Parse("tensor", {"grad"}));
  EXPECT_FALSE(grad(x).defined());
  EXPECT_EQ(ErrorOf([&] { gradtensor(x); }), "grad: no gradient defined");
  at::Tensor direct = at::tensor({1.0, 2.0, 3.0}).requires_grad_();
  (direct * direct).mean().backward();
  backward(kscope::mean(kscope::mul(x, x)));
  EXPECT_TRUE(Same(grad(x), direct.grad()));
  Handle g = gradtensor(x);
  EXPECT_EQ(Live(g).data_ptr(), Live(x).grad().data_ptr());
  zerograd(x);
  EXPECT_TRUE(Same(Live(g), at::zeros({3}, at::kDouble)));  // the same tensor, not a copy
  Handle v = vector({Operand(at::ones({1}))});
  EXPECT_EQ(ErrorOf([&] { grad(v); }), "grad: expected tensor, given vector");
}

TEST_F(ManipulationTest, DetachNewOrInPlaceWholeOrSelected) {
  auto scope = Scope::Open();
  const Options grad_on = Options::Parse("tensor", {"grad"});
  Handle t = tensor(at::tensor({1.f, 2.f}), grad_on);
  Handle n = detach(t);
  EXPECT_FALSE(gradflag(n));
  EXPECT_TRUE(gradflag(t));
  EXPECT_EQ(Live(n).data_ptr(), Live(t).data_ptr());  // as libtorch's detach: shared values
  EXPECT_TRUE(Same(kscope::detach(Floats({1, 2}, {2})).tensor(),
                   Floats({1, 2}, {2})));  // data in, data out
  Handle view = kscope::reshape(t, {2, 1});
  EXPECT_EQ(ErrorOf([&] { detach_(view); }),
            "detach: the tensor is a view, and views can't be detached in place (detach(x) makes a "
            "detached tensor)");
  detach_(t);
  EXPECT_FALSE(gradflag(t));

  auto grad_vector = [&] {
    return vector({Operand(at::ones({1}).requires_grad_()), Operand(at::ones({1}).requires_grad_()),
                   Operand(at::ones({1}).requires_grad_())});
  };
  Handle v = grad_vector();
  EXPECT_EQ(ErrorOf([&] {
              detach_(v, std::vector<std::int64_t>{0, 3});
            }),
            "detach: vector index 3 out of range for 3 tensor(s)");
  EXPECT_EQ(gradflags(v).list(), (std::vector<bool>{true, true, true}));  // nothing changed
  detach_(v, std::vector<std::int64_t>{0, 2});
  EXPECT_EQ(gradflags(v).list(), (std::vector<bool>{false, true, false}));
  detach_(v);
  EXPECT_EQ(gradflags(v).list(), (std::vector<bool>{false, false, false}));

  // A view among the tensors: none is detached.
  Handle base = tensor(Floats({1, 2}, {2}), grad_on);
  Handle with_view =
      vector({Operand(at::ones({1}).requires_grad_()), Operand(kscope::reshape(base, {2, 1}))});
  EXPECT_THAT(ErrorOf([&] { detach_(with_view); }), HasSubstr("detach: vector[1] is a view"));
  EXPECT_THAT(ErrorOf([&] { detach_(with_view, std::vector<std::int64_t>{1}); }),
              HasSubstr("detach: vector[1] is a view"));
  EXPECT_EQ(gradflags(with_view).list(), (std::vector<bool>{true, true}));

  Handle d = dict(NamedOperands{{"a", Operand(at::ones({1}).requires_grad_())},
                                {"b", Operand(at::ones({1}).requires_grad_())}});
  EXPECT_EQ(ErrorOf([&] {
              detach_(d, std::vector<std::string>{"b", "c"});
            }),
            "detach: no key `c in dictionary");
  detach_(d, std::vector<std::string>{"b"});
  EXPECT_THAT(gradflags(d).named(), ElementsAre(Pair("a", true), Pair("b", false)));
  EXPECT_EQ(ErrorOf([&] { detach_(d, std::vector<std::int64_t>{0}); }),
            "detach: expected vector, given dictionary");
  Handle d_view = dict(NamedOperands{{"a", Operand(at::ones({1}).requires_grad_())},
                                     {"v", Operand(kscope::reshape(base, {2, 1}))}});
  EXPECT_THAT(ErrorOf([&] { detach_(d_view); }), HasSubstr("detach: key `v is a view"));
  EXPECT_THAT(gradflags(d_view).named(), ElementsAre(Pair("a", true), Pair("v", true)));
  EXPECT_EQ(ErrorOf([&] { detach_(loss("mse")); }),
            "detach: expected tensor, vector or dictionary, given loss");
}

TEST_F(ManipulationTest, GradflagOnEveryClassAndSelection) {
  auto scope = Scope::Open();
  Handle t = tensor(Floats({1}, {1}));
  EXPECT_FALSE(gradflags(t).single());
  gradflag(t, true);
  EXPECT_TRUE(gradflags(t).single());
  Handle v = vector({Operand(at::ones({1})), Operand(at::ones({1}))});
  gradflag(v, std::vector<std::int64_t>{1}, true);
  EXPECT_EQ(gradflags(v).list(), (std::vector<bool>{false, true}));
  EXPECT_EQ(gradflags(v, std::vector<std::int64_t>{1, 0}).list(), (std::vector<bool>{true, false}));
  gradflag(v, true);
  EXPECT_EQ(gradflags(v).list(), (std::vector<bool>{true, true}));
  Handle d = dict(NamedOperands{{"a", Operand(at::ones({1}))}, {"b", Operand(at::ones({1}))}});
  gradflag(d, std::vector<std::string>{"a"}, true);
  EXPECT_THAT(gradflags(d, std::vector<std::string>{"b", "a"}).named(),
              ElementsAre(Pair("b", false), Pair("a", true)));
  EXPECT_EQ(ErrorOf([&] {
              gradflag(d, std::vector<std::string>{"a", "z"}, false);
            }),
            "gradflag: no key `z in dictionary");
  EXPECT_THAT(gradflags(d).named(), ElementsAre(Pair("a", true), Pair("b", false)));
  Handle q = Linear(2, 1);
  EXPECT_THAT(gradflags(q).named(), ElementsAre(Pair("weight", true), Pair("bias", true)));
  gradflag(q, false);
  EXPECT_THAT(gradflags(q).named(), ElementsAre(Pair("weight", false), Pair("bias", false)));
  Handle m = model({Linear(2, 1), loss("mse"), opt("sgd")});
  gradflag(m, false);
  EXPECT_THAT(gradflags(m).named(), ElementsAre(Pair("weight", false), Pair("bias", false)));
  EXPECT_EQ(ErrorOf([&] { gradflags(loss("mse")); }),
            "gradflag: expected tensor, vector, dictionary, module or model, given loss");
  EXPECT_EQ(ErrorOf([&] { gradflag(opt("sgd"), true); }),
            "gradflag: expected tensor, vector, dictionary, module or model, given optimizer");
}

TEST_F(ManipulationTest, ReshapeAndExpandBySizesOrExample) {
  auto scope = Scope::Open();
  const at::Tensor x = Floats({1, 2, 3, 4, 5, 6}, {6});
  const at::Tensor example = at::zeros({3, 2});
  EXPECT_TRUE(
      Same(kscope::reshape_as(x, example).tensor(), at::reshape(x, {3, 2})));  // data in, data out
  Handle t = tensor(x.clone()), e = tensor(example);
  Handle r = reshape_as(t, e);
  EXPECT_TRUE(Same(Live(r), x.reshape({3, 2})));
  EXPECT_THAT(ErrorOf([&] {
                reshape_as(t, Floats({1, 2, 3, 4}, {4}));
              }),
              HasSubstr("invalid for input of size 6"));
  const at::Tensor row = Floats({1, 2, 3}, {1, 3});
  EXPECT_TRUE(Same(kscope::expand(row, {2, -1}).tensor(), row.expand({2, -1})));
  Handle h = tensor(row);
  EXPECT_TRUE(Same(Live(expand(h, {4, 3})), row.expand({4, 3})));
  EXPECT_TRUE(Same(Live(expand_as(h, tensor(at::zeros({5, 3})))), row.expand({5, 3})));
  EXPECT_THAT(ErrorOf([&] { expand(h, {2, 2}); }), HasSubstr("must match the existing size"));
  // libtorch itself gives an empty tensor sizes [-3, 0] here.
  const std::string negative =
      "expand: size -3 at dimension 0; expects a size >= 0, or -1 to keep the input's size";
  EXPECT_EQ(ErrorOf([&] { kscope::expand(at::zeros({0}), {-3, 0}); }), negative);
  const std::size_t before = HandleTable::Global().size();
  EXPECT_EQ(ErrorOf([&] { expand(tensor(at::zeros({})), {-3, 0}); }), negative);
  EXPECT_EQ(HandleTable::Global().size(), before + 1);  // the input's handle, no result
}

TEST_F(ManipulationTest, InPlaceTransposeSqueezeUnsqueeze) {
  auto scope = Scope::Open();
  const at::Tensor x = Floats({1, 2, 3, 4, 5, 6}, {1, 2, 3});
  Handle t = tensor(x.clone());
  Handle other = addref(t);
  transpose_(t, 1, 2);
  EXPECT_TRUE(Same(Live(other), x.transpose(1, 2)));  // the tensor itself changed
  squeeze_(t);
  EXPECT_TRUE(Same(Live(t), x.transpose(1, 2).squeeze()));
  unsqueeze_(t, 0);
  EXPECT_TRUE(Same(Live(t), x.transpose(1, 2).squeeze().unsqueeze(0)));
  squeeze_(t, 0);
  EXPECT_TRUE(Same(Live(t), x.transpose(1, 2).squeeze()));
  EXPECT_THAT(ErrorOf([&] { transpose_(t, 0, 5); }), HasSubstr("Dimension out of range"));
  EXPECT_THAT(ErrorOf([&] { unsqueeze_(t, 7); }), HasSubstr("Dimension out of range"));
  EXPECT_TRUE(Same(Live(t), x.transpose(1, 2).squeeze()));
  EXPECT_EQ(ErrorOf([&] { squeeze_(vector({Operand(x)})); }),
            "squeeze: expected tensor, given vector");
}

TEST_F(ManipulationTest, CatAndStackOfAVectorAndIntoAnOutput) {
  auto scope = Scope::Open();
  const at::Tensor a = Floats({1, 2}, {1, 2}), b = Floats({3, 4}, {1, 2});
  Handle v = vector({Operand(a), Operand(b)});
  EXPECT_TRUE(Same(Live(cat({Operand(v)}, 1)), at::cat({a, b}, 1)));
  EXPECT_TRUE(Same(Live(stack({Operand(v)})), at::stack({a, b})));
  Handle out = tensor(at::zeros({1}));
  EXPECT_TRUE(cat({Operand(a), Operand(b)}, 0, out).is_none());
  EXPECT_TRUE(Same(Live(out), at::cat({a, b})));
  EXPECT_TRUE(stack({Operand(v)}, 2, out).is_none());
  EXPECT_TRUE(Same(Live(out), at::stack({a, b}, 2)));
  EXPECT_TRUE(
      Same(cat({Operand(a), Operand(b)}, 1).tensor(), at::cat({a, b}, 1)));  // data in, data out
  EXPECT_THAT(ErrorOf([&] {
                cat({Operand(a), Operand(b)}, 0, v);
              }),
              HasSubstr("cat: expected tensor, given vector"));
}

TEST_F(ManipulationTest, AmendCopiesIntoExistingStorageWithoutGrad) {
  auto scope = Scope::Open();
  Handle t = tensor(at::zeros({2, 2}), Options::Parse("tensor", {"grad"}));
  const void* storage = Live(t).data_ptr();
  amend(t, Floats({1, 2}, {2}));  // broadcast, as copy_
  at::Tensor direct = at::zeros({2, 2});
  direct.copy_(Floats({1, 2}, {2}));
  EXPECT_TRUE(Same(Live(t), direct));
  EXPECT_EQ(Live(t).data_ptr(), storage);
  EXPECT_TRUE(Live(t).is_leaf());  // no graph recorded
  amend(t, tensor(at::ones({2, 2}, at::kLong)), true);
  EXPECT_TRUE(Same(Live(t), at::ones({2, 2})));
  EXPECT_EQ(ErrorOf([&] {
              amend(t, Floats({1, 2, 3}, {3}));
            }),
            "amend: values of size 3 do not fit a tensor of size 2 2");

  Handle v = vector({Operand(at::zeros({2})), Operand(at::zeros({3}))});
  amend(v, std::vector<std::int64_t>{1, 0},
        std::vector<Operand>{Operand(Floats({7, 8, 9}, {3})), Operand(5.0)});
  EXPECT_TRUE(Same(vector(v)[0], at::full({2}, 5.0)));
  EXPECT_TRUE(Same(vector(v)[1], Floats({7, 8, 9}, {3})));
  EXPECT_EQ(ErrorOf([&] {
              amend(v, std::vector<std::int64_t>{0, 1},
                    std::vector<Operand>{Operand(1.0), Operand(Floats({1, 2}, {2}))});
            }),
            "amend: values of size 2 do not fit a tensor of size 3");
  EXPECT_TRUE(Same(vector(v)[0], at::full({2}, 5.0)));  // checked before any copy
  EXPECT_EQ(
      ErrorOf([&] { amend(v, std::vector<std::int64_t>{2}, std::vector<Operand>{Operand(1.0)}); }),
      "amend: vector index 2 out of range for 2 tensor(s)");
  EXPECT_EQ(ErrorOf([&] {
              amend(v, std::vector<std::int64_t>{0, 1}, std::vector<Operand>{Operand(1.0)});
            }),
            "amend: 2 indices given with 1 values");
  amend(v, std::vector<std::int64_t>{}, std::vector<Operand>{});  // no index: nothing amended
  EXPECT_TRUE(Same(vector(v)[0], at::full({2}, 5.0)));

  Handle d = dict(NamedOperands{{"a", Operand(at::zeros({2}))}});
  amend(d, std::vector<std::string>{"a"}, std::vector<Operand>{Operand(Floats({3, 4}, {2}))}, true);
  EXPECT_TRUE(Same(dict(d)["a"], Floats({3, 4}, {2})));
  EXPECT_EQ(
      ErrorOf([&] { amend(d, std::vector<std::string>{"b"}, std::vector<Operand>{Operand(1.0)}); }),
      "amend: no key `b in dictionary");
  amend(d, std::vector<std::string>{}, std::vector<Operand>{});
  EXPECT_TRUE(Same(dict(d)["a"], Floats({3, 4}, {2})));
}

TEST_F(ManipulationTest, ResetRepointsATensorAtItsOwnStorage) {
  auto scope = Scope::Open();
  const at::Tensor x = Floats({0, 1, 2, 3, 4, 5, 6, 7, 8}, {3, 3});
  Handle t = tensor(x.clone());
  at::Tensor direct = x.clone();
  reset(t, 1, Shape{2, 2}, Shape{3, 1});
  direct.set_(direct.storage(), 1, {2, 2}, {3, 1});
  EXPECT_TRUE(Same(Live(t), direct));
  reset(t, 4, Shape{2, 2});  // contiguous strides
  EXPECT_TRUE(Same(Live(t), Floats({4, 5, 6, 7}, {2, 2})));
  reset(t, 6);  // the rest of the storage
  EXPECT_TRUE(Same(Live(t), Floats({6, 7, 8}, {3})));
  EXPECT_EQ(ErrorOf([&] {
              reset(t, 4, Shape{2, 3});
            }),
            "reset: offset 4 with sizes 2 3 and strides 3 1 reaches element 9 of a storage of 9 "
            "elements");
  EXPECT_EQ(ErrorOf([&] { reset(t, 10); }),
            "reset: offset 10 out of range for a storage of 9 elements");
  EXPECT_EQ(ErrorOf([&] {
              reset(t, 0, Shape{2}, Shape{1, 1});
            }),
            "reset: 1 sizes given with 2 strides");
  EXPECT_EQ(ErrorOf([&] { reset(t, 0, Shape{2}, Shape{-1}); }),
            "reset: sizes and strides must not be negative, given sizes 2 and strides -1");
  EXPECT_TRUE(Same(Live(t), Floats({6, 7, 8}, {3})));  // unchanged by the refusals
  Handle g = tensor(x.clone(), Options::Parse("tensor", {"grad"}));
  reset(g, 0, Shape{9});
  EXPECT_TRUE(Same(Live(g), x.reshape({9})));
}

TEST_F(ManipulationTest, ResizeInPlaceOrACopyOfData) {
  auto scope = Scope::Open();
  const at::Tensor x = Floats({1, 2, 3, 4, 5, 6}, {6});
  Handle t = tensor(x.clone());
  EXPECT_TRUE(resize(t, {2, 2}).is_none());
  EXPECT_TRUE(Same(Live(t), x.clone().resize_({2, 2})));
  EXPECT_TRUE(Same(kscope::resize(x, {3, 2}).tensor(), x.clone().resize_({3, 2})));
  EXPECT_TRUE(Same(x, Floats({1, 2, 3, 4, 5, 6}, {6})));  // data is copied
  Handle g = tensor(x.clone(), Options::Parse("tensor", {"grad"}));
  EXPECT_THAT(ErrorOf([&] {
                resize(g, {2, 3});
              }),
              HasSubstr("cannot resize variables that require grad"));
  EXPECT_THAT(size(g).single(), ElementsAre(6));
}

TEST_F(ManipulationTest, FilldiagonalInPlaceOrACopyOfData) {
  auto scope = Scope::Open();
  const at::Tensor x = at::zeros({5, 2});
  Handle t = tensor(x.clone(), Options::Parse("tensor", {"grad"}));
  EXPECT_TRUE(filldiagonal(t, 3.0, true).is_none());
  EXPECT_TRUE(Same(Live(t), x.clone().fill_diagonal_(3.0, true)));
  EXPECT_TRUE(Live(t).is_leaf());
  EXPECT_TRUE(Same(kscope::filldiagonal(x, 2.0).tensor(), x.clone().fill_diagonal_(2.0)));
  EXPECT_TRUE(Same(x, at::zeros({5, 2})));
  Handle cube = tensor(at::zeros({2, 3, 2}));
  EXPECT_THAT(ErrorOf([&] { filldiagonal(cube, 1.0); }), HasSubstr("equal length"));
  EXPECT_TRUE(Same(Live(cube), at::zeros({2, 3, 2})));
}

}  // namespace manipulation_test
}  // namespace kscope
