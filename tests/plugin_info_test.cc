// The tensor information functions of group A through the plugin (q/tensor/info_fns.cc), for a
// tensor (atom), a vector (list) and a dictionary (k dictionary), with the errors of bad arguments.
// The plugin test binary has no libtorch of its own: expected values are libtorch's results for the
// same calls (tests/environment_test.cc checks the api against libtorch directly).
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_info_test {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

using PluginInfoTest = PluginTest;

TEST_F(PluginInfoTest, AttributesOfAViewMatchLibtorch) {
  // q)t:tensor "e"$til 24  r:reshape(t;2 3 4)  x:transpose(r;0;2)  n:narrow(x;0;1;2)
  // libtorch: x has shape 4 3 2 and strides 1 4 12; n, shape 2 3 2, starts at offset 1
  KRef t = Call("tensor", "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23e");
  KRef shaped = Call("reshape", List({t.share(), kq::Longs({2, 3, 4})}));
  KRef tx = Call("transpose", List({shaped.share(), kq::Long(0), kq::Long(2)}));
  KRef tn = Call("narrow", List({tx.share(), kq::Long(0), kq::Long(1), kq::Long(2)}));
  EXPECT_EQ(S1(Call("stride", tx)), "1 4 12");
  EXPECT_EQ(S1(Call("stride", shaped)), "12 4 1");
  EXPECT_EQ(S1(Call("stride", tn)), "1 4 12");
  EXPECT_EQ(S1(Call("dim", tn)), "3");
  EXPECT_EQ(S1(Call("numel", tn)), "12");
  EXPECT_EQ(S1(Call("itemsize", tn)), "4");
  EXPECT_EQ(S1(Call("offset", tn)), "1");
  EXPECT_EQ(S1(Call("offset", tx)), "0");
  EXPECT_EQ(S1(Call("contiguous", tn)), "0b");
  EXPECT_EQ(S1(Call("contiguous", t)), "1b");
  EXPECT_EQ(S1(Call("contiguous", List({t.share(), kq::Sym("channel2d")}))), "0b");
  EXPECT_EQ(S1(Call("layout", tn)), "`strided");
  EXPECT_EQ(S1(Call("memory", t)), "`contiguous");
  EXPECT_EQ(S1(Call("ktype", tn)), "\"e\"");
  EXPECT_EQ(S1(Call("defined", tn)), "1b");
  EXPECT_EQ(S1(Call("coalesced", tn)), "1b");
  EXPECT_EQ(S1(Call("leaf", tn)), "1b");
  EXPECT_EQ(S1(Call("pinned", tn)), "0b");
  EXPECT_EQ(S1(Call("sparseflag", tn)), "0b");
  EXPECT_EQ(S1(Call("gradient", tn)), "`nograd");
  EXPECT_EQ(S1(Call("gradfn", tn)), "`");
  // every view shares t's storage: sptr equal, sref = the TensorImpls on it (4 here, as libtorch)
  EXPECT_EQ(S1(Call("sptr", tn)), S1(Call("sptr", t)));
  EXPECT_EQ(S1(Call("sref", t)), "4");
  EXPECT_EQ(S1(Call("weakref", t)), "1");
  Call("free", List({t.share(), shaped.share(), tx.share(), tn.share()}));
}

TEST_F(PluginInfoTest, GradientAndGradfn) {
  // q)x:tensor(1 2 3e;`grad)  y:mul(x;x)  gradient each(x;y) -> `grad`grad  gradfn y ->
  // `MulBackward0
  KRef x = Call("tensor", "(1 2 3e;`grad)");
  KRef y = Call("mul", List({x.share(), x.share()}));
  EXPECT_EQ(S1(Call("gradient", x)), "`grad");
  EXPECT_EQ(S1(Call("gradfn", y)), "`MulBackward0");
  EXPECT_EQ(S1(Call("leaf", y)), "0b");
  EXPECT_EQ(S1(Call("gradfn", x)), "`");
  Call("free", List({x.share(), y.share()}));
}

TEST_F(PluginInfoTest, KTypesAndTheEmptyTensor) {
  KRef b = Call("tensor", "0101b");
  KRef j = Call("tensor", "1 2");
  KRef f = Call("tensor", "1 2f");
  KRef h = Call("tensor", "(1 2e;`half)");
  EXPECT_EQ(S1(Each("ktype", {&b, &j, &f, &h})), "\"bjfe\"");
  KRef u = Call("tensor", "()");  // ktorch: the tensor of an empty list, 0 floats
  EXPECT_EQ(S1(Call("defined", u)), "1b");
  EXPECT_EQ(S1(Call("dim", u)), "1");
  EXPECT_EQ(S1(Call("size", u)), ",0");
  EXPECT_EQ(S1(Call("dtype", u)), "`float");
  Call("free", List({b.share(), j.share(), f.share(), h.share(), u.share()}));
}

TEST_F(PluginInfoTest, VectorsAndDictionariesPerElement) {
  // q)v:vector(1 2 3e;(2 2#til 4))  d:dict `a`b!(1 2 3e;(2 2#til 4))
  KRef v = Call("vector", "(1 2 3e;(0 1;2 3))");
  KRef d = Call("dict", "`a`b!(1 2 3e;(0 1;2 3))");
  EXPECT_EQ(S1(Call("dim", v)), "1 2");
  EXPECT_EQ(S1(Call("dim", d)), "`a`b!1 2");
  EXPECT_EQ(S1(Call("stride", v)), "(,1;2 1)");
  EXPECT_EQ(S1(Call("numel", d)), "`a`b!3 4");
  EXPECT_EQ(S1(Call("ktype", v)), "\"ej\"");
  EXPECT_EQ(S1(Call("ktype", d)), "`a`b!\"ej\"");
  EXPECT_EQ(S1(Call("defined", d)), "`a`b!11b");
  EXPECT_EQ(S1(Call("contiguous", v)), "11b");
  EXPECT_EQ(S1(Call("layout", v)), "`strided`strided");
  EXPECT_EQ(S1(Call("gradient", d)), "`a`b!`nograd`nograd");
  EXPECT_EQ(S1(Call("itemsize", v)), "4 8");
  EXPECT_EQ(S1(Call("objtype", v)), "`tensor");
  Call("free", List({v.share(), d.share()}));
}

TEST_F(PluginInfoTest, Options) {
  EXPECT_EQ(
      S1(Call("options")),
      "`device`dtype`layout`gradient`pin`memory!`cpu`float`strided`nograd`unpinned`contiguous");
  KRef t = Call("tensor", "(1 2f;`grad)");
  EXPECT_EQ(
      S1(Call("options", t)),
      "`device`dtype`layout`gradient`pin`memory!`cpu`double`strided`grad`unpinned`contiguous");
  KRef v = Call("vector", "(1 2e;1 2)");
  EXPECT_EQ(S1(Call("options", v)),
            "+`device`dtype`layout`gradient`pin`memory!(`cpu`cpu;`float`long;`strided`strided;`"
            "nograd`nograd;"
            "`unpinned`unpinned;`contiguous`contiguous)");
  KRef d = Call("dict", "`a`b!(1 2e;1 2)");
  EXPECT_THAT(S1(Call("options", d)), ::testing::StartsWith("`a`b!+`device`dtype"));
  KRef q = Call("module", "(`linear;2;3)");
  EXPECT_EQ(S1(Call("options", q)), "`in`out`bias!(2;3;1b)");
  KRef l = Call("loss", "`ce");
  EXPECT_EQ(S1(Call("options", l)), "`weight`ignore`smoothing`reduce!(::;-100;0f;`mean)");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share()}));
  EXPECT_THAT(S1(Call("options", o)),
              ::testing::StartsWith("+`lr`momentum`dampening`decay`nesterov!(,0.01;"));
  KRef empty = Call("opt", "`adam");  // no parameters yet: the defaults as one row
  EXPECT_THAT(S1(Call("options", empty)),
              ::testing::StartsWith("+`lr`beta1`beta2`eps`decay`amsgrad!(,0.001;"));
  Call("free", empty);
  // a kind's options with ktorch's sample values (help`linear's)
  EXPECT_EQ(S1(Call("options", "`linear")), "`in`out`bias!(784;10;1b)");
  EXPECT_EQ(Error("options", "`nope"), "options: unrecognized topic or kind `nope");
  EXPECT_EQ(Error("options", "1 2"),
            "options: unrecognized arg(s), expecting empty arg, name or object, given long list");
  KRef m = Call("model", List({q.share(), l.share(), o.share()}));
  EXPECT_EQ(Error("options", m), "options: not implemented for model");
  Call("free", List({t.share(), v.share(), d.share(), m.share()}));
}

