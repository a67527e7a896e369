// The manipulation functions of catalogue group B through the plugin, as q calls them: copyto (and
// the new forms of to), grad detach gradflag, reshape View expand transpose permute squeeze
// unsqueeze narrow index cat stack, amend reset resize filldiagonal. k arrays in give k arrays
// out, pointers in give pointers out (or null for in-place forms); the expected values are
// libtorch's results for the same calls (tests/manipulation_test.cc compares the api with
// libtorch directly). A bad argument of each form gives an error naming the function and leaves
// the objects as they were.
#include <string>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_manipulation_test {

class PluginManipulationTest : public PluginTest {
 protected:
  // The values of a tensor pointer, as q shows them.
  std::string Values(const KRef& t) { return S1(Call("tensor", t)); }
  std::string Dtype(const KRef& t) { return S1(Call("dtype", t)); }
  // q)t:tensor 1 2 3 4 5 6e
  KRef Six() { return Call("tensor", "1 2 3 4 5 6e"); }
  KRef GradVector() {
    return Call("vector",
                List({Call("tensor", "(1 2e;`grad)").share(), Call("tensor", "(3e;`grad)").share(),
                      Call("tensor", "(4 5e;`grad)").share()}));
  }
  KRef GradDict() {
    return Call("dict", List({Q("`a`b").share(), List({Call("tensor", "(1 2e;`grad)").share(),
                                                       Call("tensor", "(3e;`grad)").share()})
                                                     .share()}));
  }
};

TEST_F(PluginManipulationTest, CopytoEveryFormLeavesTheSource) {
  KRef t = Six();
  KRef e = Call("tensor", "1 2j");
  KRef c = Call("copyto", List({t.share(), kq::Sym("double")}));
  EXPECT_EQ(Dtype(c), "`double");
  EXPECT_EQ(Values(c), "1 2 3 4 5 6f");
  KRef c2 = Call("copyto", List({t.share(), Q("`cpu`double").share(), kq::Bool(true)}));
  EXPECT_EQ(Values(c2), "1 2 3 4 5 6f");
  KRef c3 = Call("copyto", List({t.share(), e.share()}));
  EXPECT_EQ(Values(c3), "1 2 3 4 5 6");
  KRef c4 = Call("copyto", List({t.share(), e.share(), kq::Bool(false)}));
  EXPECT_EQ(Dtype(c4), "`long");
  EXPECT_EQ(Values(t), "1 2 3 4 5 6e");
  EXPECT_EQ(Dtype(t), "`float");

  KRef v = Call("vector", List({Q("1 2e").share()}));
  EXPECT_EQ(Error("copyto", List({v.share(), kq::Sym("double")})),
            "copyto: expected tensor, given vector");
  EXPECT_EQ(Error("copyto", "(1 2 3;`double)"), "copyto: arg[0] expected pointer, given long list");
  EXPECT_EQ(Error("copyto", List({t.share(), Q("1 2").share()})),
            "copyto: arg[1] expected tensor options or a tensor, given long list");
  EXPECT_EQ(Error("copyto", List({t.share(), kq::Sym("bogus")})),
            "unrecognized tensor option: `bogus");
  EXPECT_EQ(Error("copyto", List({t.share(), kq::Sym("grad")})),
            "copyto: expects a device and/or a dtype; set gradients with gradflag");
  EXPECT_EQ(Error("copyto", List({t.share(), kq::Sym("double"), kq::Long(1)})),
            "copyto: arg[2] expected boolean, given long scalar");
  EXPECT_EQ(Values(t), "1 2 3 4 5 6e");
  Call("free",
       List({t.share(), e.share(), c.share(), c2.share(), c3.share(), c4.share(), v.share()}));
}

