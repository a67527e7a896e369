// api/tensor/tensor.h, api/tensor/info.h, api/tensor/container.h: creation, values, conversion,
// info, vectors and dictionaries.
#include <ATen/ops/allclose.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/rand.h>
#include <c10/util/Half.h>

#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace tensor_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using TensorTest = LeakCheckTest;
using ContainerTest = LeakCheckTest;

template <typename T>
void ExpectRoundTrip(const std::vector<T>& data, const char* dtype_name) {
  Handle h = tensor(data, {static_cast<std::int64_t>(data.size()), 1});
  EXPECT_EQ(dtype(h).single(), dtype_name);
  EXPECT_THAT(size(h).single(), ElementsAre(static_cast<std::int64_t>(data.size()), 1));
  EXPECT_EQ(values<T>(h), data) << dtype_name;
}

TEST_F(TensorTest, EveryKtorchDtypeFromCppData) {
  auto scope = Scope::Open();
  ExpectRoundTrip<bool>({true, false, true}, "bool");
  ExpectRoundTrip<std::uint8_t>({0, 200, 255}, "byte");
  ExpectRoundTrip<std::int8_t>({-128, 0, 127}, "char");
  ExpectRoundTrip<char>({'a', 'b'}, "char");  // ktorch maps k chars to int8
  ExpectRoundTrip<std::int16_t>({-300, 300}, "short");
  ExpectRoundTrip<std::int32_t>({-70000, 70000}, "int");
  ExpectRoundTrip<std::int64_t>({-(1ll << 40), 1ll << 40}, "long");
  ExpectRoundTrip<c10::Half>({c10::Half(1.5f), c10::Half(-2.0f)}, "half");
  ExpectRoundTrip<float>({1.5f, -2.25f}, "float");
  ExpectRoundTrip<double>({1e-300, 3.0}, "double");
}

TEST_F(TensorTest, ShapesAndOptions) {
  auto scope = Scope::Open();
  Handle m = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_THAT(size(m).single(), ElementsAre(2, 3));
  EXPECT_EQ(ErrorOf([] {
              tensor(std::vector<float>{1, 2, 3}, {2, 2});
            }),
            "tensor: 3 values do not fill shape 2 2");
  Handle d =
      tensor(std::vector<std::int64_t>{1, 2}, {}, Options::Parse("tensor", {"double", "grad"}));
  EXPECT_EQ(dtype(d).single(), "double");
  EXPECT_TRUE(gradflag(d));
  EXPECT_EQ(ErrorOf([] {
              Options::Parse("tensor", {"cpu", "fast"});
            }),
            "unrecognized tensor option: `fast");
  // A gradient on an integer tensor: libtorch's own error.
  EXPECT_THAT(
      ErrorOf([] { tensor(std::vector<std::int64_t>{1}, {}, Options::Parse("tensor", {"grad"})); }),
      HasSubstr("floating point"));
  Handle s = scalar(2.5);
  EXPECT_TRUE(size(s).single().empty());
  EXPECT_EQ(values<double>(s), std::vector<double>{2.5});
}

TEST_F(TensorTest, WrapsCppTensorsWithoutCopying) {
  auto scope = Scope::Open();
  at::Tensor mine = at::rand({4});
  Handle h = tensor(mine);
  EXPECT_EQ(ptr(h).single(), reinterpret_cast<std::intptr_t>(mine.unsafeGetTensorImpl()));
  EXPECT_EQ(ref(h).single(), 2);
  Handle converted = tensor(mine, Options::Parse("tensor", {"double"}));
  EXPECT_NE(ptr(converted).single(), ptr(h).single());
}

