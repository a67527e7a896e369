// The reductions D5 through the plugin, as q calls them: every function on k data (k out,
// checked against values worked out by hand), the same call with the tensor a pointer (a
// pointer out: a tensor, or a vector for several results), into a trailing output pointer,
// `::` as a placeholder for an optional argument, the forms the earlier adapters took (std's
// unbiased flag alone, Max's (values;indices)), and bad arguments that name the function and
// change nothing. api/math_catalogue's C++ tests compare each function with libtorch.
#include <string>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_math_reduction_test {

using ::testing::HasSubstr;

using PluginMathReductionTest = PluginTest;

// name, its tensor and the items after it as q text, and q's display of the result from k data.
struct Row {
  const char* name;
  const char* x;
  std::vector<const char*> rest;
  const char* want;
  bool several = false;  // several results: a vector pointer
};

const char* const kM = "(1 5 3;4 2 6)";

const Row kRows[] = {
    {"Any", "010b", {}, "1b"},
    {"Any", "(101b;000b)", {"1"}, "10b"},
    {"All", "111b", {}, "1b"},
    {"All", "(101b;111b)", {"0"}, "101b"},
    {"amax", kM, {}, "6"},
    {"amax", kM, {"1"}, "5 6"},
    {"amin", kM, {"0 1", "1b"}, ",,1"},
    {"aminmax", "3 1 2", {}, "1 3", true},
    {"aminmax", kM, {"1"}, "(1 2;5 6)", true},
    {"argmax", "3 1 2", {}, "0"},
    {"argmax", kM, {"1"}, "1 2"},
    {"argmin", kM, {"0", "1b"}, ",0 1 0"},
    {"Max", "3 1 2", {}, "3"},
    {"Max", kM, {"1"}, "(5 6;1 2)", true},
    {"Min", kM, {"0"}, "(1 2 3;0 1 0)", true},
    {"mean", "1 2 3 4f", {}, "2.5"},
    {"mean", "(1 2f;3 4f)", {"1", "1b"}, "(,1.5;,3.5)"},
    {"mean", kM, {"::", "0b", "`double"}, "3.5"},
    {"nanmean", "1 0n 3f", {}, "2f"},
    {"nanmean", "(1 0n 3f;4 2 0n)", {"1"}, "2 3f"},
    {"median", "3 1 2 5", {}, "2"},
    {"median", kM, {"1"}, "(3 4;2 0)", true},
    {"nanmedian", "1 0n 3 5f", {}, "3f"},
    {"nanmedian", "(1 0n 3f;0n 0n 2f)", {"1"}, "(1 2f;0 2)", true},
    {"mode", "1 2 2 3", {}, "2 2", true},
    {"mode", "(1 2 3;1 4 3)", {"0"}, "(1 2 3;1 0 1)", true},
    {"std", "1 2 3f", {}, "1f"},
    {"std", "2 4 4 4 5 5 7 9f", {"0b"}, "2f"},
    {"std", "(1 2 3f;2 4 6f)", {"1", "1b", "1b"}, "(,1f;,2f)"},
    {"variance", "1 3f", {}, "2f"},
    {"variance", "(1 3f;2 6f)", {"1", "0b"}, "1 4f"},
    {"meanstd", "1 2 3f", {}, "2 1f", true},
    {"meanstd", "(1 2 3f;2 4 6f)", {"1"}, "(2 4f;1 2f)", true},
    {"meanvar", "1 3f", {"0", "0b"}, "2 1f", true},
    {"prod", "1 2 3 4", {}, "24"},
    {"prod", "(1 2;3 4)", {"0"}, "3 8"},
    {"prod", "(1 2;3 4)", {"1", "0b", "`double"}, "2 12f"},
    {"Sum", "1 2 3", {}, "6"},
    {"Sum", kM, {"0"}, "5 7 9"},
    {"Sum", "1 2 3", {"::", "1b"}, ",6"},
    {"Sum", "1 2 3", {"::", "::", "`double"}, "6f"},
    {"nansum", "1 0n 3f", {}, "4f"},
    {"unique", "3 1 1 2", {}, "1 2 3"},
    {"unique", "3 1 1 2", {"::", "1b", "1b", "1b"}, "(1 2 3;2 0 0 1;2 1 1)", true},
    {"unique", "(1 2;1 2;0 5)", {"0"}, "(0 5;1 2)"},
    {"uniquec", "1 1 2 2 1", {}, "1 2 1"},
    {"uniquec", "1 1 2 2 1", {"::", "0b", "1b"}, "(1 2 1;2 2 1)", true},
    {"dist", "1 2f", {"4 6f"}, "5f"},
    {"dist", "1 2f", {"4 6f", "1"}, "7f"},
    {"logsumexp", "(0 0f;1 1f)", {"1"}, "0.6931472 1.693147"},
    {"fnorm", "(3 0f;0 4f)", {}, "5f"},
    {"fnorm", "(3 4f;6 8f)", {"1"}, "5 10f"},
    {"nnorm", "(3 0f;0 4f)", {}, "7f"},
    {"mnorm", "(3 0f;0 4f)", {}, "5f"},
    {"mnorm", "(3 0f;0 4f)", {"1"}, "4f"},
    {"mnorm", "(3 0f;0 4f)", {"`nuc"}, "7f"},
    {"vnorm", "3 4f", {}, "5f"},
    {"vnorm", "3 -4f", {"1"}, "7f"},
    {"vnorm", "(3 4f;6 8f)", {"0w", "1"}, "4 8f"},
};

