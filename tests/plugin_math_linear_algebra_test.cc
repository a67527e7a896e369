// The linear algebra group D6 through the plugin, as q calls it: every function on k data (k
// out, checked against values worked out by hand where they are unique; signs of eigenvectors,
// Q and U, V are LAPACK's choice), the same call with its tensors pointers (a pointer out: a
// tensor, or a vector for several results), into a trailing output pointer, `::` in place for
// the add-products, `::` placeholders for optional arguments, and bad arguments that name the
// function and change nothing. tests/math_linear_algebra_test.cc compares each with libtorch.
#include <regex>
#include <string>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_math_linear_algebra_test {

using ::testing::HasSubstr;

// The items of a general list, each a new reference.
std::vector<kabi::K> Items(const KRef& list) {
  std::vector<kabi::K> items;
  for (long long j = 0; j < list->n; ++j) items.push_back(kabi::r1(kabi::Items(list.get())[j]));
  return items;
}

// name, its argument as q text, how many leading items are tensors (0: the whole argument is
// the one tensor), q's display of the result from k data (nullptr: not checked by value).
struct Row {
  const char* name;
  const char* arg;
  int tensors;
  const char* want;
  bool several = false;  // a vector pointer from pointers
  bool complex = false;  // complex result: no real output tensor to write into
};

// A = (4 2;2 3): det 8, eigenvalues (7 -/+ sqrt 17)%2; B = (4 2;2 2) = L·Lᵀ with L = (2 0;1 1).
const Row kRows[] = {
    {"det", "(4 2f;2 3f)", 0, "8f"},
    {"logdet", "(4 2f;2 3f)", 0, "2.079442"},
    {"slogdet", "(4 2f;2 3f)", 0, "1 2.079442", true},
    {"mrank", "(4 2f;2 3f)", 0, "2"},
    {"mrank", "((1 2f;2 4f);::;::;1b)", 1, "1"},
    {"mrank", "((1 2f;2 4.1f);0.5)", 1, "1"},
    {"chol", "(4 2f;2 2f)", 0, "(2 0f;1 1f)"},
    {"chol", "((4 2f;2 2f);1b)", 1, "(2 1f;0 1f)"},
    {"cholx", "((4 2f;2 2f);0b;1b)", 1, "((2 0f;1 1f);0i)", true},
    {"eig", "(2 0f;0 3f)", 0, nullptr, true, true},
    {"eigvals", "(2 0f;0 3f)", 0, nullptr, false, true},
    {"eigh", "(4 2f;2 3f)", 0, nullptr, true},
    {"eigvalsh", "(4 2f;2 3f)", 0, "1.438447 5.561553"},
    {"eigvalsh", "((4 2f;0 3f);1b)", 1, "1.438447 5.561553"},
    {"qr", "(3 0f;4 5f)", 0, nullptr, true},
    {"qr", "((3 0f;4 5f;0 0f);`complete)", 1, nullptr, true},
    {"lu", "(4 2f;2 3f)", 0, "((4 2f;0.5 2);1 2i)", true},
    {"lu", "((2 3f;4 2f);1b)", 1, "((4 2f;0.5 2);2 2i)", true},
    {"lux", "(4 2f;2 3f)", 0, "((4 2f;0.5 2);1 2i;0i)", true},
    {"lun", "((4 2f;0.5 2f);1 2i)", 2, "((1 0f;0 1f);(1 0f;0.5 1);(4 2f;0 2f))", true},
    {"svd", "((3 0f;0 -2f);0b)", 1, nullptr, true},
    {"svdvals", "(3 0f;0 -2f)", 0, "3 2f"},
    {"solve", "((4 2f;2 3f);8 7f)", 2, "1.25 1.5"},
    {"solve", "((4 2f;2 3f);(4 2f;2 3f);0b)", 2, "(1 0f;0 1f)"},
    {"trisolve", "((2 1f;0 4f);(4 2f;8 4f);1b)", 2, "(1 0.5;2 1f)"},
    {"cholsolve", "((4 2f;2 2f);(2 0f;1 1f))", 2, "(1 0f;0 1f)"},
    {"lstsq", "((1 0f;0 1f;1 1f);(1 1f;1 1f;2 2f))", 2, nullptr, true},
    {"lusolve", "((4 2f;2 3f);(4 2f;0.5 2f);1 2i)", 3, "(1 0f;0 1f)"},
    {"inverse", "(4 2f;2 2f)", 0, "(0.5 -0.5;-0.5 1)"},
    {"pinverse", "(2 0f;0 0f)", 0, "(0.5 0;0 0f)"},
    {"cholinverse", "(2 0f;1 1f)", 0, "(0.5 -0.5;-0.5 1)"},
    {"cholinverse", "((2 1f;0 1f);1b)", 1, "(0.5 -0.5;-0.5 1)"},
    {"power", "((1 1f;0 1f);3)", 1, "(1 3f;0 1f)"},
    {"bmm", "(((1 2f;3 4f);(5 6f;7 8f));((1 0f;0 1f);(0 1f;1 0f)))", 2,
     "((1 2f;3 4f);(6 5f;8 7f))"},
    {"Cross", "(1 0 0f;0 1 0f)", 2, "0 0 1f"},
    {"Cross", "((1 0f;0 1f;0 0f);(0 0f;1 0f;0 1f);0)", 2, "(0 1f;0 0f;1 0f)"},
    {"dot", "(1 2 3f;4 5 6f)", 2, "32f"},
    {"householder", "((1 2f;3 4f;5 6f);0 0f)", 2, "(1 0f;0 1f;0 0f)"},
    {"matmul", "((1 2f;3 4f);5 6f)", 2, "17 39f"},
    {"mm", "((1 2f;3 4f);(1 0f;1 1f))", 2, "(3 2f;7 4f)"},
    {"mmt", "((1 2f;3 4f);(1 1f;0 1f))", 2, "(3 2f;7 4f)"},
    {"mtm", "((1 2f;3 4f);(1 0f;0 1f))", 2, "(1 3f;2 4f)"},
    {"mv", "((1 2f;3 4f);1 1f)", 2, "3 7f"},
    {"outer", "(1 2f;3 4f)", 2, "(3 4f;6 8f)"},
    {"addbmm", "((1 1f;1 1f);((1 2f;3 4f);(5 6f;7 8f));((1 0f;0 1f);(0 1f;1 0f)))", 3,
     "(8 8f;12 12f)"},
    {"addmm", "((1 1f;1 1f);(1 2f;3 4f);(1 0f;1 1f);2;3)", 3, "(11 8f;23 14f)"},
    {"addmv", "(1 1f;(1 2f;3 4f);1 1f)", 3, "4 8f"},
    {"addmv", "(1 1f;(1 2f;3 4f);1 1f;::;2)", 3, "7 15f"},
    {"addr", "((0 0f;0 0f);1 2f;3 4f)", 3, "(3 4f;6 8f)"},
    {"baddbmm", "(((1 2f;3 4f);(5 6f;7 8f));((1 2f;3 4f);(5 6f;7 8f));((1 0f;0 1f);(0 1f;1 0f)))",
     3, "((2 4f;6 8f);(11 11f;15 15f))"},
};