TEST_F(TensorTest, CreationModes) {
  auto scope = Scope::Open();
  EXPECT_THAT(size(empty({2, 5})).single(), ElementsAre(2, 5));
  EXPECT_EQ(values<float>(zeros({3})), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(values<float>(ones({2})), (std::vector<float>{1, 1}));
  EXPECT_EQ(values<double>(full({2}, 7.5, Options::Parse("full", {"double"}))),
            (std::vector<double>{7.5, 7.5}));
  EXPECT_EQ(dtype(full({1}, 1)).single(), "long");  // libtorch infers the dtype from the value
  seed(42);
  Handle r1 = rand({100});
  seed(42);
  Handle r2 = rand({100});
  EXPECT_EQ(values<float>(r1), values<float>(r2));  // seed makes draws repeatable
  for (float v : values<float>(r1)) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  Handle n = randn({10000});
  EXPECT_NEAR(values<double>(mean(n))[0], 0.0, 0.05);
  Handle ri = randint(3, 5, {200});
  EXPECT_EQ(dtype(ri).single(), "long");
  for (std::int64_t v : values<std::int64_t>(ri)) {
    EXPECT_GE(v, 3);
    EXPECT_LT(v, 5);
  }
  EXPECT_EQ(values<std::int64_t>(arange(2, 11, 3)), (std::vector<std::int64_t>{2, 5, 8}));
  EXPECT_EQ(values<float>(linspace(0, 1, 5)), (std::vector<float>{0, .25, .5, .75, 1}));
  EXPECT_TRUE(tensor(eye(3, 2)).equal(at::eye(3, 2)));
  EXPECT_TRUE(tensor(eye(2)).equal(at::eye(2)));
  EXPECT_THAT(ErrorOf([] { zeros({-1}); }), HasSubstr("negative"));
  EXPECT_EQ(live_handles(), 14u);  // one handle per creating call
}

TEST_F(TensorTest, ToConvertsInPlaceOnTheHandle) {
  // q)y:tensor 4 5   to(y;`double)  — the handle keeps its id and now holds the new tensor.
  auto scope = Scope::Open();
  Handle y = tensor(std::vector<std::int64_t>{4, 5});
  Handle other = addref(y);
  to(y, Options::Parse("to", {"double"}));
  EXPECT_EQ(dtype(y).single(), "double");
  EXPECT_EQ(dtype(other).single(), "long");  // other handles keep the old object
  Handle v = vector({Operand(at::zeros({1})), Operand(at::zeros({2}, at::kLong))});
  to(v, Options::Parse("to", {"half"}));
  EXPECT_THAT(dtype(v).list(), ElementsAre("half", "half"));
  EXPECT_NE(ErrorOf([&] { to(y, Options::Parse("to", {"cuda:9"})); }), "no error");
  EXPECT_EQ(dtype(y).single(), "double");  // a failed move changes nothing
  EXPECT_EQ(ErrorOf([&] { to(y, Options::Parse("to", {"grad"})); }),
            "to: expects a device and/or a dtype; set gradients with gradflag");
  EXPECT_FALSE(gradflag(other));
}

TEST_F(TensorTest, InfoAsInSeed004) {
  // q)z:mean y:mul(x;x:tensor(1 2 3e;`grad))
  // q)select name:`x`y`z,device,dtype,gradient,gradfn,leaf from info'[(x;y;z)]
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<float>{1, 2, 3}, {}, Options::Parse("tensor", {"grad"}));
  Handle y = mul(x, x);
  Handle z = mean(y);
  TensorInfo ix = info(x), iy = info(y), iz = info(z);
  EXPECT_EQ(ix.device, "cpu");
  EXPECT_EQ(ix.dtype, "float");
  EXPECT_EQ(ix.gradient, "grad");
  EXPECT_EQ(ix.gradfn, "");
  EXPECT_TRUE(ix.leaf);
  EXPECT_EQ(iy.gradfn, "MulBackward0");
  EXPECT_FALSE(iy.leaf);
  EXPECT_EQ(iz.gradfn, "MeanBackward0");
  EXPECT_EQ(iz.dim, 0);
  EXPECT_EQ(ix.layout, "strided");
  EXPECT_THAT(ix.size, ElementsAre(3));
  EXPECT_THAT(ix.stride, ElementsAre(1));
  EXPECT_EQ(ix.bytes, 12);
  EXPECT_EQ(ix.itemsize, 4);
  EXPECT_EQ(ix.ptr, ptr(x).single());
  EXPECT_EQ(ix.ref, ref(x).single());
  Handle v = vector({Operand(at::zeros({1}))});
  EXPECT_EQ(ErrorOf([&] { info(v); }), "info: expected tensor, given vector");
}

TEST_F(ContainerTest, VectorBuildAccessReplace) {
  auto scope = Scope::Open();
  Handle a = tensor(std::vector<std::int64_t>{1, 2});
  Handle v = vector({Operand(a), Operand(at::tensor({3.5}))});
  EXPECT_FALSE(mapped(a));  // consumed
  TensorVector vals = vector(v);
  ASSERT_EQ(vals.size(), 2u);
  EXPECT_EQ(vals[1].item<double>(), 3.5);
  EXPECT_TRUE(vector(v, 0).equal(at::tensor({1, 2}, at::kLong)));
  EXPECT_EQ(ErrorOf([&] { vector(v, 2); }), "vector: index 2 out of range for size 2");
  Handle b = tensor(std::vector<float>{9});
  vector(v, 1, b);
  EXPECT_FALSE(mapped(b));
  EXPECT_EQ(vector(v, 1).item<float>(), 9);
  vector(v, 0, Operand(at::tensor({7}, at::kLong)));
  EXPECT_EQ(vector(v, 0).item<std::int64_t>(), 7);
  EXPECT_EQ(live_handles(), 1u);
  Handle t = zeros({1});
  EXPECT_EQ(ErrorOf([&] { vector(t); }), "vector: expected vector, given tensor");
}

TEST_F(ContainerTest, ConsumingConstructionIsAllOrNothing) {
  // E3(e): vector(a; <bad>; b) and vector(a; a) fail with a and b alive at their old refs.
  auto scope = Scope::Open();
  Handle a = zeros({1});
  Handle b = ones({1});
  Handle v = vector({Operand(at::zeros({1}))});
  EXPECT_EQ(ErrorOf([&] { vector({a, v, b}); }), "vector: expected tensor, given vector");
  EXPECT_EQ(ErrorOf([&] {
              vector({a, a});
            }),
            "vector: the same handle is given twice (element[1]); use addref for a second handle");
  Handle gone = zeros({1});
  kscope::free(gone);
  EXPECT_EQ(ErrorOf([&] { vector({a, gone}); }), "stale pointer");
  EXPECT_EQ(ErrorOf([&] { dict({{"a", a}, {"a", b}}); }), "dict: duplicate key `a");
  for (Handle h : {a, b, v}) {
    EXPECT_TRUE(mapped(h));
    EXPECT_EQ(ref(h).is_single() ? ref(h).single() : 1, 1);
  }
  EXPECT_EQ(live_handles(), 3u);
}

TEST_F(ContainerTest, DictionaryBuildAccessInsert) {
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<double>{1, 2, 3});
  Handle d = dict({{"x", x}, {"y", Operand(testing::Bools({1}))}});
  EXPECT_FALSE(mapped(x));
  TensorDict vals = dict(d);
  EXPECT_EQ(vals.keys(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(dict(d, "x").sum().item<double>(), 6);
  EXPECT_EQ(ErrorOf([&] { dict(d, "z"); }), "dict: no key `z");
  dict(d, "z", Operand(at::zeros({2})));
  dict(d, "x", Operand(at::ones({1})));
  EXPECT_EQ(dict(d).keys(), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(dict(d, "x").item<float>(), 1);
}

}  // namespace tensor_test
}  // namespace kscope
