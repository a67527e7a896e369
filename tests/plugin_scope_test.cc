// kscope's own q functions through the k host: scope[], endscope, withscope, leaks, setting;
// the equivalent of q/kscope.q's withscope and .kscope.leaks helpers as plugin calls.
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_scope_test {

using ::testing::HasSubstr;

using ScopeFnsTest = PluginTest;

// The scope column of obj[] (one entry per live pointer).
std::string ScopeColumn(const KRef& table) {
  return khost::S1(kabi::Items(kabi::DictValues(kabi::TableDict(table.get())))[7]);
}

TEST_F(ScopeFnsTest, EndscopeFreesWhatTheScopeOwns) {
  // q)s:scope[]; t:tensor 1 2 3; endscope s   -> t is stale
  KRef s = Call("scope");
  EXPECT_EQ(S1(Call("setting", "`scope")), "1");
  KRef t = Call("tensor", "1 2 3");
  EXPECT_EQ(ScopeColumn(Call("obj")), ",1");  // obj[] shows the owning scope's depth
  EXPECT_FALSE(Call("endscope", s));
  EXPECT_EQ(S1(Call("mapped", t)), "0b");
  EXPECT_EQ(S1(Call("setting", "`scope")), "0");
}

TEST_F(ScopeFnsTest, EndscopeHandsOffPointersInsideListsAndDictionaries) {
  KRef s = Call("scope");
  KRef a = Call("tensor", "1 2");
  KRef b = Call("tensor", "3 4");
  KRef c = Call("tensor", "5 6");
  KRef result =
      List({a.share(), kq::Dict(kq::Syms({"x", "y"}), kq::List({b.share(), kq::Long(5)}))});
  KRef back = Call("endscope", List({s.share(), result.share()}));
  EXPECT_EQ(S1(back), S1(result));  // endscope(s;r) returns r
  EXPECT_EQ(S1(Call("mapped", a)), "1b");
  EXPECT_EQ(S1(Call("mapped", b)), "1b");
  EXPECT_EQ(S1(Call("mapped", c)), "0b");
  EXPECT_EQ(ScopeColumn(Call("obj")), "0 0");  // handed to the root
  Call("free", List({a.share(), b.share()}));
}

TEST_F(ScopeFnsTest, NestedScopes) {
  KRef outer = Call("scope");
  KRef inner = Call("scope");
  KRef kept = Call("tensor", "1");
  KRef dropped = Call("tensor", "2");
  EXPECT_THAT(Error("endscope", outer), HasSubstr("is not the innermost open scope"));
  Call("endscope", List({inner.share(), kept.share()}));
  EXPECT_EQ(ScopeColumn(Call("obj")), ",1");  // kept moved to the outer scope
  EXPECT_EQ(S1(Call("mapped", dropped)), "0b");
  Call("endscope", outer);
  EXPECT_EQ(S1(Call("mapped", kept)), "0b");
}

TEST_F(ScopeFnsTest, WithscopeKeepsOnlyTheResult) {
  // q)f:{[x] y:mul(x;x); z:mean y; backward z; z}   z:withscope(f;x)   grad x
  KRef x = Call("tensor", "(1 2 3.0;`grad)");
  std::int64_t temporary = 0;
  KRef f(khost::Function(1, [&](const std::vector<kabi::K>& args) -> kabi::K {
    khost::Result y =
        Plugin().Call("mul", KRef(kq::List({kabi::r1(args[0]), kabi::r1(args[0])})).get());
    temporary = PointerId(y.value);
    khost::Result z = Plugin().Call("mean", y.value.get());
    Plugin().Call("backward", z.value.get());
    return z.value.release();
  }));
  KRef z = Call("withscope", List({f.share(), x.share()}));
  EXPECT_EQ(S1(Call("tensor", z)), "4.666667");
  EXPECT_EQ(S1(Call("grad", x)), "0.6666667 1.333333 2");
  KRef y(kq::Enlist(kq::Long(temporary)));
  EXPECT_EQ(S1(Call("mapped", y)), "0b");  // y died with the scope
  Call("free", List({x.share(), z.share()}));
}

TEST_F(ScopeFnsTest, WithscopeAppliesSeveralArguments) {
  KRef f(khost::Function(2, [&](const std::vector<kabi::K>& args) -> kabi::K {
    khost::Result sum =
        Plugin().Call("add", KRef(kq::List({kabi::r1(args[0]), kabi::r1(args[1])})).get());
    return sum.value.release();
  }));
  KRef a = Call("tensor", "1 2");
  KRef r = Call("withscope", List({f.share(), a.share(), kq::Longs({10, 20})}));
  EXPECT_EQ(S1(Call("tensor", r)), "11 22");
  Call("free", List({a.share(), r.share()}));
}

TEST_F(ScopeFnsTest, AnErrorInsideWithscopeLeavesNoPointerBehind) {
  std::int64_t created = 0;
  KRef f(khost::Function(1, [&](const std::vector<kabi::K>&) -> kabi::K {
    khost::Result t = Plugin().Call("tensor", KRef(kq::Longs({1, 2})).get());
    created = PointerId(t.value);
    khost::Result bad =
        Plugin().Call("add", KRef(kq::List({t.value.share(), kq::Longs({1, 2, 3})})).get());
    static std::string message;
    message = bad.error;
    return kabi::krr(const_cast<char*>(message.c_str()));
  }));
  const std::string error = Error("withscope", List({f.share(), kq::Long(0)}));
  EXPECT_THAT(error, HasSubstr("must match the size"));  // libtorch's own text
  KRef t(kq::Enlist(kq::Long(created)));
  EXPECT_EQ(S1(Call("mapped", t)), "0b");
  EXPECT_EQ(S1(Call("setting", "`scope")), "0");
}

TEST_F(ScopeFnsTest, LeaksListsFreesAndChecksWhatCodeLeftBehind) {
  // q)c:leaks[]; t:tensor 1 2; leaks c   -> t's obj[] row; leaks(c;`free) -> 1
  KRef before = Call("tensor", "0");
  KRef c = Call("leaks");
  EXPECT_EQ(S1(Call("leaks", c)),
            "+`ptr`class`device`dtype`size`elements`bytes`scope`origin!"
            "(();`symbol$();`symbol$();`symbol$();();`long$();`long$();`long$();`symbol$())");
  KRef t = Call("tensor", "1 2");
  KRef m = Call("module", "(`linear;1;1)");
  const std::string rows = S1(Call("leaks", c));
  EXPECT_THAT(rows, HasSubstr(";`tensor`module;"));  // the class column
  EXPECT_THAT(rows, HasSubstr(";`tensor`module)"));  // the origin column: the creating calls
  EXPECT_EQ(S1(Call("leaks", List({c.share(), kq::Sym("free")}))), "2");
  EXPECT_EQ(S1(Call("mapped", t)), "0b");
  EXPECT_EQ(S1(Call("mapped", m)), "0b");
  EXPECT_EQ(S1(Call("mapped", before)), "1b");  // made before the checkpoint: not the code's
  // `check: `::` when clean; else frees and signals, naming each pointer's class and origin.
  EXPECT_EQ(S1(Call("leaks", List({c.share(), kq::Sym("check")}))), "::");
  KRef u = Call("tensor", "(`zeros;3)");
  EXPECT_EQ(Error("leaks", List({c.share(), kq::Sym("check")})),
            "leaks: 1 pointer(s) left behind, now freed: tensor from zeros; bytes left: cpu 12");
  EXPECT_EQ(S1(Call("mapped", u)), "0b");
  Call("free", before);
}

TEST_F(ScopeFnsTest, BadLeaksArguments) {
  EXPECT_EQ(Error("leaks", "-1"), "leaks: expecting a checkpoint from leaks[], given -1");
  EXPECT_EQ(Error("leaks", "(0;`keep)"), "leaks: expecting `free or `check, given `keep");
  EXPECT_THAT(Error("leaks", "(0;`free;1)"), HasSubstr("leaks"));
}

TEST_F(ScopeFnsTest, StrictSetting) {
  KRef all = Call("setting");
  EXPECT_EQ(S1(At(all, "strict")), "0b");
  EXPECT_EQ(S1(At(all, "scope")), "0");
  EXPECT_EQ(S1(At(all, "alloptions")), "1b");
  Call("setting", "(`strict;1b)");
  EXPECT_EQ(Error("tensor", "1 2"),
            "tensor: no open scope (strict setting): wrap tensor code in a scope");
  KRef s = Call("scope");
  KRef t = Call("tensor", "1 2");
  Call("endscope", s);
  Call("setting", "(`strict;0b)");
  EXPECT_EQ(Error("setting", "(`scope;2)"),
            "setting: `scope is read-only, it is the depth of the open scopes");
  EXPECT_EQ(Error("setting", "`fast"), "unrecognized configuration setting: fast");
}

TEST_F(ScopeFnsTest, BadScopeArguments) {
  EXPECT_EQ(Error("endscope", "0"), "endscope: expecting a scope id from scope[], given 0");
  EXPECT_EQ(Error("endscope", "12345"), "endscope: scope 12345 is not open on this thread");
  EXPECT_EQ(Error("withscope", "1"),
            "withscope: expecting (function; argument(s)), given long scalar");
}

}  // namespace plugin_scope_test
}  // namespace kscope::testing
