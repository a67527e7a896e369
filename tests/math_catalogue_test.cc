// api/math/math_catalogue.h: the generic call (argument checking, data/handle results, output and
// in-place forms, errors that change nothing) and the pointwise group D1-D3, each function
// checked against the same libtorch call made directly.
#include <functional>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/tensor.h>

#include "api/core/pointer.h"
#include "api/math/math_catalogue.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/math_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace math_catalogue_test {

using testing::ErrorOf;
using testing::ExpectSameTensor;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using MathCatalogueTest = LeakCheckTest;

// Runs `name` on tensors given as data, as handles, into an output handle and, where the
// function has one, in place; each result is compared with `want`.
void ExpectEveryForm(const std::string& name, const std::vector<at::Tensor>& inputs,
                     const at::Tensor& want) {
  std::vector<math::Arg> data;
  for (const at::Tensor& t : inputs) data.emplace_back(Operand(t.clone()));
  const Result by_data = math::Run(name, data);
  ASSERT_FALSE(by_data.is_handle()) << name;
  ExpectSameTensor(by_data.tensor(), want, name);

  Scope scope = Scope::Open();
  std::vector<math::Arg> handles;
  for (const at::Tensor& t : inputs) handles.emplace_back(Operand(tensor(t.clone())));
  const Result by_handle = math::Run(name, handles);
  ASSERT_TRUE(by_handle.is_handle()) << name;
  ExpectSameTensor(tensor(by_handle.handle()), want, name);

  const Handle out = tensor(at::empty({0}, want.options()));
  EXPECT_TRUE(math::Run(name, handles, out).is_none()) << name;
  ExpectSameTensor(tensor(out), want, name);

  if (math::Find(name)->in_place != nullptr && want.scalar_type() == inputs[0].scalar_type()) {
    const Handle first = std::get<Operand>(handles[0]).handle();
    EXPECT_TRUE(math::Run(name, handles, Handle(), /*in_place=*/true).is_none()) << name;
    ExpectSameTensor(tensor(first), want, name);
  }
}

using Unary = std::function<at::Tensor(const at::Tensor&)>;

TEST_F(MathCatalogueTest, EveryOneInputFunctionMatchesLibtorch) {
  const at::Tensor x = at::tensor({0.1, 0.25, 0.5, 0.9}, at::kFloat);
  const at::Tensor bits = at::tensor({0, 1, 6, -3}, at::kLong);
  const std::vector<std::tuple<const char*, Unary, at::Tensor>> cases = {
      {"Abs", [](auto& t) { return at::abs(t); }, -x},
      {"Acos", [](auto& t) { return at::acos(t); }, x},
      {"angle", [](auto& t) { return at::angle(t); }, -x},
      {"Asin", [](auto& t) { return at::asin(t); }, x},
      {"Atan", [](auto& t) { return at::atan(t); }, x},
      {"bitwisenot", [](auto& t) { return at::bitwise_not(t); }, bits},
      {"ceil", [](auto& t) { return at::ceil(t); }, x * 3},
      {"cosh", [](auto& t) { return at::cosh(t); }, x},
      {"Cos", [](auto& t) { return at::cos(t); }, x},
      {"digamma", [](auto& t) { return at::digamma(t); }, x},
      {"erf", [](auto& t) { return at::erf(t); }, x},
      {"erfc", [](auto& t) { return at::erfc(t); }, x},
      {"erfinv", [](auto& t) { return at::erfinv(t); }, x},
      {"Exp", [](auto& t) { return at::exp(t); }, x},
      {"expm1", [](auto& t) { return at::expm1(t); }, x},
      {"Floor", [](auto& t) { return at::floor(t); }, x * 3},
      {"frac", [](auto& t) { return at::frac(t); }, x * 3},
      {"lgamma", [](auto& t) { return at::lgamma(t); }, x},
      {"Log", [](auto& t) { return at::log(t); }, x},
      {"log10", [](auto& t) { return at::log10(t); }, x},
      {"log1p", [](auto& t) { return at::log1p(t); }, x},
      {"log2", [](auto& t) { return at::log2(t); }, x},
      {"Neg", [](auto& t) { return at::neg(t); }, x},
      {"Not", [](auto& t) { return at::logical_not(t); }, x - 0.25},
      {"Reciprocal", [](auto& t) { return at::reciprocal(t); }, x},
      {"round", [](auto& t) { return at::round(t); }, x * 3},
      {"rsqrt", [](auto& t) { return at::rsqrt(t); }, x},
      {"sgn", [](auto& t) { return at::sgn(t); }, x - 0.3},
      {"sigmoid", [](auto& t) { return at::sigmoid(t); }, x},
      {"sign", [](auto& t) { return at::sign(t); }, x - 0.3},
      {"Sin", [](auto& t) { return at::sin(t); }, x},
      {"sinh", [](auto& t) { return at::sinh(t); }, x},
      {"Sqrt", [](auto& t) { return at::sqrt(t); }, x},
      {"Tan", [](auto& t) { return at::tan(t); }, x},
      {"tanh", [](auto& t) { return at::tanh(t); }, x},
      {"trunc", [](auto& t) { return at::trunc(t); }, x * 3},
  };
  EXPECT_EQ(cases.size(), 36u);  // ktorch's D1
  for (const auto& [name, reference, input] : cases) {
    ExpectEveryForm(name, {input}, reference(input));
  }
}

