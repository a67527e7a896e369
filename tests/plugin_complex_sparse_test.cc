// real imag isreal sparse sparseindex dense indices values coalesce through the plugin, as q calls
// them: a pointer gives k values and an enlisted pointer a new pointer (real imag indices values
// isreal), k data in gives k data out (sparse: the dense form, k having no sparse arrays), a
// pointer in gives a pointer out. Expected values are libtorch's for the same calls (to_sparse,
// sparse_mask, indices, values, to_dense, coalesce, real, imag, isreal), worked out by hand;
// api/tensor/sparse.h's and api/tensor/complex_parts.h's tests compare with those calls made
// directly. A bad argument of each form gives an error naming the function and leaves the pointers
// as they were (the fixture fails a test that leaves a pointer behind).
#include <string>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_complex_sparse_test {

using ::testing::HasSubstr;

class PluginComplexSparseTest : public PluginTest {
 protected:
  // The k values of the tensor behind pointer t.
  std::string Values(const KRef& t) { return S1(Call("tensor", t)); }
  // The k values of the new pointer fn arg returns (the pointer is freed).
  std::string ValuesOfNew(const char* fn, const KRef& arg) {
    KRef p = Call(fn, arg);
    EXPECT_GT(PointerId(p), 0) << fn;
    std::string s = Values(p);
    Call("free", p);
    return s;
  }
  KRef Enlist(const KRef& p) { return List({p.share()}); }
  // q)tensor(`complex;1 2 3e;4 0 6e) -> 1+4i 2+0i 3+6i
  KRef Complex() { return Call("tensor", "(`complex;1 2 3e;4 0 6e)"); }
};

TEST_F(PluginComplexSparseTest, RealAndImagGiveValuesForAPointerAndAPointerForAnEnlistedOne) {
  KRef c = Complex();
  EXPECT_EQ(S1(Call("real", c)), "1 2 3e");
  EXPECT_EQ(S1(Call("imag", c)), "4 0 6e");
  EXPECT_EQ(ValuesOfNew("real", Enlist(c)), "1 2 3e");
  EXPECT_EQ(ValuesOfNew("imag", Enlist(c)), "4 0 6e");
  KRef d = Call("tensor", "(`complex;(1 2f;3 4f);(5 6f;7 8f))");
  EXPECT_EQ(S1(Call("real", d)), "(1 2f;3 4f)");
  EXPECT_EQ(S1(Call("imag", d)), "(5 6f;7 8f)");
  Call("free", List({c.share(), d.share()}));
}

TEST_F(PluginComplexSparseTest, IsrealOnPointersEnlistedPointersAndKData) {
  KRef c = Complex();
  EXPECT_EQ(S1(Call("isreal", c)), "010b");
  EXPECT_EQ(ValuesOfNew("isreal", Enlist(c)), "010b");
  EXPECT_EQ(S1(Call("isreal", "1 2 3f")), "111b");
  EXPECT_EQ(S1(Call("isreal", "(1 2e;3 4e)")), "(11b;11b)");
  KRef t = Call("tensor", "1 2e");
  EXPECT_EQ(S1(Call("isreal", t)), "11b");
  Call("free", List({c.share(), t.share()}));
}

TEST_F(PluginComplexSparseTest, RealAndImagErrorsNameTheFunction) {
  KRef c = Complex();
  KRef t = Call("tensor", "1 2e");
  EXPECT_EQ(Error("real", t), "real: expects complex tensor, given float tensor");
  EXPECT_EQ(Error("imag", Enlist(t)), "imag: expects complex tensor, given float tensor");
  EXPECT_EQ(Error("real", "1 2 3"),
            "real: expects a tensor pointer or an enlisted pointer, given long list");
  EXPECT_EQ(Error("imag", List({c.share(), kq::Long(1)})),
            "imag: expects a tensor pointer or an enlisted pointer, given general list");
  EXPECT_EQ(Values(t), "1 2e");
  EXPECT_EQ(S1(Call("real", c)), "1 2 3e");
  Call("free", List({c.share(), t.share()}));
}

