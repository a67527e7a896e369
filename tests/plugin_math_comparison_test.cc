// The comparison group D4 through the plugin, as q calls it: every function on k data (k out,
// checked against values worked out by hand), the same call with the first tensor a pointer
// (a pointer out, or a k boolean for allclose/equal), into a trailing output pointer (a
// tensor, or a vector for (values;indices)), `::` in place for eq ge gt le lt ne, `::` as a
// placeholder, and bad arguments that name the function and change nothing. api/math_catalogue's
// C++ tests compare each function with libtorch.
#include <string>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_math_comparison_test {

using ::testing::HasSubstr;

using PluginMathComparisonTest = PluginTest;

// name, its argument as q text, and q's display of the result from k data.
struct Row {
  const char* name;
  const char* arg;
  const char* want;
  bool several = false;  // (values;indices): a vector pointer
  bool one = false;      // the argument is one tensor (a matrix)
};

const Row kRows[] = {
    {"allclose", "(1 2f;1 2f)", "1b"},
    {"allclose", "(1 2f;1.1 2f)", "0b"},
    {"allclose", "(1 2f;1.1 2f;0.1)", "1b"},
    {"allclose", "(1 0n;1 0n;::;::;1b)", "1b"},
    {"close", "(1 2f;1 2.5f)", "10b"},
    {"close", "(1 2f;1.1 2.5f;0;0.2)", "10b"},
    {"equal", "(1 2;1 2)", "1b"},
    {"equal", "(1 2;1 3)", "0b"},
    {"eq", "(1 2 3;2)", "010b"},
    {"ge", "(1 2 3;2 2 2)", "011b"},
    {"gt", "(1 2 3;2)", "001b"},
    {"le", "(1 2 3;2)", "110b"},
    {"lt", "(1 2 3f;2.5)", "110b"},
    {"ne", "(1 2 3;2)", "101b"},
    {"finite", "1 0w -0w 0n", "1000b"},
    {"inf", "1 0w -0w 0n", "0110b"},
    {"nan", "1 0w -0w 0n", "0001b"},
    {"neginf", "1 0w -0w 0n", "0010b"},
    {"posinf", "1 0w -0w 0n", "0100b"},
    {"fmax", "(1 0n 3f;2 2 0n)", "2 2 3f"},
    {"fmin", "(1 0n 3f;2 2 0n)", "1 2 3f"},
    {"maximum", "(1 5;3 2)", "3 5"},
    {"minimum", "(1 5;3 2)", "1 2"},
    {"sort", "3 1 2", "(1 2 3;1 2 0)", true},
    {"sort", "(3 1 2;0;1b)", "(3 2 1;0 2 1)", true},
    {"sort", "(3 1 3 1;::;::;1b)", "(1 1 3 3;1 3 0 2)", true},
    {"msort", "(3 1;0 2)", "(0 1;3 2)", false, true},
    {"argsort", "3 1 2", "1 2 0"},
    {"argsort", "((3 1 2;0 5 4);1;1b)", "(0 2 1;1 2 0)"},
    {"topk", "(3 1 2;2)", "(3 2;0 2)", true},
    {"topk", "(3 1 2;2;0;0b)", "(1 2;1 2)", true},
    {"kthvalue", "(3 1 2;2)", "2 2", true},
    {"kthvalue", "((3 1 2;0 5 4);1;1;1b)", "((,1;,0);(,1;,0))", true},
    {"In", "(1 2 3;2 3)", "011b"},
    {"In", "(1 2 3;2 3;0b;1b)", "100b"},
    {"In", "(2;2 3)", "1b"},
};