using Binary = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

TEST_F(MathCatalogueTest, EveryTwoInputFunctionMatchesLibtorch) {
  const at::Tensor x = at::tensor({0.5, 1.5, 2.5, -3.0}, at::kDouble);
  const at::Tensor y = at::tensor({2.0, -1.0, 0.5, 2.0}, at::kDouble);
  const std::vector<std::pair<const char*, Binary>> cases = {
      {"atan2", [](auto& a, auto& b) { return at::atan2(a, b); }},
      {"Div", [](auto& a, auto& b) { return at::div(a, b); }},
      {"fmod", [](auto& a, auto& b) { return at::fmod(a, b); }},
      {"fpow", [](auto& a, auto& b) { return at::float_power(a, b); }},
      {"mul", [](auto& a, auto& b) { return at::mul(a, b); }},
      {"pow", [](auto& a, auto& b) { return at::pow(a, b); }},
      {"remainder", [](auto& a, auto& b) { return at::remainder(a, b); }},
      {"xor", [](auto& a, auto& b) { return at::logical_xor(a, b); }},
      {"add", [](auto& a, auto& b) { return at::add(a, b); }},
      {"sub", [](auto& a, auto& b) { return at::sub(a, b); }},
  };
  for (const auto& [name, reference] : cases) ExpectEveryForm(name, {x, y}, reference(x, y));
}

TEST_F(MathCatalogueTest, NumbersStandForZeroDimTensors) {
  const at::Tensor x = at::tensor({1.0f, 2.0f, 3.0f});
  const Result r = math::Run("pow", {Operand(x), c10::Scalar(2)});
  ExpectSameTensor(r.tensor(), at::pow(x, 2), "pow");  // float stays float
  const Result sum = math::Run("add", {Operand(x), std::int64_t{1}, c10::Scalar(0.5)});
  ExpectSameTensor(sum.tensor(), at::add(x, 1, 0.5), "add with alpha");
}

TEST_F(MathCatalogueTest, OtherPointwiseFunctionsMatchLibtorch) {
  const at::Tensor x = at::tensor({1.0, 2.0, 3.0});
  const at::Tensor y = at::tensor({0.5, -1.0, 4.0});
  const at::Tensor z = at::tensor({2.0, 4.0, -8.0});
  ExpectEveryForm("addcdiv", {x, y, z}, at::addcdiv(x, y, z));
  ExpectEveryForm("addcmul", {x, y, z}, at::addcmul(x, y, z));
  ExpectSameTensor(math::Run("addcmul", {Operand(x), Operand(y), Operand(z), 0.5}).tensor(),
                   at::addcmul(x, y, z, 0.5), "addcmul value");
  ExpectSameTensor(math::Run("clamp", {Operand(x), 1.5, 2.5}).tensor(), at::clamp(x, 1.5, 2.5),
                   "clamp");
  ExpectSameTensor(math::Run("clamp", {Operand(x), std::monostate(), 2.5}).tensor(),
                   at::clamp(x, c10::nullopt, 2.5), "clamp hi only");
  ExpectSameTensor(math::Run("lerp", {Operand(x), Operand(y), 0.25}).tensor(), at::lerp(x, y, 0.25),
                   "lerp");
  ExpectEveryForm("lerp", {x, y, at::tensor({0.0, 0.5, 1.0})},
                  at::lerp(x, y, at::tensor({0.0, 0.5, 1.0})));
  ExpectSameTensor(math::Run("mvlgamma", {Operand(x + 1), std::int64_t{2}}).tensor(),
                   at::mvlgamma(x + 1, 2), "mvlgamma");
}