TEST_F(PluginInfoTest, ObjtypeSameAlias) {
  KRef t = Call("tensor", "1 2 3 4");
  KRef u = Call("addref", t);
  KRef n = Call("narrow", List({t.share(), kq::Long(0), kq::Long(1), kq::Long(2)}));
  KRef other = Call("tensor", "1 2 3 4");
  EXPECT_EQ(S1(Call("same", List({t.share(), u.share()}))), "1b");
  EXPECT_EQ(S1(Call("same", List({t.share(), n.share()}))), "0b");
  EXPECT_EQ(S1(Call("alias", List({t.share(), n.share()}))), "1b");
  EXPECT_EQ(S1(Call("alias", List({t.share(), other.share()}))), "0b");
  EXPECT_EQ(Error("same", t), "same: expecting two tensors, given tensor");
  EXPECT_EQ(Error("alias", List({t.share(), kq::Long(1)})),
            "alias: expecting two tensors, given general list");
  KRef q = Call("module", "(`linear;2;3)");
  KRef l = Call("loss", "`mse");
  KRef o = Call("opt", "`adamw");
  EXPECT_EQ(S1(Call("objtype", t)), "`tensor");
  EXPECT_EQ(S1(Call("objtype", q)), "`linear");
  EXPECT_EQ(S1(Call("objtype", l)), "`mse");
  EXPECT_EQ(S1(Call("objtype", o)), "`adamw");
  EXPECT_EQ(Error("objtype", "1"),
            "objtype: requires an allocated torch object, e.g. module, loss or optimizer, given "
            "long scalar");
  EXPECT_EQ(Error("same", List({q.share(), t.share()})), "same: expected tensor, given module");
  Call("free",
       List({t.share(), u.share(), n.share(), other.share(), q.share(), l.share(), o.share()}));
}