// Enable once q/core/move_fns.cc's `to` replaces q/tensor/tensor_fns.cc's (until then `to` is the
// old adapter).
TEST_F(PluginManipulationTest, ToEveryFormInPlace) {
  KRef t = Six();
  KRef e = Call("tensor", "1 2j");
  EXPECT_EQ(S1(Call("to", List({t.share(), kq::Sym("double"), kq::Bool(true)}))), "::");
  EXPECT_EQ(Values(t), "1 2 3 4 5 6f");
  EXPECT_EQ(S1(Call("to", List({t.share(), e.share()}))), "::");
  EXPECT_EQ(Values(t), "1 2 3 4 5 6");
  KRef f = Call("tensor", "1e");
  EXPECT_EQ(S1(Call("to", List({t.share(), f.share(), kq::Bool(false)}))), "::");
  EXPECT_EQ(Dtype(t), "`float");
  KRef v = GradVector();
  Call("to", List({v.share(), e.share()}));
  EXPECT_EQ(S1(Call("dtype", v)), "`long`long`long");
  KRef q = Call("module", "enlist(`linear;2;1)");
  Call("to", List({q.share(), kq::Sym("double"), kq::Bool(true)}));
  KRef w = Call("parm", List({q.share(), kq::Sym("weight")}));
  EXPECT_EQ(Dtype(w), "`double");
  EXPECT_EQ(Error("to", List({t.share(), kq::Sym("grad")})),
            "to: expects a device and/or a dtype; set gradients with gradflag");
  EXPECT_EQ(Error("to", List({t.share(), v.share()})), "to: expected tensor, given vector");
  EXPECT_EQ(Dtype(t), "`float");
  Call("free", List({t.share(), e.share(), f.share(), v.share(), q.share(), w.share()}));
}

TEST_F(PluginManipulationTest, GradAsDataOrAsAPointer) {
  KRef x = Call("tensor", "(1 2 3f;`grad)");
  EXPECT_EQ(S1(Call("grad", x)), "::");
  EXPECT_EQ(Error("grad", List({x.share()})), "grad: no gradient defined");
  // q)backward z:mean y:mul(x;x)  (seed: overview)
  KRef y = Call("mul", List({x.share(), x.share()}));
  KRef z = Call("mean", y);
  Call("backward", z);
  EXPECT_EQ(S1(Call("grad", x)), "0.6666667 1.333333 2");
  KRef g = Call("grad", List({x.share()}));
  EXPECT_EQ(Values(g), "0.6666667 1.333333 2");
  Call("zerograd", x);
  EXPECT_EQ(Values(g), "0 0 0f");  // the gradient itself, not a copy
  EXPECT_EQ(Error("grad", "1 2 3"), "grad: expecting tensor or enlisted tensor, given long list");
  Call("free", List({x.share(), y.share(), z.share(), g.share()}));
}

TEST_F(PluginManipulationTest, DetachEveryForm) {
  KRef t = Call("tensor", "(1 2e;`grad)");
  KRef n = Call("detach", t);
  EXPECT_EQ(S1(Call("gradflag", n)), "0b");
  EXPECT_EQ(Values(n), "1 2e");
  KRef n2 = Call("detach", List({t.share(), kq::Bool(false)}));
  EXPECT_EQ(S1(Call("gradflag", t)), "1b");
  EXPECT_EQ(S1(Call("detach", List({t.share(), kq::Bool(true)}))), "::");
  EXPECT_EQ(S1(Call("gradflag", t)), "0b");

  KRef v = GradVector();
  EXPECT_EQ(Error("detach", List({v.share(), Q("0 5").share()})),
            "detach: vector index 5 out of range for 3 tensor(s)");
  EXPECT_EQ(S1(Call("gradflag", v)), "111b");
  EXPECT_EQ(S1(Call("detach", List({v.share(), kq::Long(1)}))), "::");
  EXPECT_EQ(S1(Call("gradflag", v)), "101b");
  Call("detach", List({v.share(), Q("0 2").share()}));
  EXPECT_EQ(S1(Call("gradflag", v)), "000b");
  KRef w = GradVector();
  EXPECT_EQ(S1(Call("detach", w)), "::");
  EXPECT_EQ(S1(Call("gradflag", w)), "000b");

  KRef d = GradDict();
  EXPECT_EQ(Error("detach", List({d.share(), Q("`b`c").share()})),
            "detach: no key `c in dictionary");
  Call("detach", List({d.share(), kq::Sym("b")}));
  EXPECT_EQ(S1(Call("gradflag", d)), "`a`b!10b");
  KRef d2 = GradDict();
  Call("detach", d2);
  EXPECT_EQ(S1(Call("gradflag", d2)), "`a`b!00b");
  EXPECT_EQ(Error("detach", "1 2 3"),
            "detach: expecting tensor, vector or dictionary pointer, given long list");
  Call("free",
       List({t.share(), n.share(), n2.share(), v.share(), w.share(), d.share(), d2.share()}));
}