TEST_F(MathCatalogueTest, HandlesAndDefaultsAsTheReadmeShows) {
  Scope scope = Scope::Open();
  const Handle x = tensor(std::vector<double>{1, 2, 3, 4});
  const Result r = math::Run("clamp", {x, std::monostate(), 3.0});
  EXPECT_TRUE(at::equal(tensor(r.handle()), at::tensor({1.0, 2.0, 3.0, 3.0}, at::kDouble)));
}

TEST_F(MathCatalogueTest, SignaturesParseAndNamesAreUnique) {
  std::set<std::string> names;
  for (const math::Function& f : math::Functions()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_EQ(math::Find(f.name), &f);
    const auto& params = math::Parameters(f);
    bool optional = false;
    for (const math::Parameter& p : params) {
      EXPECT_FALSE(optional && !p.optional)
          << f.name << ": a required parameter after optional ones";
      optional = p.optional;
    }
    if (f.in_place != nullptr) {
      ASSERT_FALSE(params.empty()) << f.name;
      EXPECT_EQ(params[0].kind, 't') << f.name << ": in place writes its first tensor";
    }
  }
  EXPECT_EQ(math::Find("nosuch"), nullptr);
  EXPECT_THAT(ErrorOf([] { math::Run("nosuch", {}); }),
              HasSubstr("math: unknown function `nosuch"));
}