class PluginMathLinearAlgebraTest : public PluginTest {
 protected:
  // The row's argument with its tensors pointers (made here, collected in `pointers`).
  KRef WithPointers(const Row& row, const KRef& arg, std::vector<KRef>* pointers) {
    if (row.tensors == 0) {
      pointers->push_back(Call("tensor", arg));
      return KRef(pointers->back().share());
    }
    std::vector<kabi::K> items = Items(arg);
    for (int i = 0; i < row.tensors; ++i) {
      const KRef item(items[i]);
      pointers->push_back(Call("tensor", item));
      items[i] = pointers->back().share();
    }
    return KRef(kq::List(items));
  }
};

// k text with each negative zero (-0f, -0) written as 0: libtorch versions differ in the sign
// of an exact zero (householder gives -0 on 2.x), and -0 equals 0.
std::string WithUnsignedZeros(const std::string& text) {
  return std::regex_replace(text, std::regex("-0(?=[^.0-9]|$)"), "0");
}

TEST_F(PluginMathLinearAlgebraTest, DataPointerAndOutputFormsAgree) {
  for (const Row& row : kRows) {
    SCOPED_TRACE(std::string(row.name) + " " + row.arg);
    const KRef arg = Q(row.arg);
    const std::string by_data = S1(Call(row.name, arg));
    if (row.want != nullptr) {
      EXPECT_EQ(WithUnsignedZeros(by_data), row.want);
    }

    std::vector<KRef> pointers;
    const KRef with_pointers = WithPointers(row, arg, &pointers);
    const char* getter = row.several ? "vector" : "tensor";
    KRef r = Call(row.name, with_pointers);
    EXPECT_EQ(S1(Call(getter, r)), by_data);
    Call("free", r);
    if (!row.complex) {
      // an output of the result's shape and types, zeroed: the call writes the values
      KRef out = Call(getter, Call(row.name, arg));
      Call("zeros", out);
      std::vector<kabi::K> items =
          row.tensors == 0 ? std::vector<kabi::K>{with_pointers.share()} : Items(with_pointers);
      items.push_back(out.share());
      EXPECT_EQ(S1(Call(row.name, KRef(kq::List(items)))), "::");
      EXPECT_EQ(S1(Call(getter, out)), by_data);
      Call("free", out);
    }
    for (const KRef& p : pointers) Call("free", p);
  }
}

