// ktorch's `tensor` through the plugin, as q calls it: every creation mode with its _like and
// out forms, every option symbol, copying k data into a tensor, selecting values, complex and
// half values to k (with setting `complexfirst), and vectors/dictionaries split into pointers.
// Values are compared with the same libtorch call made directly in this process (the plugin
// shares this process's libtorch, so `seed` seeds both). A bad argument of each form gives an
// error naming `tensor` and leaves every pointer as it was.
#include <string>
#include <vector>

#include <ATen/ops/arange.h>
#include <ATen/ops/complex.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/full.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/logspace.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/rand_like.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randint_like.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randn_like.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/range.h>
#include <ATen/ops/sparse_coo_tensor.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_tensor_test {

using ::testing::AnyOf;
using ::testing::HasSubstr;

// Every number of a k value (atoms, vectors, nested general lists), row-major, as doubles.
void Flatten(kabi::K x, std::vector<double>* out) {
  switch (x->t < 0 ? -x->t : x->t) {
    case 0:
      for (long long i = 0; i < x->n; ++i) Flatten(kabi::Items(x)[i], out);
      return;
#define KSCOPE_FLATTEN(type, ctype, atom)                                              \
  case type:                                                                           \
    if (x->t < 0) {                                                                    \
      out->push_back(static_cast<double>(x->atom));                                    \
    } else {                                                                           \
      for (long long i = 0; i < x->n; ++i)                                             \
        out->push_back(static_cast<double>(static_cast<ctype*>(kabi::Payload(x))[i])); \
    }                                                                                  \
    return;
      KSCOPE_FLATTEN(kabi::kBoolean, std::uint8_t, g)
      KSCOPE_FLATTEN(kabi::kByte, std::uint8_t, g)
      KSCOPE_FLATTEN(kabi::kShort, std::int16_t, h)
      KSCOPE_FLATTEN(kabi::kInt, std::int32_t, i)
      KSCOPE_FLATTEN(kabi::kLong, std::int64_t, j)
      KSCOPE_FLATTEN(kabi::kReal, float, e)
      KSCOPE_FLATTEN(kabi::kFloat, double, f)
#undef KSCOPE_FLATTEN
    default: ADD_FAILURE() << "not numeric: " << static_cast<int>(x->t);
  }
}

std::vector<double> Numbers(const KRef& x) {
  std::vector<double> out;
  Flatten(x.get(), &out);
  return out;
}