TEST_F(PluginComplexSparseTest, SparseOfKDataIsANewSparsePointer) {
  // ktorch: k has no sparse form, so sparse of k data gives a pointer too
  KRef s = Call("sparse", "(1 0 2e;0 0 3e)");
  EXPECT_EQ(S1(Call("sparseflag", s)), "1b");
  EXPECT_EQ(S1(Call("indices", s)), "(0 0 1;0 2 2)");
  KRef rows = Call("sparse", "((1 0 2e;0 0 3e);1)");
  EXPECT_EQ(S1(Call("sparsedim", rows)), "1");
  KRef v = Call("sparse", "0 5 0 7");
  EXPECT_EQ(ValuesOfNew("dense", v), "0 5 0 7");
  Call("free", List({s.share(), rows.share(), v.share()}));
}

TEST_F(PluginComplexSparseTest, SparsePointersIndicesValuesAndDense) {
  KRef t = Call("tensor", "(1 0 2e;0 0 3e)");
  KRef s = Call("sparse", t);
  EXPECT_EQ(S1(Call("sparseflag", s)), "1b");
  // libtorch: [[1,0,2],[0,0,3]].to_sparse() has indices [[0,0,1],[0,2,2]] and values [1,2,3]
  EXPECT_EQ(S1(Call("indices", s)), "(0 0 1;0 2 2)");
  EXPECT_EQ(S1(Call("values", s)), "1 2 3e");
  EXPECT_EQ(ValuesOfNew("indices", Enlist(s)), "(0 0 1;0 2 2)");
  EXPECT_EQ(ValuesOfNew("values", Enlist(s)), "1 2 3e");
  KRef d = Call("dense", s);
  EXPECT_EQ(S1(Call("sparseflag", d)), "0b");
  EXPECT_EQ(Values(d), "(1 0 2e;0 0 3e)");
  // to_sparse(1): the rows are sparse, each row's values dense
  KRef rows = Call("sparse", List({t.share(), kq::Long(1)}));
  EXPECT_EQ(S1(Call("indices", rows)), ",0 1");
  EXPECT_EQ(S1(Call("values", rows)), "(1 0 2e;0 0 3e)");
  Call("free", List({t.share(), s.share(), d.share(), rows.share()}));
}

TEST_F(PluginComplexSparseTest, SparseMaskKeepsTheValuesAtTheMasksIndices) {
  KRef t = Call("tensor", "(1 0 2e;0 0 3e)");
  KRef mask = Call("sparse", t);
  // k data and a mask pointer: a pointer, as any pointer among the inputs makes one
  KRef fromk = Call("sparse", List({Q("(4 5 6e;7 8 9e)").share(), mask.share()}));
  EXPECT_EQ(S1(Call("indices", fromk)), "(0 0 1;0 2 2)");
  EXPECT_EQ(S1(Call("values", fromk)), "4 6 9e");
  KRef x = Call("tensor", "(4 5 6e;7 8 9e)");
  KRef masked = Call("sparse", List({x.share(), mask.share()}));
  EXPECT_EQ(ValuesOfNew("dense", masked), "(4 0 6e;0 0 9e)");
  Call("free", List({t.share(), mask.share(), fromk.share(), x.share(), masked.share()}));
}

TEST_F(PluginComplexSparseTest, SparseindexOfKDataAndPointers) {
  EXPECT_EQ(S1(Call("sparseindex", "(1 0 2;0 0 3)")), "(0 0 1;0 2 2)");
  EXPECT_EQ(S1(Call("sparseindex", "((1 0;0 0;3 4);1)")), ",0 2");
  KRef t = Call("tensor", "(1 0 2e;0 0 3e)");
  EXPECT_EQ(ValuesOfNew("sparseindex", t), "(0 0 1;0 2 2)");
  EXPECT_EQ(ValuesOfNew("sparseindex", List({t.share(), kq::Long(1)})), ",0 1");
  Call("free", t);
}