// What the generic kernel gives for `inputs` (in a Call built as math::Run builds one), or
// nullopt if it throws.
std::optional<at::Tensor> ByKernel(const math::Function& f, const std::vector<at::Tensor>& inputs) {
  math::Call call(f.name, math::Parameters(f).size());
  for (std::size_t i = 0; i < inputs.size(); ++i) call.slot(i) = inputs[i];
  try {
    return std::get<at::Tensor>(f.kernel(call));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

TEST_F(MathCatalogueTest, DirectFormsAgreeWithTheirKernels) {
  // Shapes for every kind of product and pointwise function; where the kernel throws on a
  // shape (mm of vectors, bitwisenot of floats), the direct form must throw too.
  at::manual_seed(0);
  const std::vector<at::Tensor> shapes = {at::rand({3}) + 0.1, at::rand({2, 2}) + 0.1,
                                          at::rand({2, 2, 2}) + 0.1, at::arange(1, 4, at::kLong)};
  int unary = 0, binary = 0;
  for (const math::Function& f : math::Functions()) {
    for (const at::Tensor& x : shapes) {
      if (f.unary != nullptr) {
        ++unary;
        const std::optional<at::Tensor> want = ByKernel(f, {x});
        if (want) {
          ExpectSameTensor(f.unary(x), *want, f.name);
        } else {
          EXPECT_ANY_THROW(f.unary(x)) << f.name;
        }
      }
      for (const at::Tensor& y : shapes) {
        if (f.binary == nullptr) break;
        ++binary;
        const std::optional<at::Tensor> want = ByKernel(f, {x, y});
        if (want) {
          ExpectSameTensor(f.binary(x, y), *want, f.name);
        } else {
          EXPECT_ANY_THROW(f.binary(x, y)) << f.name;
        }
      }
    }
  }
  EXPECT_GT(unary, 0);
  EXPECT_GT(binary, 0);
  // Run takes the direct form for exactly one or two tensors, the generic one otherwise (here
  // add's alpha), and both give the same handle-in, handle-out result.
  Scope scope = Scope::Open();
  const Handle a = tensor(std::vector<float>{1, 2, 3});
  const Handle b = tensor(std::vector<float>{4, 5, 6});
  ExpectSameTensor(tensor(math::Run("add", {a, b}).handle()),
                   tensor(math::Run("add", {a, b, std::int64_t{1}}).handle()), "add");
  const Handle gone = tensor(std::vector<float>{7});
  kscope::free(gone);
  EXPECT_EQ(ErrorOf([&] { math::Run("mm", {a, gone}); }), "stale pointer");
}

// What a call gave: its tensor (read from its handle, or its data), else the first line of its
// error (libtorch's messages go on with a backtrace that depends on the caller).
std::variant<at::Tensor, std::string> Outcome(const std::function<Result()>& call) {
  try {
    const Result r = call();
    return r.is_handle() ? tensor(r.handle()) : r.tensor();
  } catch (const std::exception& e) {
    const std::string what = e.what();
    return what.substr(0, what.find('\n'));
  }
}

void ExpectSameOutcome(const std::function<Result()>& got, const std::function<Result()>& want,
                       const std::string& what) {
  const std::variant<at::Tensor, std::string> g = Outcome(got), w = Outcome(want);
  ASSERT_EQ(g.index(), w.index()) << what;
  if (const auto* t = std::get_if<at::Tensor>(&w)) {
    ExpectSameTensor(std::get<at::Tensor>(g), *t, what);
  } else {
    EXPECT_EQ(std::get<std::string>(g), std::get<std::string>(w)) << what;
  }
}

TEST_F(MathCatalogueTest, RunDirectOnHandlesIsRunWithoutTheParse) {
  // The q plugin sends f p and f(p;q) straight to RunDirect: the same call only while a direct
  // form's first one (two) parameters take tensors and no later one is required.
  Scope scope = Scope::Open();
  at::manual_seed(0);
  const Handle x = tensor(at::rand({2, 2}) + 0.1);
  const Handle y = tensor(at::rand({2, 2}) + 0.1);
  const Handle v = vector(std::vector<Operand>{Operand(x)});
  const Handle gone = tensor(std::vector<float>{7});
  kscope::free(gone);
  int unary = 0, binary = 0;
  for (const math::Function& f : math::Functions()) {
    const std::vector<math::Parameter>& params = math::Parameters(f);
    std::size_t required = 0;
    for (const math::Parameter& p : params) required += p.optional ? 0 : 1;
    const auto takes_tensor = [&](std::size_t i) {
      return i < params.size() && (params[i].kind == 't' || params[i].kind == 'n');
    };
    if (f.unary != nullptr) {
      ++unary;
      EXPECT_TRUE(takes_tensor(0) && required <= 1) << f.name;
      for (Handle a : {x, v, gone}) {
        ExpectSameOutcome([&] { return math::RunDirect(f, a); }, [&] { return math::Run(f, {a}); },
                          f.name);
      }
    } else {
      EXPECT_THAT(ErrorOf([&] { math::RunDirect(f, x); }), HasSubstr("has no one-tensor"));
    }
    if (f.binary != nullptr) {
      ++binary;
      // Both required, as the plugin's f(x;y) on two k arrays takes for granted: f(x;y) is
      // never the one-tensor form's matrix there.
      EXPECT_TRUE(takes_tensor(0) && takes_tensor(1) && required == 2 && !params[0].optional &&
                  !params[1].optional)
          << f.name;
      // Pairs, not structured bindings: C++17 lambdas cannot capture those.
      for (const std::pair<Handle, Handle>& ab :
           {std::pair{x, y}, std::pair{x, v}, std::pair{gone, y}}) {
        ExpectSameOutcome([&] { return math::RunDirect(f, ab.first, ab.second); },
                          [&] {
                            return math::Run(f, {ab.first, ab.second});
                          },
                          f.name);
      }
    } else {
      EXPECT_THAT(ErrorOf([&] { math::RunDirect(f, x, y); }), HasSubstr("has no two-tensor"));
    }
  }
  EXPECT_GT(unary, 0);
  EXPECT_GT(binary, 0);
}

TEST_F(MathCatalogueTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  Scope scope = Scope::Open();
  const Handle x = tensor(std::vector<float>{1, 2, 3});
  const std::size_t live = HandleTable::Global().size();
  EXPECT_THAT(ErrorOf([&] { math::Run("Abs", {std::string("x")}); }),
              HasSubstr("Abs: arg[0] expected tensor"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("Abs", {Operand(x), Operand(x)});
              }),
              HasSubstr("Abs: expects at most 1 argument(s), given 2"));
  EXPECT_THAT(ErrorOf([&] { math::Run("add", {Operand(x)}); }),
              HasSubstr("add: arg[1] (tensor or number) is required"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("mvlgamma", {Operand(x), 1.5});
              }),
              HasSubstr("mvlgamma: arg[1] expected long"));
  EXPECT_THAT(ErrorOf([&] { math::Run("angle", {Operand(x)}, Handle(), true); }),
              HasSubstr("angle: has no in-place form"));
  EXPECT_THAT(ErrorOf([&] { math::Run("Abs", {Operand(at::ones({2}))}, Handle(), true); }),
              HasSubstr("Abs: in-place form needs a tensor pointer as first argument"));
  const Handle v = vector(std::vector<Operand>{Operand(at::ones({2}))});
  EXPECT_THAT(ErrorOf([&] { math::Run("Exp", {Operand(v)}); }),
              HasSubstr("Exp: expected tensor, given vector"));
  EXPECT_THAT(ErrorOf([&] { math::Run("Exp", {Operand(x)}, v); }),
              HasSubstr("Exp: expected tensor, given vector"));
  EXPECT_THAT(ErrorOf([&] { math::Run("fft", {Operand(x)}, x); }),
              HasSubstr("fft: result is complex, output tensor is float"));
  EXPECT_EQ(HandleTable::Global().size(), live + 1);  // the vector made above
  EXPECT_TRUE(at::equal(tensor(x), at::tensor({1.0f, 2.0f, 3.0f})));
}