TEST_F(PluginManipulationTest, GradflagEveryForm) {
  KRef t = Call("tensor", "1 2e");
  EXPECT_EQ(S1(Call("gradflag", t)), "0b");
  EXPECT_EQ(S1(Call("gradflag", List({t.share(), kq::Bool(true)}))), "::");
  EXPECT_EQ(S1(Call("gradflag", t)), "1b");
  KRef v = GradVector();
  EXPECT_EQ(S1(Call("gradflag", List({v.share(), Q("0 2").share(), kq::Bool(false)}))), "::");
  EXPECT_EQ(S1(Call("gradflag", v)), "010b");
  EXPECT_EQ(S1(Call("gradflag", List({v.share(), Q("2 1").share()}))), "01b");
  EXPECT_EQ(S1(Call("gradflag", List({v.share(), kq::Long(1)}))), "1b");
  Call("gradflag", List({v.share(), kq::Bool(true)}));
  EXPECT_EQ(S1(Call("gradflag", v)), "111b");
  KRef d = GradDict();
  Call("gradflag", List({d.share(), kq::Sym("a"), kq::Bool(false)}));
  EXPECT_EQ(S1(Call("gradflag", d)), "`a`b!01b");
  EXPECT_EQ(S1(Call("gradflag", List({d.share(), Q("`b`a").share()}))), "`b`a!10b");
  EXPECT_EQ(S1(Call("gradflag", List({d.share(), kq::Sym("a")}))), "0b");
  KRef q = Call("module", "enlist(`linear;2;1)");
  EXPECT_EQ(S1(Call("gradflag", q)), "`weight`bias!11b");
  Call("gradflag", List({q.share(), kq::Bool(false)}));
  EXPECT_EQ(S1(Call("gradflag", q)), "`weight`bias!00b");
  KRef m = Call("model", List({Call("module", "enlist(`linear;2;1)").share(),
                               Call("loss", "`mse").share(), Call("opt", "`sgd").share()}));
  Call("gradflag", List({m.share(), kq::Bool(false)}));
  EXPECT_EQ(S1(Call("gradflag", m)), "`weight`bias!00b");

  EXPECT_EQ(Error("gradflag", List({d.share(), Q("`a`z").share(), kq::Bool(true)})),
            "gradflag: no key `z in dictionary");
  EXPECT_EQ(Error("gradflag", List({v.share(), kq::Long(3)})),
            "gradflag: vector index 3 out of range for 3 tensor(s)");
  EXPECT_EQ(Error("gradflag", List({d.share(), kq::Long(0)})),
            "gradflag: expected vector, given dictionary");
  EXPECT_EQ(Error("gradflag", List({v.share(), Q("0 1").share(), kq::Long(1)})),
            "gradflag: arg[2] expected boolean, given long scalar");
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(Error("gradflag", l),
            "gradflag: expected tensor, vector, dictionary, module or model, given loss");
  EXPECT_EQ(Error("gradflag", "1 2"), "gradflag: arg[0] expected pointer, given long list");
  EXPECT_EQ(S1(Call("gradflag", d)), "`a`b!01b");
  Call("free", List({t.share(), v.share(), d.share(), q.share(), m.share(), l.share()}));
}