// The items of a row's argument (new references): the one tensor, or the list's items.
std::vector<kabi::K> Items(const KRef& arg, bool one) {
  if (one || arg->t != 0) return {arg.share()};
  std::vector<kabi::K> items;
  for (long long j = 0; j < arg->n; ++j) items.push_back(kabi::r1(kabi::Items(arg.get())[j]));
  return items;
}
// The argument with its first item a pointer `p`, and optionally one more item (owned).
KRef WithPointer(const KRef& arg, bool one, const KRef& p, kabi::K last = nullptr) {
  std::vector<kabi::K> items = Items(arg, one);
  kabi::r0(items[0]);
  items[0] = p.share();
  if (last != nullptr) items.push_back(last);
  return items.size() == 1 ? KRef(items[0]) : KRef(kq::List(items));
}
// The first tensor of the argument.
KRef First(const KRef& arg, bool one) {
  std::vector<kabi::K> items = Items(arg, one);
  for (std::size_t j = 1; j < items.size(); ++j) kabi::r0(items[j]);
  return KRef(items[0]);
}

TEST_F(PluginMathComparisonTest, DataPointerAndOutputFormsAgree) {
  for (const Row& row : kRows) {
    SCOPED_TRACE(std::string(row.name) + " " + row.arg);
    const KRef arg = Q(row.arg);
    EXPECT_EQ(S1(Call(row.name, arg)), row.want);
    const KRef first = First(arg, row.one);
    if (first->t < 0) continue;  // a number: no pointer form

    KRef p = Call("tensor", first);
    KRef r = Call(row.name, WithPointer(arg, row.one, p));
    const std::string name = row.name;
    const char* getter = row.several ? "vector" : "tensor";
    if (name == "allclose" || name == "equal") {
      EXPECT_EQ(S1(r), row.want);  // a k boolean whatever the inputs
      Call("free", p);
      continue;
    }
    EXPECT_EQ(S1(Call(getter, r)), row.want);
    Call("free", r);
    if (name != "argsort") {
      // an output of the result's shape and types, zeroed: the call writes the values
      KRef out = Call(getter, Call(row.name, arg));
      Call("zeros", out);
      EXPECT_EQ(S1(Call(row.name, WithPointer(arg, row.one, p, out.share()))), "::");
      EXPECT_EQ(S1(Call(getter, out)), row.want);
      Call("free", out);
    }
    Call("free", p);
  }
}

TEST_F(PluginMathComparisonTest, ComparisonsInPlaceWriteZerosAndOnesInXsType) {
  const char* rows[][2] = {{"eq", "0 1 0f"}, {"ge", "0 1 1f"}, {"gt", "0 0 1f"},
                           {"le", "1 1 0f"}, {"lt", "1 0 0f"}, {"ne", "1 0 1f"}};
  for (const auto& [name, want] : rows) {
    KRef p = Call("tensor", "1 2 3f");
    EXPECT_EQ(S1(Call(name, List({p.share(), Q("2f").share(), kq::Null()}))), "::") << name;
    EXPECT_EQ(S1(Call("tensor", p)), want) << name;
    Call("free", p);
  }
}

TEST_F(PluginMathComparisonTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  KRef p = Call("tensor", "3 1 2");
  KRef v = Call("vector", "(1 2;3 4)");
  EXPECT_THAT(Error("equal", List({p.share()})), HasSubstr("equal: arg[1] (tensor) is required"));
  EXPECT_THAT(Error("topk", List({p.share(), Q("1.5").share()})),
              HasSubstr("topk: arg[1] expected long"));
  EXPECT_THAT(Error("maximum", List({p.share(), p.share(), kq::Null()})),
              HasSubstr("maximum: unrecognized arg(s)"));
  EXPECT_THAT(Error("argsort", List({p.share(), v.share()})),
              HasSubstr("argsort: has no output form"));
  EXPECT_THAT(Error("sort", List({p.share(), p.share()})),
              HasSubstr("sort: output for several results must be a vector, given tensor"));
  EXPECT_THAT(Error("eq", List({v.share(), p.share()})),
              HasSubstr("eq: expected tensor, given vector"));
  EXPECT_THAT(Error("sort", List({p.share(), Q("`x").share()})),
              HasSubstr("sort: unrecognized arg(s)"));
  EXPECT_EQ(S1(Call("tensor", p)), "3 1 2");
  EXPECT_EQ(S1(Call("vector", v)), "(1 2;3 4)");
  Call("free", List({p.share(), v.share()}));
}

}  // namespace plugin_math_comparison_test
}  // namespace kscope::testing
