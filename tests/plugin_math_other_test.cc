// The catalogue's other group (D9) through the plugin, as q calls it: each function on k data
// against values worked out by hand, then the same call with a pointer in (a pointer out), into
// a trailing output pointer and in place (`::`) where the function has those forms, each
// giving the same values; errors name the function and change nothing.
#include <string>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_math_other_test {

using ::testing::HasSubstr;

struct Case {
  const char* name;
  const char* first;              // the tensor, a q literal
  std::vector<std::string> rest;  // the other arguments, q literals
  const char* want;               // the k-data result as q shows it
  bool out = false;               // has f(...;out)
  bool in_place = false;          // has f(...;::)
};

class PluginMathOtherTest : public PluginTest {
 protected:
  // c's call with `first` (owned) as its tensor, then its other arguments, then `last` (owned)
  // if given.
  KRef CallWith(const Case& c, kabi::K first, kabi::K last = nullptr) {
    std::vector<kabi::K> items{first};
    for (const std::string& literal : c.rest) items.push_back(Q(literal).release());
    if (last != nullptr) items.push_back(last);
    return Call(c.name, ArgList(items));
  }

  void ExpectEveryForm(const Case& c) {
    EXPECT_EQ(S1(CallWith(c, Q(c.first).release())), c.want) << c.name;
    KRef p = Call("tensor", c.first);
    KRef r = CallWith(c, p.share());
    EXPECT_EQ(S1(Call("tensor", r)), c.want) << c.name << " pointer";
    if (c.out) {
      KRef o = Call("tensor",
                    List({Q("`empty").release(), Q("0").release(), Call("dtype", r).release()}));
      EXPECT_EQ(S1(CallWith(c, p.share(), o.share())), "::") << c.name << " out";
      EXPECT_EQ(S1(Call("tensor", o)), c.want) << c.name << " out";
      Call("free", o);
    }
    if (c.in_place) {
      EXPECT_EQ(S1(CallWith(c, p.share(), kq::Null())), "::") << c.name << " in place";
      EXPECT_EQ(S1(Call("tensor", p)), c.want) << c.name << " in place";
    }
    Call("free", List({p.share(), r.share()}));
  }
};

TEST_F(PluginMathOtherTest, EveryFunctionInEveryForm) {
  const std::vector<Case> cases = {
      {"bincount", "0 1 1 3", {}, "1 2 0 1"},
      {"bincount", "0 1 1 3", {"6"}, "1 2 0 1 0 0"},
      {"bincount", "0 1 1 3", {"0.5 1 2 4e", "5"}, "0.5 3 0 4 0e"},
      {"cumprod", "1 2 3 4", {"0"}, "1 2 6 24", true, true},
      {"cumprod", "(1 2;3 4)", {"1"}, "(1 2;3 12)", true, true},
      {"cumsum", "1 2 3", {"0"}, "1 3 6", true, true},
      {"cumsum", "1 2 3", {"0", "`double"}, "1 3 6f", true},
      {"diag", "1 2", {}, "(1 0;0 2)", true},
      {"diag", "(1 2;3 4)", {"1"}, ",2", true},
      {"diagflat", "(1 2;3 4)", {}, "(1 0 0 0;0 2 0 0;0 0 3 0;0 0 0 4)"},
      {"diagflat", "1 2", {"1"}, "(0 1 0;0 0 2;0 0 0)"},
      {"diagonal", "(1 2;3 4)", {}, "1 4"},
      {"diagonal", "(1 2 3;4 5 6)", {"1"}, "2 6"},
      {"diagonal", "((1 2;3 4);(5 6;7 8))", {"0", "1", "2"}, "(1 4;5 8)"},
      {"Flip", "1 2 3", {"0"}, "3 2 1"},
      {"Flip", "(1 2;3 4)", {"0 1"}, "(4 3;2 1)"},
      {"histc", "1 2 2 3e", {"3"}, "1 2 1e", true},
      {"histc", "1 2 2 3e", {"2", "0", "4"}, "1 3e", true},
      {"renorm", "(3 4f;0.3 0.4)", {"2", "0", "10"}, "(3 4f;0.3 0.4)", false, true},
      {"roll", "1 2 3 4", {"1"}, "4 1 2 3"},
      {"roll", "(1 2;3 4)", {"1", "0"}, "(3 4;1 2)"},
      {"roll", "(1 2;3 4)", {"1 -1", "0 1"}, "(4 3;2 1)"},
      {"tensordot", "(1 2;3 4)", {"(1 0;0 1)", "1"}, "(1 2;3 4)"},
      {"tensordot", "(1 2;3 4)", {"(1 0;0 1)"}, "5"},
      {"tensordot", "(1 2;3 4)", {"(1 2;3 4)", "1 0", "0 1"}, "29"},
      {"trace", "(1 2;3 4)", {}, "5"},
      {"tril", "(1 2;3 4)", {}, "(1 0;3 4)", true, true},
      {"tril", "(1 2 3;4 5 6)", {"-1"}, "(0 0 0;4 0 0)", true, true},
      {"triu", "(1 2;3 4)", {}, "(1 2;0 4)", true, true},
      {"triu", "(1 2 3;4 5 6)", {"1"}, "(0 2 3;0 0 6)", true, true},
  };
  for (const Case& c : cases) ExpectEveryForm(c);
}