TEST_F(PluginManipulationTest, ReshapeViewExpandPermuteNarrowIndex) {
  KRef t = Six();
  KRef e = Call("tensor", "(`zeros;3 2)");
  EXPECT_EQ(S1(Call("reshape", "(1 2 3 4 5 6;2 3)")), "(1 2 3;4 5 6)");
  KRef r = Call("reshape", List({t.share(), e.share()}));
  EXPECT_EQ(Values(r), "(1 2e;3 4e;5 6e)");
  KRef rk =
      Call("reshape", List({Q("1 2 3 4 5 6").share(), e.share()}));  // a pointer among the inputs
  EXPECT_EQ(Values(rk), "(1 2;3 4;5 6)");
  EXPECT_EQ(S1(Call("View", "(1 2 3 4 5 6;3 2)")), "(1 2;3 4;5 6)");
  EXPECT_EQ(S1(Call("expand", "(1 2 3;2 3)")), "(1 2 3;1 2 3)");
  KRef row = Call("tensor", "1 2e");
  KRef x = Call("expand", List({row.share(), e.share()}));
  EXPECT_EQ(Values(x), "(1 2e;1 2e;1 2e)");
  KRef x2 = Call("expand", List({row.share(), Q("2 -1").share()}));
  EXPECT_EQ(Values(x2), "(1 2e;1 2e)");
  EXPECT_EQ(S1(Call("permute", "((1 2 3;4 5 6);1 0)")), "(1 4;2 5;3 6)");
  EXPECT_EQ(S1(Call("narrow", "(1 2 3 4 5;0;1;3)")), "2 3 4");
  KRef nr = Call("narrow", List({t.share(), kq::Long(0), kq::Long(4), kq::Long(2)}));
  EXPECT_EQ(Values(nr), "5 6e");
  EXPECT_EQ(S1(Call("index", "((1 2;3 4;5 6);0;2 0)")), "(5 6;1 2)");
  EXPECT_EQ(S1(Call("index", "((1 2;3 4;5 6);1;1)")), "2 4 6");
  KRef w = Call("View", List({t.share(), Q("2 3").share()}));
  EXPECT_EQ(Values(w), "(1 2 3e;4 5 6e)");
  KRef p = Call("permute", List({w.share(), Q("1 0").share()}));
  EXPECT_EQ(Values(p), "(1 4e;2 5e;3 6e)");
  KRef ix = Call("index", List({w.share(), kq::Long(1), Q("2 0").share()}));
  EXPECT_EQ(Values(ix), "(3 1e;6 4e)");
  KRef sel = Call("index", List({w.share(), kq::Long(0), kq::Long(1)}));
  EXPECT_EQ(Values(sel), "4 5 6e");
  EXPECT_THAT(Error("index", List({w.share(), kq::Long(0), kq::Long(2)})),
              ::testing::HasSubstr("out of range"));
  EXPECT_EQ(Error("View", List({t.share(), Q("4 4").share()})),
            "shape '[4, 4]' is invalid for input of size 6");
  EXPECT_EQ(Error("permute", List({w.share(), Q("0 0").share()})),
            "permute(): duplicate dims are not allowed.");
  EXPECT_EQ(Error("reshape", List({t.share(), Q("4 4").share()})),
            "shape '[4, 4]' is invalid for input of size 6");
  EXPECT_EQ(Error("expand", "(1 2 3;`a)"), "expand: arg[1] expected long, given symbol scalar");
  EXPECT_EQ(Error("expand", List({kabi::ktn(kabi::kReal, 0), Q("-3 0").share()})),
            "expand: size -3 at dimension 0; expects a size >= 0, or -1 to keep the input's size");
  EXPECT_EQ(Error("reshape", List({t.share()})), "reshape: unrecognized arg(s) - general list");
  EXPECT_EQ(Values(t), "1 2 3 4 5 6e");
  Call("free", List({t.share(), e.share(), r.share(), rk.share(), row.share(), x.share(),
                     x2.share(), nr.share(), w.share(), p.share(), ix.share(), sel.share()}));
}