std::vector<double> Numbers(const at::Tensor& t) {
  const at::Tensor d = t.is_complex() ? at::view_as_real(t) : t;
  const at::Tensor c = d.to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

class PluginTensorTest : public PluginTest {
 protected:
  // The k values behind pointer p.
  KRef Values(const KRef& p) { return Call("tensor", p); }
  // Frees every pointer given.
  void Free(std::initializer_list<const KRef*> pointers) {
    for (const KRef* p : pointers) Call("free", *p);
  }
};

TEST_F(PluginTensorTest, ModesMatchLibtorch) {
  auto check = [&](absl::string_view args, const at::Tensor& want, const char* dtype) {
    KRef p = Call("tensor", args);
    EXPECT_EQ(Numbers(Values(p)), Numbers(want)) << args;
    EXPECT_EQ(S1(Call("dtype", p)), std::string("`") + dtype) << args;
    Call("free", p);
  };
  check("(`logspace;0;3;4)", at::logspace(0, 3, 4), "float");
  check("(`logspace;0;3;4;2.0)", at::logspace(0, 3, 4, 2), "float");
  check("(`logspace;0;1;`double)", at::logspace(0, 1, 100, 10, at::kDouble), "double");
  check("(`range;1;4)", at::range(1, 4, 1), "float");
  check("(`range;1;2;0.25)", at::range(1, 2, .25), "float");
  check("(`arange;5)", at::arange(5), "long");
  check("(`arange;1;2;0.25;`double)", at::arange(1, 2, .25, at::kDouble), "double");
  check("(`linspace;0;1;5)", at::linspace(0, 1, 5), "float");
  check("(`linspace;0;1)", at::linspace(0, 1, 100), "float");
  check("(`eye;2;3;`int)", at::eye(2, 3, at::kInt), "int");
  check("(`zeros;2 3;`short)", at::zeros({2, 3}, at::kShort), "short");
  check("(`full;2 2;7;`byte)", at::full({2, 2}, 7, at::kByte), "byte");
  Call("seed", "7");
  KRef perm = Call("tensor", "(`randperm;10)");
  KRef ri = Call("tensor", "(`randint;0;10;3 4)");
  KRef rn = Call("tensor", "(`randn;5;`double)");
  at::manual_seed(7);
  EXPECT_EQ(Numbers(Values(perm)), Numbers(at::randperm(10)));
  EXPECT_EQ(Numbers(Values(ri)), Numbers(at::randint(0, 10, {3, 4})));
  EXPECT_EQ(Numbers(Values(rn)), Numbers(at::randn({5}, at::kDouble)));
  EXPECT_EQ(S1(Call("dtype", perm)), "`long");
  EXPECT_EQ(S1(Call("size", ri)), "3 4");
  Free({&perm, &ri, &rn});
}

TEST_F(PluginTensorTest, ComplexFromArraysOrPointersAndBackAsRealImagPairs) {
  const at::Tensor want =
      at::complex(at::tensor({1.0f, 2.0f, 3.0f}), at::tensor({4.0f, 0.0f, 6.0f}));
  KRef c = Call("tensor", "(`complex;1 2 3e;4 0 6e)");
  EXPECT_EQ(S1(Call("dtype", c)), "`cfloat");
  // complexfirst on (the default, as in ktorch): (real;imag), a first dimension of 2
  EXPECT_EQ(S1(Values(c)), "(1 2 3e;4 0 6e)");
  Call("setting", "(`complexfirst;0b)");
  EXPECT_EQ(S1(Values(c)), "(1 4e;2 0e;3 6e)");  // real,'imag pairs, a last dimension of 2
  EXPECT_EQ(Numbers(Values(c)), Numbers(want));
  Call("setting", "(`complexfirst;1b)");
  // the flag of tensor(t;flag;dim;ind) overrides the setting for one call
  EXPECT_EQ(S1(Call("tensor", List({c.share(), kq::Bool(false)}))), "(1 4e;2 0e;3 6e)");
  EXPECT_EQ(S1(Call("tensor", List({c.share(), kq::Bool(true), kq::Long(0), kq::Longs({2, 0})}))),
            "(3 1e;6 4e)");
  EXPECT_EQ(S1(Call("tensor", List({c.share(), kq::Bool(false), kq::Long(0), kq::Long(2)}))),
            "3 6e");
  KRef re = Call("tensor", "1 2 3e");
  KRef im = Call("tensor", "4 0 6e");
  KRef c2 = Call("tensor", List({kq::Sym("complex"), re.share(), im.share(), kq::Sym("cdouble")}));
  EXPECT_EQ(S1(Call("dtype", c2)), "`cdouble");
  EXPECT_EQ(Numbers(Call("tensor", List({c2.share(), kq::Bool(false)}))), Numbers(want));  // pairs
  KRef h = Call("tensor", "(1.5 -2 3e;`half)");
  EXPECT_EQ(S1(Values(h)), "1.5 -2 3e");  // half comes back as real
  KRef ch = Call("tensor", "(`complex;1 2e;3 4e;`chalf)");
  EXPECT_EQ(S1(Values(ch)), "(1 2e;3 4e)");  // (real;imag)
  Free({&c, &re, &im, &c2, &h, &ch});
}

TEST_F(PluginTensorTest, SparseFromIndicesAndValues) {
  KRef s = Call("tensor", "(`sparse;(0 1;1 0);5 6e;3 3)");
  EXPECT_EQ(S1(Call("layout", s)), "`sparse");
  EXPECT_EQ(S1(Call("size", s)), "3 3");
  const at::Tensor ind = at::tensor({0, 1, 1, 0}, at::kLong).reshape({2, 2});
  const at::Tensor want = at::sparse_coo_tensor(ind, at::tensor({5.0f, 6.0f}), {3, 3}).to_dense();
  KRef dense = Call("dense", s);
  EXPECT_EQ(Numbers(Values(dense)), Numbers(want));
  KRef inferred = Call("tensor", "(`sparse;(0 1;1 0);5 6e)");
  EXPECT_EQ(S1(Call("size", inferred)), "2 2");
  Free({&s, &inferred, &dense});
}

TEST_F(PluginTensorTest, LikeFormsFromAPointerOrAnArray) {
  const at::Tensor ex = at::tensor({1.0, 2.0, 3.0, 4.0}).reshape({2, 2});
  KRef t = Call("tensor", "(1 2f;3 4f)");
  const KRef data = Q("(1 2f;3 4f)");
  for (kabi::K example : {t.get(), data.get()}) {
    auto like = [&](std::initializer_list<kabi::K> rest) {
      std::vector<kabi::K> items;
      for (kabi::K x : rest) items.push_back(x);
      items.insert(items.begin() + 1, kabi::r1(example));
      KRef p = Call("tensor", KRef(kq::List(items)));
      KRef v = Values(p);
      EXPECT_EQ(S1(Call("size", p)), "2 2");
      Call("free", p);
      return Numbers(v);
    };
    EXPECT_EQ(like({kq::Sym("zeros")}), Numbers(at::zeros_like(ex)));
    EXPECT_EQ(like({kq::Sym("ones")}), Numbers(at::ones_like(ex)));
    EXPECT_EQ(like({kq::Sym("full"), kq::Float(2.5)}), Numbers(at::full_like(ex, 2.5)));
    like({kq::Sym("empty")});
    Call("seed", "3");
    const auto r = like({kq::Sym("rand")}), n = like({kq::Sym("randn")}),
               i2 = like({kq::Sym("randint"), kq::Long(9)}),
               i3 = like({kq::Sym("randint"), kq::Long(5), kq::Long(9)});
    at::manual_seed(3);
    EXPECT_EQ(r, Numbers(at::rand_like(ex)));
    EXPECT_EQ(n, Numbers(at::randn_like(ex)));
    EXPECT_EQ(i2, Numbers(at::randint_like(ex, 9)));
    EXPECT_EQ(i3, Numbers(at::randint_like(ex, 5, 9)));
  }
  KRef f =
      Call("tensor", List({kq::Sym("zeros"), t.share(), kq::Sym("float")}));  // options override
  EXPECT_EQ(S1(Call("dtype", f)), "`float");
  Free({&t, &f});
}

TEST_F(PluginTensorTest, OutFormsWriteIntoAnExistingTensorAndReturnNull) {
  KRef out = Call("tensor", "(`zeros;1;`double)");
  const std::string id = S1(out);
  auto into = [&](std::initializer_list<kabi::K> items) {
    std::vector<kabi::K> list(items);
    list.push_back(kabi::r1(out.get()));
    EXPECT_EQ(Call("tensor", KRef(kq::List(list))).get(), nullptr);
    return Numbers(Values(out));
  };
  at::Tensor want = at::empty({0}, at::kDouble);
  auto fresh = [&]() -> at::Tensor& {  // emptied, so that libtorch warns of no resize
    want.resize_({0});
    return want;
  };
  EXPECT_EQ(into({kq::Sym("ones"), kq::Longs({2, 2})}), Numbers(at::ones_out(fresh(), {2, 2})));
  EXPECT_EQ(into({kq::Sym("full"), kq::Long(3), kq::Float(1.5)}),
            Numbers(at::full_out(fresh(), {3}, 1.5)));
  EXPECT_EQ(into({kq::Sym("arange"), kq::Long(4)}), Numbers(at::arange_out(fresh(), 0, 4, 1)));
  EXPECT_EQ(into({kq::Sym("range"), kq::Long(1), kq::Long(3)}),
            Numbers(at::range_out(fresh(), 1, 3, 1)));
  EXPECT_EQ(into({kq::Sym("linspace"), kq::Long(0), kq::Long(1), kq::Long(3)}),
            Numbers(at::linspace_out(fresh(), 0, 1, 3)));
  EXPECT_EQ(into({kq::Sym("logspace"), kq::Long(0), kq::Long(2), kq::Long(3), kq::Float(2)}),
            Numbers(at::logspace_out(fresh(), 0, 2, 3, 2)));
  EXPECT_EQ(into({kq::Sym("eye"), kq::Long(2)}), Numbers(at::eye_out(fresh(), 2)));
  into({kq::Sym("empty"), kq::Longs({2, 5})});
  EXPECT_EQ(S1(Call("size", out)), "2 5");
  Call("seed", "11");
  const auto r = into({kq::Sym("rand"), kq::Long(4)}), n = into({kq::Sym("randn"), kq::Long(4)}),
             i = into({kq::Sym("randint"), kq::Long(2), kq::Long(8), kq::Long(4)}),
             p = into({kq::Sym("randperm"), kq::Long(5)});
  at::manual_seed(11);
  EXPECT_EQ(r, Numbers(at::rand_out(fresh(), {4})));
  EXPECT_EQ(n, Numbers(at::randn_out(fresh(), {4})));
  EXPECT_EQ(i, Numbers(at::randint_out(fresh(), 2, 8, {4})));
  EXPECT_EQ(p, Numbers(at::randperm_out(fresh(), 5)));
  EXPECT_EQ(S1(out), id);  // the same pointer throughout
  KRef c = Call("tensor", "(`zeros;1;`cfloat)");
  EXPECT_EQ(
      Call("tensor", List({kq::Sym("complex"), kq::Reals({1}), kq::Reals({2}), c.share()})).get(),
      nullptr);
  EXPECT_EQ(S1(Values(c)), "(,1e;,2e)");  // (real;imag)
  // tensor(x;out): k data copied into the tensor (resized, converted to its dtype)
  EXPECT_EQ(Call("tensor", List({kq::Longs({1, 2, 3}), out.share()})).get(), nullptr);
  EXPECT_EQ(S1(Values(out)), "1 2 3f");
  Free({&out, &c});
}

TEST_F(PluginTensorTest, EveryOptionSymbol) {
  const std::vector<std::pair<const char*, const char*>> dtypes = {
      {"float", "1 2 3e"}, {"double", "1 2 3f"}, {"half", "1 2 3e"},
      {"bool", "111b"},    {"byte", "0x010203"}, {"char", "(\"c\"$1 2 3)"},
      {"long", "1 2 3"},   {"int", "1 2 3i"},    {"short", "1 2 3h"}};
  for (const auto& [name, shown] : dtypes) {
    KRef p = Call("tensor", List({kq::Longs({1, 2, 3}), kq::Sym(name)}));
    EXPECT_EQ(S1(Call("dtype", p)), std::string("`") + name);
    if (std::string(name) != "char") {
      EXPECT_EQ(S1(Values(p)), shown) << name;
    }
    Call("free", p);
  }
  for (const char* name : {"chalf", "cfloat", "cdouble"}) {
    KRef p = Call("tensor", List({kq::Sym("ones"), kq::Long(2), kq::Sym(name)}));
    EXPECT_EQ(S1(Call("dtype", p)), std::string("`") + name);
    EXPECT_EQ(Numbers(Values(p)), (std::vector<double>{1, 1, 0, 0}));  // (real;imag)
    Call("free", p);
  }
  KRef g = Call("tensor", "(1 2 3e;`cpu`grad`strided`unpinned`contiguous)");
  EXPECT_EQ(S1(Call("gradflag", g)), "1b");
  EXPECT_EQ(S1(Call("device", g)), "`cpu");
  KRef ng = Call("tensor", "(`ones;3;`grad`nograd)");
  EXPECT_EQ(S1(Call("gradflag", ng)), "0b");
  KRef sp = Call("tensor", "(`zeros;2 2;`sparse)");
  EXPECT_EQ(S1(Call("layout", sp)), "`sparse");
  KRef c2 = Call("tensor", "(`zeros;1 2 3 4;`channel2d)");
  KRef c3 = Call("tensor", "(`zeros;1 2 3 4 5;`channel3d)");
  EXPECT_EQ(S1(Call("stride", c2)), "24 1 8 2");
  EXPECT_EQ(S1(Call("stride", c3)), "120 1 40 10 2");
  KRef pr = Call("tensor", List({kq::Sym("ones"), c2.share(), kq::Sym("preserve")}));
  EXPECT_EQ(S1(Call("stride", pr)), "24 1 8 2");
  const KRef pinned = Q("(`zeros;2;`pinned)");
  if (S1(Call("cudadevices")) == "0") {
    // libtorch's own reason: a CPU-only libtorch has no pinned memory, a CUDA one no driver here.
    EXPECT_THAT(Error("tensor", pinned), AnyOf(HasSubstr("Pinned memory requires CUDA"),
                                               HasSubstr("Found no NVIDIA driver")));
  } else {
    KRef pp = Call("tensor", pinned);
    EXPECT_EQ(S1(Call("pinned", pp)), "1b");
    Call("free", pp);
  }
  if (S1(Call("setting", "`mps")) == "0b") {
    EXPECT_EQ(Error("tensor", "(1 2e;`mps)"), "tensor: `mps device not available");
  }
  if (S1(Call("cudadevices")) == "0") {
    EXPECT_EQ(Error("tensor", "(`ones;2;`cuda:1)"), "tensor: `cuda:1 device not available");
  }
  EXPECT_EQ(Error("tensor", "(1 2e;`float`fast)"), "unrecognized tensor option: `fast");
  // `to keeps to a device and a dtype
  EXPECT_EQ(Error("to", List({g.share(), kq::Sym("sparse")})),
            "to: expects a device and/or a dtype, not a layout, pinning or memory format");
  EXPECT_EQ(S1(Call("layout", g)), "`strided");
  Free({&g, &ng, &sp, &c2, &c3, &pr});
}

TEST_F(PluginTensorTest, SelectsValues) {
  const at::Tensor t = at::arange(12).reshape({3, 4});
  KRef p = Call("tensor", "(0 1 2 3;4 5 6 7;8 9 10 11)");
  EXPECT_EQ(Numbers(Call("tensor", List({p.share(), kq::Long(1)}))), Numbers(t.select(0, 1)));
  EXPECT_EQ(Numbers(Call("tensor", List({p.share(), kq::Longs({2, 0})}))),
            Numbers(t.index_select(0, at::tensor({2, 0}, at::kLong))));
  EXPECT_EQ(S1(Call("tensor", List({p.share(), kq::Long(1), kq::Long(-1)}))), "3 7 11");
  EXPECT_EQ(Numbers(Call("tensor", List({p.share(), kq::Long(1), kq::Longs({3, 0})}))),
            Numbers(t.index_select(1, at::tensor({3, 0}, at::kLong))));
  EXPECT_EQ(Error("tensor", List({p.share(), kq::Long(3)})),
            "tensor: index 3 out of range for dimension 0 of size 3");
  EXPECT_EQ(Error("tensor", List({p.share(), kq::Long(2), kq::Long(0)})),
            "tensor: dimension 2 out of range for a 2-d tensor");
  EXPECT_EQ(Error("tensor", List({p.share(), kq::Long(0), kq::Long(0), kq::Long(0)})),
            "tensor: unrecognized arg(s) - general list");
  EXPECT_EQ(Numbers(Values(p)), Numbers(t));
  Call("free", p);
}

TEST_F(PluginTensorTest, VectorsAndDictionariesSplitIntoNewPointers) {
  KRef v = Call("vector", "(1 2e;3 4 5e)");
  KRef parts = Call("tensor", v);
  ASSERT_EQ(parts->t, 0);
  ASSERT_EQ(parts->n, 2);
  KRef second(kabi::r1(kabi::Items(parts.get())[1]));
  EXPECT_EQ(S1(Values(second)), "3 4 5e");
  EXPECT_EQ(S1(Call("ptr", second)),
            S1(KRef(kq::Long(kabi::Longs(Call("ptr", v).get())[1]))));  // shared
  KRef one = Call("tensor", List({v.share(), kq::Long(0)}));
  EXPECT_EQ(S1(Values(one)), "1 2e");
  KRef d = Call("dict", "`a`b!(1 2e;3f)");
  KRef named = Call("tensor", d);
  EXPECT_EQ(named->t, kabi::kDictionary);
  EXPECT_EQ(S1(Values(At(named, "b"))), "3f");
  KRef b = Call("tensor", List({d.share(), kq::Sym("b")}));
  EXPECT_EQ(S1(Values(b)), "3f");
  EXPECT_EQ(Error("tensor", List({v.share(), kq::Long(2)})),
            "tensor: vector index 2 out of range for 2 tensor(s)");
  EXPECT_EQ(Error("tensor", List({d.share(), kq::Sym("c")})), "tensor: no key `c in dictionary");
  Call("free", parts);
  Call("free", KRef(kabi::r1(kabi::DictValues(named.get()))));
  Free({&v, &one, &d, &b});
}

TEST_F(PluginTensorTest, BadArgumentsNameTensorAndChangeNothing) {
  KRef out = Call("tensor", "1 2 3f");
  KRef v = Call("vector", ",1 2e");
  EXPECT_EQ(Error("tensor", "(`zero;2)"), "unrecognized tensor creation mode: zero");
  EXPECT_EQ(Error("tensor", "(`randperm;1;2)"),
            "tensor: `randperm expects 1 to 1 arguments after the mode, given 2");
  EXPECT_EQ(Error("tensor", "(`logspace;1)"),
            "tensor: `logspace expects 2 to 4 arguments after the mode, given 1");
  EXPECT_EQ(Error("tensor", "(`complex;1 2e)"),
            "tensor: `complex expects 2 to 2 arguments after the mode, given 1");
  EXPECT_EQ(Error("tensor", "(`sparse;1 2)"),
            "tensor: `sparse expects 2 to 3 arguments after the mode, given 1");
  EXPECT_EQ(
      Error("tensor", List({kq::Sym("zeros"), out.share(), kq::Long(1)})),
      "tensor: `zeros (like an example tensor) expects 1 to 1 arguments after the mode, given 2");
  EXPECT_EQ(Error("tensor", List({kq::Sym("zeros"), kq::Long(2), out.share(), kq::Sym("float")})),
            "tensor: options cannot be given with an output tensor");
  EXPECT_EQ(Error("tensor", "(`eye;1.5)"), "tensor: arg[1] expected long, given float scalar");
  EXPECT_EQ(Error("tensor", List({kq::Sym("zeros"), kq::Long(2), v.share()})),
            "tensor: expected tensor, given vector");
  EXPECT_EQ(Error("tensor", List({kq::Longs({1, 2}), v.share()})),
            "tensor: expected tensor, given vector");
  EXPECT_THAT(Error("tensor", List({kq::Sym("randperm"), kq::Long(-1), out.share()})),
              HasSubstr("non-negative"));
  EXPECT_EQ(S1(Values(out)), "1 2 3f");  // out unchanged by every failed call
  EXPECT_EQ(S1(Call("size", v)), ",,2");
  Free({&out, &v});
}

}  // namespace plugin_tensor_test
}  // namespace kscope::testing