TEST_F(PluginMathOtherTest, RenormScalesSlicesAboveMaxnorm) {
  KRef p = Call("tensor", "(3 4e;0.3 0.4e)");
  EXPECT_EQ(S1(Call("renorm", List({p.share(), Q("2").release(), Q("0").release(), Q("1").release(),
                                    kq::Null()}))),
            "::");
  const std::vector<float> v = Reals(Call("tensor", p));
  ASSERT_EQ(v.size(), 4u);
  EXPECT_NEAR(v[0], 0.6, 1e-6);  // row 0 has norm 5: scaled to 1
  EXPECT_NEAR(v[1], 0.8, 1e-6);
  EXPECT_NEAR(v[2], 0.3, 1e-6);  // row 1 has norm 0.5: kept
  EXPECT_NEAR(v[3], 0.4, 1e-6);
  Call("free", p);
}

TEST_F(PluginMathOtherTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  KRef p = Call("tensor", "(1 2;3 4)");
  KRef o = Call("tensor", "1 2");
  EXPECT_THAT(Error("Flip", List({p.share()})), HasSubstr("Flip: arg[1] (long(s)) is required"));
  EXPECT_THAT(Error("tensordot", List({p.share(), p.share(), Q("3").release()})),
              HasSubstr("tensordot: expected a count of dims (at most 2)"));
  EXPECT_THAT(Error("cumsum", List({p.share(), Q("0").release(), Q("`huge").release()})),
              HasSubstr("cumsum: unrecognized dtype `huge"));
  EXPECT_THAT(Error("trace", List({p.share(), kq::Null()})),
              HasSubstr("trace: unrecognized arg(s)"));
  EXPECT_THAT(Error("roll", List({p.share(), Q("1").release(), o.share()})),
              HasSubstr("roll: has no output form"));
  EXPECT_THAT(Error("tril", "((1 2;3 4);::)"),
              HasSubstr("tril: in-place form needs a tensor pointer"));
  EXPECT_THAT(
      Error("renorm", List({p.share(), Q("`p").release(), Q("0").release(), Q("1").release()})),
      HasSubstr("renorm: arg[1] expected number"));
  EXPECT_EQ(S1(Call("tensor", p)), "(1 2;3 4)");
  EXPECT_EQ(S1(Call("tensor", o)), "1 2");
  Call("free", List({p.share(), o.share()}));
}

}  // namespace plugin_math_other_test
}  // namespace kscope::testing