TEST_F(PluginManipulationTest, TransposeSqueezeUnsqueezeWithInPlaceFlags) {
  EXPECT_EQ(S1(Call("transpose", "(1 2 3;4 5 6)")),
            "(1 4;2 5;3 6)");  // a k matrix as the whole argument
  EXPECT_EQ(S1(Call("transpose", "((1 2 3;4 5 6);0b)")), "(1 4;2 5;3 6)");
  EXPECT_EQ(S1(Call("transpose", "(((1 2;3 4);(5 6;7 8));0;2)")), "((1 5;3 7);(2 6;4 8))");
  KRef t = Call("tensor", "(1 2 3e;4 5 6e)");
  KRef tt = Call("transpose", t);
  EXPECT_EQ(Values(tt), "(1 4e;2 5e;3 6e)");
  EXPECT_EQ(S1(Call("transpose", List({t.share(), kq::Bool(true)}))), "::");
  EXPECT_EQ(Values(t), "(1 4e;2 5e;3 6e)");
  EXPECT_EQ(S1(Call("transpose", List({t.share(), kq::Long(1), kq::Long(0), kq::Bool(true)}))),
            "::");
  EXPECT_EQ(Values(t), "(1 2 3e;4 5 6e)");
  EXPECT_EQ(Error("transpose", "(1 2 3;1b)"),
            "transpose: in-place form expects a tensor pointer, given long list");
  EXPECT_EQ(Error("transpose", List({t.share(), kq::Long(0), kq::Long(5), kq::Bool(true)})),
            "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  EXPECT_EQ(Error("transpose", List({t.share(), kq::Sym("a")})),
            "transpose: unrecognized arg(s) - general list");
  EXPECT_EQ(Values(t), "(1 2 3e;4 5 6e)");

  EXPECT_EQ(S1(Call("squeeze", "enlist enlist 1 2 3")), "1 2 3");
  EXPECT_EQ(S1(Call("squeeze", "(enlist enlist 1 2 3;0)")), ",1 2 3");
  KRef c = Call("tensor", ",,1 2 3e");
  KRef s = Call("squeeze", List({c.share(), kq::Long(1)}));
  EXPECT_EQ(Values(s), ",1 2 3e");
  EXPECT_EQ(S1(Call("squeeze", List({c.share(), kq::Long(0), kq::Bool(true)}))), "::");
  EXPECT_EQ(Values(c), ",1 2 3e");
  EXPECT_EQ(S1(Call("squeeze", List({c.share(), kq::Bool(true)}))), "::");
  EXPECT_EQ(Values(c), "1 2 3e");
  EXPECT_EQ(S1(Call("unsqueeze", "(1 2 3;1)")), "(,1;,2;,3)");
  EXPECT_EQ(S1(Call("unsqueeze", List({c.share(), kq::Long(0), kq::Bool(true)}))), "::");
  EXPECT_EQ(Values(c), ",1 2 3e");
  KRef u = Call("unsqueeze", List({c.share(), kq::Long(0), kq::Bool(false)}));
  EXPECT_EQ(Values(u), ",,1 2 3e");
  EXPECT_EQ(Error("unsqueeze", "(1 2 3;0;1b)"),
            "unsqueeze: in-place form expects a tensor pointer, given long list");
  EXPECT_EQ(Error("squeeze", List({c.share(), kq::Long(0), kq::Long(1)})),
            "squeeze: unrecognized arg(s) - general list");
  EXPECT_EQ(Values(c), ",1 2 3e");
  Call("free", List({t.share(), tt.share(), c.share(), s.share(), u.share()}));
}