TEST_F(PluginComplexSparseTest, CoalesceInPlace) {
  // (0,1) given twice: libtorch's coalesce sums it, 1+2
  // (values given as a pointer: tensor(`sparse;..) keeps a view of k values, see the report)
  KRef v = Call("tensor", "1 2 5e");
  KRef s = Call("tensor",
                List({kq::Sym("sparse"), Q("(0 0 1;1 1 0)").share(), v.share(), Q("2 2").share()}));
  EXPECT_EQ(ValuesOfNew("dense", s), "(0 3e;5 0e)");
  EXPECT_THAT(Error("indices", s), HasSubstr("coalesce"));  // libtorch's text
  const std::int64_t id = PointerId(s);
  EXPECT_EQ(S1(Call("coalesce", s)), "::");
  EXPECT_EQ(PointerId(s), id);
  EXPECT_EQ(S1(Call("indices", s)), "(0 1;1 0)");
  EXPECT_EQ(S1(Call("values", s)), "3 5e");
  EXPECT_EQ(ValuesOfNew("dense", s), "(0 3e;5 0e)");
  Call("free", List({v.share(), s.share()}));
}

TEST_F(PluginComplexSparseTest, SparseErrorsNameTheFunctionAndChangeNothing) {
  KRef t = Call("tensor", "(1 0 2e;0 0 3e)");
  KRef s = Call("sparse", t);
  EXPECT_EQ(Error("sparse", s), "sparse: expects strided tensor, given sparse tensor");
  EXPECT_EQ(Error("sparse", List({t.share(), t.share()})),
            "sparse: expects sparse mask, given strided tensor");
  EXPECT_THAT(Error("sparse", List({t.share(), kq::Long(3)})),
              HasSubstr("sparse_dim"));  // libtorch's text
  EXPECT_EQ(Error("sparse", List({t.share(), kq::Sym("a")})),
            "sparse: unrecognized arg(s) - general list");
  EXPECT_EQ(Error("sparse", "(1 2e;`a)"), "sparse: unrecognized arg(s) - general list");
  EXPECT_EQ(Error("sparseindex", List({t.share(), kq::Float(1)})),
            "sparseindex: unrecognized arg(s) - general list");
  EXPECT_EQ(Error("isreal", List({t.share(), kq::Float(1)})),
            "isreal: expects a tensor pointer or an enlisted pointer, given general list");
  EXPECT_EQ(Error("sparseindex", s), "sparseindex: expects strided tensor, given sparse tensor");
  EXPECT_EQ(Error("dense", t), "dense: expects sparse tensor, given strided tensor");
  EXPECT_EQ(Error("dense", "1 2 3"), "dense: expects a sparse tensor pointer, given long list");
  EXPECT_EQ(Error("indices", t), "indices: expects sparse tensor, given strided tensor");
  EXPECT_EQ(Error("values", Enlist(t)), "values: expects sparse tensor, given strided tensor");
  EXPECT_EQ(Error("values", "1 2 3"),
            "values: expects a tensor pointer or an enlisted pointer, given long list");
  EXPECT_EQ(Error("coalesce", t), "coalesce: expects sparse tensor, given strided tensor");
  EXPECT_EQ(Error("coalesce", "`a"),
            "coalesce: expects a sparse tensor pointer, given symbol scalar");
  EXPECT_EQ(Values(t), "(1 0 2e;0 0 3e)");
  EXPECT_EQ(S1(Call("values", s)), "1 2 3e");
  Call("free", List({t.share(), s.share()}));
  EXPECT_EQ(Error("values", s), "stale pointer");
}

}  // namespace plugin_complex_sparse_test
}  // namespace kscope::testing