// (first;rest...;last), or first alone when nothing follows it.
KRef Arg(const KRef& first, const std::vector<const char*>& rest, kabi::K last = nullptr) {
  if (rest.empty() && last == nullptr) return KRef(first.share());
  std::vector<kabi::K> items{first.share()};
  for (const char* item : rest) items.push_back(Q(item).release());
  if (last != nullptr) items.push_back(last);
  return KRef(kq::List(items));
}

TEST_F(PluginMathReductionTest, DataPointerAndOutputFormsAgree) {
  for (const Row& row : kRows) {
    SCOPED_TRACE(std::string(row.name) + " " + row.x);
    const KRef x = Q(row.x);
    EXPECT_EQ(S1(Call(row.name, Arg(x, row.rest))), row.want);

    KRef p = Call("tensor", x);
    KRef r = Call(row.name, Arg(p, row.rest));
    const char* getter = row.several ? "vector" : "tensor";
    EXPECT_EQ(S1(Call(getter, r)), row.want);
    const std::string name = row.name;
    if (name != "unique" && name != "uniquec") {
      // an output of the result's shape and types, zeroed: the call writes the values
      KRef out = Call(getter, Call(row.name, Arg(x, row.rest)));
      Call("zeros", out);
      EXPECT_EQ(S1(Call(row.name, Arg(p, row.rest, out.share()))), "::");
      EXPECT_EQ(S1(Call(getter, out)), row.want);
      Call("free", out);
    }
    Call("free", List({p.share(), r.share()}));
  }
}

TEST_F(PluginMathReductionTest, TheEarlierAdaptersFormsStillWork) {
  EXPECT_EQ(S1(Call("Sum", "1 2 3")), "6");
  EXPECT_EQ(S1(Call("Max", "(3 1 2;0)")), "3 0");
  EXPECT_EQ(S1(Call("mean", "(1 2f;3 4f)")), "2.5");  // a matrix: every element
  EXPECT_EQ(S1(Call("std", "(1 2 3f;1b)")), "1f");
  EXPECT_EQ(S1(Call("variance", "(1 2 3f;0)")), "1f");
  KRef p = Call("tensor", "(1 2f;3 5f)");
  KRef out = Call("tensor", "0 0f");
  EXPECT_EQ(S1(Call("mean", List({p.share(), Q("1").share(), Q("0b").share(), out.share()}))),
            "::");
  EXPECT_EQ(S1(Call("tensor", out)), "1.5 4");
  KRef m = Call("argmax", List({p.share(), Q("0").share(), Q("1b").share()}));
  EXPECT_EQ(S1(Call("tensor", m)), ",1 1");
  Call("free", List({p.share(), out.share(), m.share()}));
}

TEST_F(PluginMathReductionTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  KRef p = Call("tensor", "3 1 2f");
  KRef v = Call("vector", "(1 2;3 4)");
  EXPECT_THAT(Error("std", List({p.share(), Q("`a").share()})),
              HasSubstr("std: unrecognized arg(s)"));
  EXPECT_THAT(Error("logsumexp", p), HasSubstr("logsumexp: arg[1] (long(s)) is required"));
  EXPECT_THAT(Error("mnorm", List({p.share(), Q("`inf").share()})),
              HasSubstr("mnorm: ord expected a number, `fro or `nuc, given `inf"));
  EXPECT_THAT(Error("mean", List({p.share(), Q("0").share(), Q("0b").share(), Q("`huge").share()})),
              HasSubstr("mean: unrecognized dtype `huge"));
  EXPECT_THAT(Error("unique", List({p.share(), v.share()})),
              HasSubstr("unique: has no output form"));
  EXPECT_THAT(Error("Max", List({p.share(), Q("0").share(), p.share()})),
              HasSubstr("Max: output for several results must be a vector, given tensor"));
  EXPECT_THAT(Error("Sum", List({v.share()})), HasSubstr("Sum: expected tensor, given vector"));
  EXPECT_EQ(S1(Call("tensor", p)), "3 1 2f");
  EXPECT_EQ(S1(Call("vector", v)), "(1 2;3 4)");
  Call("free", List({p.share(), v.share()}));
}

}  // namespace plugin_math_reduction_test
}  // namespace kscope::testing