TEST_F(PluginInfoTest, InfoAndDetail) {
  KRef t = Call("tensor", "1 2 3e");
  KRef i = Call("info", t);
  EXPECT_EQ(S1(At(i, "dtype")), "`float");
  EXPECT_EQ(S1(At(i, "size")), ",3");
  // ktorch's keys, in its order
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(i.get())))),
            "`defined`device`dtype`layout`gradient`pin`memory`leaf`gradfn`dim`sparsedim`size`"
            "stride`numel`itemsize"
            "`contiguous`coalesced`offset`ptr`ref");
  EXPECT_EQ(S1(At(i, "pin")), "`unpinned");
  EXPECT_EQ(S1(At(i, "memory")), "`contiguous");
  // detail: info, then the storage
  KRef d = Call("detail", t);
  EXPECT_EQ(S1(At(d, "dtype")), "`float");
  KRef storage = At(d, "storage");
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(storage.get())))), "`bytes`ref`ptr`data");
  EXPECT_EQ(S1(At(storage, "bytes")), "12");
  EXPECT_EQ(S1(At(storage, "ptr")), S1(Call("sptr", t)));
  EXPECT_EQ(S1(At(storage, "data")), "1 2 3e");
  // a view's storage holds the whole of its base's values
  KRef n = Call("narrow", List({t.share(), kq::Long(0), kq::Long(1), kq::Long(2)}));
  EXPECT_EQ(S1(At(At(Call("detail", n), "storage"), "data")), "1 2 3e");
  Call("free", n);
  EXPECT_EQ(Error("detail", "1 2"), "detail not implemented for long list");  // ktorch's text
  KRef v = Call("vector", "(1 2;3 4)");
  EXPECT_EQ(Error("detail", v), "detail: expected tensor, given vector");
  Call("free", List({t.share(), v.share()}));
}

TEST_F(PluginInfoTest, BadArgumentsNameTheFunction) {
  EXPECT_EQ(Error("dim", "1 2"), "dim: unrecognized arg(s) - long list");
  EXPECT_EQ(Error("stride", "`a"), "stride: unrecognized arg(s) - symbol scalar");
  KRef q = Call("module", "(`linear;2;3)");
  KRef l = Call("loss", "`mse");
  // (dtype, ktype and gradient answer per parameter for modules and losses, as in ktorch)
  for (const char* fn :
       {"stride", "dim", "numel", "itemsize", "offset", "sptr", "sref", "weakref", "layout",
        "memory", "gradfn", "defined", "coalesced", "contiguous", "leaf", "pinned", "sparseflag"}) {
    EXPECT_EQ(Error(fn, q), std::string(fn) + ": not implemented for modules");
    EXPECT_EQ(Error(fn, l), std::string(fn) + ": not implemented for loss modules");
  }
  KRef t = Call("tensor", "1 2");
  EXPECT_EQ(
      Error("contiguous", List({t.share(), kq::Sym("rows")})),
      "contiguous: unrecognized memory format `rows, expecting contiguous, channel2d or channel3d");
  EXPECT_EQ(S1(Call("contiguous", t)), "1b");
  Call("free", List({t.share(), q.share(), l.share()}));
  EXPECT_EQ(Error("dim", t), "stale pointer");
}

}  // namespace plugin_info_test
}  // namespace kscope::testing