// A function outside the catalogue exercises the generic parts no group entry may use yet:
// tensors given as a list or as one vector handle, several results, a vector as output.
const math::Function kSplit{"split3", "T|l", [](const math::Call& c) -> math::Output {
                              std::vector<at::Tensor> parts;
                              for (const at::Tensor& t : c.tensors(0))
                                parts.push_back(t * c.integer(1, 1));
                              return parts;
                            }};

TEST_F(MathCatalogueTest, SeveralTensorsInSeveralResultsOut) {
  const at::Tensor a = at::arange(3);
  const at::Tensor b = at::arange(2);
  const Result data =
      math::Run(kSplit, {std::vector<Operand>{Operand(a), Operand(b)}, std::int64_t{2}});
  const auto& parts = std::get<TensorVector>(data.value());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(at::equal(parts[1], b * 2));

  Scope scope = Scope::Open();
  const Handle v = vector(std::vector<Operand>{Operand(a.clone()), Operand(b.clone())});
  const Result handle = math::Run(kSplit, {Operand(v)});
  ASSERT_TRUE(handle.is_handle());
  EXPECT_EQ(class_(handle.handle()), ObjectClass::kVector);
  EXPECT_TRUE(at::equal(vector(handle.handle(), 0), a));

  const Handle out = vector(std::vector<Operand>{});
  EXPECT_TRUE(math::Run(kSplit, {Operand(v), std::int64_t{3}}, out).is_none());
  EXPECT_TRUE(at::equal(vector(out, 1), b * 3));
  const Handle t = tensor(at::ones({1}));
  EXPECT_THAT(ErrorOf([&] { math::Run(kSplit, {Operand(v)}, t); }),
              HasSubstr("split3: output for several results must be a vector, given tensor"));
  EXPECT_THAT(ErrorOf([&] { math::Run(kSplit, {Operand(t)}); }),
              HasSubstr("split3: arg[0] expected tensors"));
}

}  // namespace math_catalogue_test
}  // namespace kscope