// Complex results come to k as (real;imaginary), the setting's default as in ktorch.
TEST_F(PluginMathLinearAlgebraTest, EigenvaluesComeAsRealAndImaginaryParts) {
  EXPECT_EQ(S1(Call("eigvals", "(2 0f;0 3f)")), "(2 3f;0 0f)");
  EXPECT_EQ(S1(Call("eigvals", "(0 -1f;1 0f)")), "(0 0f;1 -1f)");  // a quarter turn: i and -i
}

TEST_F(PluginMathLinearAlgebraTest, MultidotTakesAListOfTensorsOrAVector) {
  const KRef matrices = Q("((1 2f;3 4f);(1 0f;1 1f);(1 0f;0 2f))");
  EXPECT_EQ(S1(Call("multidot", List({matrices.share()}))), "(3 4f;7 8f)");
  KRef v = Call("vector", matrices);
  KRef r = Call("multidot", v);
  EXPECT_EQ(S1(Call("tensor", r)), "(3 4f;7 8f)");
  KRef out = Call("tensor", "(0 0f;0 0f)");
  EXPECT_EQ(S1(Call("multidot", List({v.share(), out.share()}))), "::");
  EXPECT_EQ(S1(Call("tensor", out)), "(3 4f;7 8f)");
  Call("free", List({v.share(), r.share(), out.share()}));
}

TEST_F(PluginMathLinearAlgebraTest, AddProductsInPlaceWriteTheirFirstTensor) {
  for (const Row& row : kRows) {
    const std::string name = row.name;
    if (name.rfind("add", 0) != 0) continue;
    SCOPED_TRACE(row.arg);
    const KRef arg = Q(row.arg);
    std::vector<kabi::K> items = Items(arg);
    KRef p = Call("tensor", KRef(items[0]));
    items[0] = p.share();
    items.push_back(kq::Null());
    EXPECT_EQ(S1(Call(row.name, KRef(kq::List(items)))), "::");
    EXPECT_EQ(S1(Call("tensor", p)), row.want);
    Call("free", p);
  }
}

TEST_F(PluginMathLinearAlgebraTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  KRef p = Call("tensor", "(4 2f;2 3f)");
  KRef v = Call("vector", "((4 2f;0.5 2f);1 2i)");
  EXPECT_THAT(Error("qr", List({p.share(), Q("`full").share()})),
              HasSubstr("qr: mode expected `reduced, `complete or `r, given `full"));
  EXPECT_THAT(Error("svd", List({p.share(), Q("1b").share(), Q("`gesdd").share()})),
              HasSubstr("svd: driver expected `gesvd, `gesvdj or `gesvda, given `gesdd"));
  EXPECT_THAT(Error("lstsq", List({p.share(), p.share(), Q("`qr").share()})),
              HasSubstr("lstsq: method expected `gels, `gelsy, `gelsd or `gelss, given `qr"));
  EXPECT_THAT(Error("power", List({p.share(), Q("1.5").share()})),
              HasSubstr("power: arg[1] expected long"));
  EXPECT_THAT(Error("trisolve", List({p.share(), p.share()})),
              HasSubstr("trisolve: arg[2] (boolean) is required"));
  EXPECT_THAT(Error("det", List({p.share(), kq::Null()})), HasSubstr("det: unrecognized arg(s)"));
  EXPECT_THAT(Error("qr", List({p.share(), p.share()})),
              HasSubstr("qr: output for several results must be a vector, given tensor"));
  EXPECT_THAT(Error("lun", List({v.share(), v.share()})),
              HasSubstr("lun: expected tensor, given vector"));
  EXPECT_THAT(Error("det", "(1 2f;3 4f;5 6f)"), HasSubstr("square"));
  EXPECT_EQ(S1(Call("tensor", p)), "(4 2f;2 3f)");
  EXPECT_EQ(S1(Call("vector", v)), "((4 2f;0.5 2);1 2i)");
  Call("free", List({p.share(), v.share()}));
}

}  // namespace plugin_math_linear_algebra_test
}  // namespace kscope::testing