TEST_F(PluginManipulationTest, CatAndStackEveryForm) {
  EXPECT_EQ(S1(Call("cat", "(1 2;3 4 5)")), "1 2 3 4 5");
  EXPECT_EQ(S1(Call("cat", "((enlist 1 2;enlist 3 4);1)")), ",1 2 3 4");
  EXPECT_EQ(S1(Call("stack", "(1 2;3 4)")), "(1 2;3 4)");
  EXPECT_EQ(S1(Call("stack", "((1 2;3 4);1)")), "(1 3;2 4)");
  KRef a = Call("tensor", "1 2e");
  KRef v = Call("vector", List({Q("1 2e").share(), Q("3 4e").share()}));
  KRef c = Call("cat", List({a.share(), Q("3 4e").share()}));
  EXPECT_EQ(Values(c), "1 2 3 4e");
  KRef cv = Call("cat", v);
  EXPECT_EQ(Values(cv), "1 2 3 4e");
  KRef sv = Call("stack", List({v.share(), kq::Long(1)}));
  EXPECT_EQ(Values(sv), "(1 3e;2 4e)");
  KRef out = Call("tensor", "0e");
  EXPECT_EQ(S1(Call("cat", List({v.share(), kq::Long(0), out.share()}))), "::");
  EXPECT_EQ(Values(out), "1 2 3 4e");
  EXPECT_EQ(S1(Call("stack", List({List({a.share(), Q("5 6e").share()}).share(), kq::Long(0),
                                   out.share()}))),
            "::");
  EXPECT_EQ(Values(out), "(1 2e;5 6e)");
  EXPECT_EQ(Error("cat", List({v.share(), kq::Long(0), Q("1 2").share()})),
            "cat: unrecognized arg(s) - general list");
  EXPECT_EQ(Error("stack", List({v.share(), kq::Long(0), v.share()})),
            "stack: expected tensor, given vector");
  EXPECT_EQ(Values(out), "(1 2e;5 6e)");
  Call("free", List({a.share(), v.share(), c.share(), cv.share(), sv.share(), out.share()}));
}

TEST_F(PluginManipulationTest, AmendEveryForm) {
  KRef t = Call("tensor", "((0 0e;0 0e);`grad)");
  EXPECT_EQ(S1(Call("amend", List({t.share(), Q("1 2e").share()}))), "::");
  EXPECT_EQ(Values(t), "(1 2e;1 2e)");
  KRef src = Call("tensor", "(3 4;5 6)");
  EXPECT_EQ(S1(Call("amend", List({t.share(), src.share(), kq::Bool(true)}))), "::");
  EXPECT_EQ(Values(t), "(3 4e;5 6e)");
  EXPECT_EQ(S1(Call("gradflag", t)), "1b");
  EXPECT_EQ(Error("amend", List({t.share(), Q("1 2 3e").share()})),
            "amend: values of size 3 do not fit a tensor of size 2 2");
  EXPECT_EQ(Error("amend", List({t.share(), Q("1 2e").share(), kq::Long(1)})),
            "amend: arg[2] expected boolean, given long scalar");
  EXPECT_EQ(Error("amend", "(1 2;3 4)"), "amend: arg[0] expected pointer, given long list");
  EXPECT_EQ(Values(t), "(3 4e;5 6e)");

  KRef v = Call("vector", List({Q("0 0e").share(), Q("0 0 0e").share()}));
  EXPECT_EQ(S1(Call("amend", List({v.share(), kq::Long(1), Q("7 8 9").share()}))), "::");
  Call("amend", List({v.share(), Q("0 1").share(), List({kq::Real(5), Q("1 2 3e").share()}).share(),
                      kq::Bool(true)}));
  EXPECT_EQ(S1(Call("vector", v)), "(5 5e;1 2 3e)");
  EXPECT_EQ(Error("amend", List({v.share(), Q("0 1").share(),
                                 List({kq::Real(9), Q("1 2e").share()}).share()})),
            "amend: values of size 2 do not fit a tensor of size 3");
  EXPECT_EQ(Error("amend", List({v.share(), Q("0 1").share(), Q("1 2e").share()})),
            "amend: expecting a general list of 2 values, one per index or key, given real list");
  EXPECT_EQ(Error("amend", List({v.share(), kq::Long(2), Q("1e").share()})),
            "amend: vector index 2 out of range for 2 tensor(s)");
  // No index amends nothing (found by the fuzzer: the empty selection read values past the end).
  EXPECT_EQ(S1(Call("amend", List({v.share(), kq::Longs({}), kabi::ktn(kabi::kMixed, 0)}))), "::");
  EXPECT_EQ(Error("amend", List({v.share(), kq::Longs({}), kq::List({kq::Real(1)})})),
            "amend: expecting a general list of 0 values, one per index or key, given general "
            "list");
  EXPECT_EQ(S1(Call("vector", v)), "(5 5e;1 2 3e)");

  KRef d =
      Call("dict", List({Q("`a`b").share(), List({Q("0 0e").share(), Q("0e").share()}).share()}));
  Call("amend", List({d.share(), kq::Sym("a"), Q("1 2e").share()}));
  Call("amend", List({d.share(), Q("`b`a").share(), List({kq::Real(3), Q("4 5e").share()}).share(),
                      kq::Bool(false)}));
  EXPECT_EQ(S1(Call("dict", d)), "`a`b!(4 5e;3e)");
  EXPECT_EQ(Error("amend", List({d.share(), kq::Sym("c"), Q("1e").share()})),
            "amend: no key `c in dictionary");
  EXPECT_EQ(S1(Call("amend", List({d.share(), kq::Syms({}), kabi::ktn(kabi::kMixed, 0)}))), "::");
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(Error("amend", List({l.share(), kq::Long(0), Q("1e").share()})),
            "amend: expected tensor, vector or dictionary, given loss");
  EXPECT_EQ(S1(Call("dict", d)), "`a`b!(4 5e;3e)");
  Call("free", List({t.share(), src.share(), v.share(), d.share(), l.share()}));
}

TEST_F(PluginManipulationTest, ResetResizeFilldiagonal) {
  KRef t = Call("tensor", "0 1 2 3 4 5 6 7 8e");
  EXPECT_EQ(S1(Call("reset", List({t.share(), kq::Long(1), Q("2 2").share(), Q("3 1").share()}))),
            "::");
  EXPECT_EQ(Values(t), "(1 2e;4 5e)");
  Call("reset", List({t.share(), kq::Long(4), Q("2 2").share()}));
  EXPECT_EQ(Values(t), "(4 5e;6 7e)");
  Call("reset", List({t.share(), kq::Long(6)}));
  EXPECT_EQ(Values(t), "6 7 8e");
  EXPECT_EQ(Error("reset", List({t.share(), kq::Long(4), Q("2 3").share()})),
            "reset: offset 4 with sizes 2 3 and strides 3 1 reaches element 9 of a storage of 9 "
            "elements");
  EXPECT_EQ(
      Error("reset", List({t.share(), kq::Long(0), Q("3").share(), Q("5").share()})),
      "reset: offset 0 with sizes 3 and strides 5 reaches element 10 of a storage of 9 elements");
  EXPECT_EQ(Error("reset", "(1 2 3;0)"), "reset: arg[0] expected pointer, given long list");
  EXPECT_EQ(Values(t), "6 7 8e");

  KRef r = Call("tensor", "1 2 3 4 5 6e");
  EXPECT_EQ(S1(Call("resize", List({r.share(), Q("2 2").share()}))), "::");
  EXPECT_EQ(Values(r), "(1 2e;3 4e)");
  EXPECT_EQ(S1(Call("resize", "(1 2 3 4 5 6;3 2)")), "(1 2;3 4;5 6)");
  KRef g = Call("tensor", "(1 2e;`grad)");
  EXPECT_EQ(Error("resize", List({g.share(), Q("2 2").share()})),
            "cannot resize variables that require grad");
  EXPECT_EQ(Values(g), "1 2e");

  KRef m = Call("tensor", "((0 0e;0 0e;0 0e;0 0e;0 0e);`grad)");
  EXPECT_EQ(S1(Call("filldiagonal", List({m.share(), kq::Real(3), kq::Bool(true)}))), "::");
  EXPECT_EQ(Values(m), "(3 0e;0 3e;0 0e;3 0e;0 3e)");
  EXPECT_EQ(S1(Call("filldiagonal", "((0 0;0 0;0 0);7)")), "(7 0;0 7;0 0)");
  EXPECT_EQ(Error("filldiagonal", List({m.share(), Q("1 2").share()})),
            "filldiagonal: arg[1] expected numeric scalar, given long list");
  EXPECT_EQ(Error("filldiagonal", List({m.share(), kq::Long(1), kq::Long(1)})),
            "filldiagonal: arg[2] expected boolean, given long scalar");
  EXPECT_EQ(Values(m), "(3 0e;0 3e;0 0e;3 0e;0 3e)");
  Call("free", List({t.share(), r.share(), g.share(), m.share()}));
}

}  // namespace plugin_manipulation_test
}  // namespace kscope::testing
