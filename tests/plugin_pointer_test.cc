// Seed 000 (ktorch's pointers page) and seed 001 (overview) as q sessions through the k host:
// the plugin is loaded with dlopen and called exactly as q calls it.
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_pointer_test {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

using PointerSeedTest = PluginTest;
using OverviewSeedTest = PluginTest;

TEST_F(PointerSeedTest, PointersAreEnlistedLongs) {
  // q)t:tensor 1 2 3   type t -> 0h   type each t -> ,-7h   0N!t -> ,68610912
  KRef t = Call("tensor", "1 2 3");
  EXPECT_EQ(t->t, 0);
  EXPECT_EQ(t->n, 1);
  EXPECT_EQ(kabi::Items(t.get())[0]->t, -kabi::kLong);
  EXPECT_THAT(S1(t), MatchesRegex(",[0-9]+"));
  Call("free", t);
}

TEST_F(PointerSeedTest, ListsKeepPointersJoinsDoNot) {
  // q)class each (a;v) -> `tensor`vector
  // q)class each a,v -> 'class: need allocated torch object, e.g. tensor, module, given long scalar
  KRef a = Call("tensor", "1 2 3");
  KRef v = Call("vector", "(4 5;6 7 8)");
  EXPECT_EQ(S1(Each("class", {&a, &v})), "`tensor`vector");
  // q)0N!(a;v); -> (,48128768;,48129232)    q)0N!a,v; -> (48128768;48129232)
  EXPECT_THAT(S1(List({a.share(), v.share()})), MatchesRegex("\\(,[0-9]+;,[0-9]+\\)"));
  KRef joined = List({kabi::r1(kabi::Items(a.get())[0]), kabi::r1(kabi::Items(v.get())[0])});
  EXPECT_THAT(S1(joined), MatchesRegex("\\([0-9]+;[0-9]+\\)"));  // a general list of long atoms
  KRef first(kabi::r1(kabi::Items(joined.get())[0]));            // each item of a,v is a long atom
  EXPECT_EQ(Error("class", first),
            "class: need allocated torch object, e.g. tensor, module, given long scalar");
  Call("free", List({a.share(), v.share()}));
}

TEST_F(PointerSeedTest, ObjTable) {
  // q)t:tensor 1 2 3.0  v:vector(1 2;3 4 5e)  d:dict `a`b!(0101b; 3 4#til 12)  obj[]
  KRef t = Call("tensor", "1 2 3.0");
  KRef v = Call("vector", "(1 2;3 4 5e)");
  KRef d = Call("dict", "`a`b!(0101b;(0 1 2 3;4 5 6 7;8 9 10 11))");
  KRef table = Call("obj");
  EXPECT_EQ(table->t, kabi::kTable);
  khost::NormalizeOptions volatile_ids;
  volatile_ids.volatile_numbers = {std::to_string(PointerId(t)), std::to_string(PointerId(v)),
                                   std::to_string(PointerId(d))};
  const std::string shown = khost::Normalize(khost::Show(table.get()), volatile_ids);
  EXPECT_EQ(shown,
            "ptr class device dtype size elements bytes scope origin\n"
            "-\n"
            ",<ptr> tensor cpu double ,3 3 24 0 tensor\n"
            ",<ptr> vector cpu 2 5 28 0 vector\n"
            ",<ptr> dictionary cpu 2 16 100 0 dict");
  EXPECT_EQ(Error("obj", "1"), "obj: empty arg expected");
  Call("free");
}

TEST_F(PointerSeedTest, FreeOneThenAll) {
  // q)a:tensor 1 2 3  v:vector(4 5;6 7 8)  free v  obj[]  class v -> 'stale pointer  free[]
  KRef a = Call("tensor", "1 2 3");
  KRef v = Call("vector", "(4 5;6 7 8)");
  Call("free", v);
  EXPECT_EQ(Error("class", v), "stale pointer");
  KRef rows = Call("obj");
  EXPECT_EQ(kabi::Items(kabi::DictValues(kabi::TableDict(rows.get())))[0]->n, 1);
  Call("free");
  KRef none = Call("obj");
  EXPECT_EQ(kabi::Items(kabi::DictValues(kabi::TableDict(none.get())))[0]->n, 0);
}

TEST_F(PointerSeedTest, FreeListsAndDictionaries) {
  // q)a:tensor 1 2 3; b:tensor 4 5   free each(a;b) -> ::  ::    free(a;b)
  KRef a = Call("tensor", "1 2 3");
  KRef b = Call("tensor", "4 5");
  EXPECT_EQ(S1(Each("free", {&a, &b})), "(::;::)");
  a = Call("tensor", "1 2 3");
  b = Call("tensor", "4 5");
  KRef both = List({a.share(), b.share()});
  Call("free", both);
  EXPECT_EQ(Error("free", both), "free: stale pointer, element[0] of given list");
  EXPECT_EQ(Error("free", "(1;`a)"),
            "free: expecting pytorch object but element[0] is long scalar");
  EXPECT_EQ(Error("free", "`a"),
            "free: expecting pytorch object or list/dictionary of objects, given symbol scalar");
  KRef c = Call("tensor", "1");
  KRef named(kq::Dict(kq::Syms({"x", "y"}), kq::List({c.share(), a.share()})));
  EXPECT_EQ(Error("free", named), "free: stale pointer, key[`y] of given dictionary");
  EXPECT_EQ(S1(Call("mapped", c)), "1b");  // nothing was freed
  KRef only(kq::Dict(kq::Syms({"x"}), kq::List({c.share()})));
  Call("free", only);
  EXPECT_EQ(S1(Call("mapped", c)), "0b");
}

TEST_F(PointerSeedTest, ReturnGivesValuesThenFrees) {
  // q)x:tensor(1.2 1.9 3.1;`grad)  y:tensor 1.0 2.0 3.0  z:mse  backward z  return z -> 0.02
  KRef x = Call("tensor", "(1.2 1.9 3.1;`grad)");
  KRef y = Call("tensor", "1.0 2.0 3.0");
  KRef diff = Call("sub", List({x.share(), y.share()}));
  KRef square = Call("pow", List({diff.share(), kq::Long(2)}));
  KRef z = Call("mean", square);
  Call("backward", z);
  KRef r = Call("return", z);
  EXPECT_EQ(S1(r), "0.02");
  EXPECT_EQ(Error("return", z), "stale pointer");
  EXPECT_EQ(Error("return", "1 2"),
            "return: expecting tensor, vector or dictionary, given long list");
  Call("free", List({x.share(), y.share(), diff.share(), square.share()}));
}

TEST_F(PointerSeedTest, Mapped) {
  // q)t:tensor 1 2 3  mapped t -> 1b  free t  mapped t -> 0b  mapped "string" -> 0b
  KRef t = Call("tensor", "1 2 3");
  EXPECT_EQ(S1(Call("mapped", t)), "1b");
  Call("free", t);
  EXPECT_EQ(S1(Call("mapped", t)), "0b");
  EXPECT_EQ(S1(Call("mapped", "\"string\"")), "0b");
}

TEST_F(PointerSeedTest, PtrIsSharedByAddref) {
  KRef t = Call("tensor", "1 2 3");
  KRef u = Call("addref", t);
  EXPECT_NE(PointerId(t), PointerId(u));
  EXPECT_EQ(S1(Call("ptr", t)), S1(Call("ptr", u)));
  EXPECT_EQ(Error("addref", "1"), "addref not implemented for long scalar");
  Call("free", List({t.share(), u.share()}));
}

TEST_F(PointerSeedTest, DeviceDtypeSizeElementsBytes) {
  // q)t:tensor 1 2 3.0  dtype t -> `double   device each(t) -> `cpu
  // q)t:tensor(`randn; 64 128)  size t -> 64 128  elements 8192  bytes 32768  tensorcount 1
  KRef t = Call("tensor", "1 2 3.0");
  EXPECT_EQ(S1(Call("dtype", t)), "`double");
  EXPECT_EQ(S1(Call("device", t)), "`cpu");
  KRef r = Call("tensor", "(`randn;64 128)");
  EXPECT_EQ(S1(Call("size", r)), "64 128");
  EXPECT_EQ(S1(Call("elements", r)), "8192");
  EXPECT_EQ(S1(Call("bytes", r)), "32768");
  EXPECT_EQ(S1(Call("tensorcount", r)), "1");
  KRef d = Call("dict", "`a`b!(1 2e;3 4 5)");
  EXPECT_EQ(S1(Call("dtype", d)), "`a`b!`float`long");
  EXPECT_EQ(S1(Call("size", d)), "`a`b!(,2;,3)");
  Call("free", List({t.share(), r.share(), d.share()}));
}

TEST_F(PointerSeedTest, RefAndAddrefIntoAVector) {
  // q)a:tensor 0101b  b:tensor til 9  v:vector(a; addref b)  ref a -> 'stale pointer
  // q)ref b -> 2   free v   ref b -> 1
  KRef a = Call("tensor", "0101b");
  KRef b = Call("tensor", "0 1 2 3 4 5 6 7 8");
  KRef v = Call("vector", List({a.share(), Call("addref", b).release()}));
  EXPECT_EQ(Error("ref", a), "stale pointer");
  EXPECT_EQ(S1(Call("ref", b)), "2");
  Call("free", v);
  EXPECT_EQ(S1(Call("ref", b)), "1");
  Call("free", b);
}

TEST_F(PointerSeedTest, UseReplacesAPointersObject) {
  // q)a:tensor 1 2 3  b:tensor 010101b  use[a]b  tensor a -> 010101b  tensor b -> 'stale pointer
  KRef a = Call("tensor", "1 2 3");
  KRef b = Call("tensor", "010101b");
  EXPECT_FALSE(Use(a, b));  // ::
  EXPECT_EQ(S1(Call("tensor", a)), "010101b");
  EXPECT_EQ(Error("tensor", b), "stale pointer");
  // q)seed 123  use[a]tensor(`rand;2 3)  obj[] -> one float tensor 2 3, 6 elements, 24 bytes
  Call("seed", "123");
  Use(a, Call("tensor", "(`rand;2 3)"));
  KRef rows = Call("obj");
  KRef columns(kabi::r1(kabi::DictValues(kabi::TableDict(rows.get()))));
  EXPECT_EQ(kabi::Items(columns.get())[0]->n, 1);
  EXPECT_EQ(khost::S1(kabi::Items(columns.get())[4]), ",2 3");
  EXPECT_EQ(khost::S1(kabi::Items(columns.get())[6]), ",24");
  // use[a; k data] converts the data
  Use(a, Q("1 2e"));
  EXPECT_EQ(S1(Call("tensor", a)), "1 2e");
  khost::Result bad = Plugin().Call("use", std::vector<kabi::K>{Q("1").get(), a.get()});
  EXPECT_EQ(bad.error, "use: 1st arg must be tensor, vector or dictionary");
  Call("free", a);
}

TEST_F(PointerSeedTest, StrIsLibtorchsPrintout) {
  KRef t = Call("tensor", "(`randn;2 3)");
  KRef s = Call("str", t);
  EXPECT_EQ(s->t, kabi::kChar);
  EXPECT_THAT(S1(s), HasSubstr("[ CPUFloatType{2,3} ]"));
  EXPECT_EQ(Error("str", "1"),
            "str: need allocated torch object, e.g. tensor, module, given long scalar");
  Call("free", t);
}

TEST_F(OverviewSeedTest, FnsListsTheApi) {
  // q)f:key{key[x]set'x}(`ktorch 2:`fns,1)[]   f -> `dv`tree`addref`free`return`use`obj...
  const std::vector<std::string> names = Plugin().Names();
  for (const char* name :
       {"addref", "free", "return", "use", "obj", "tensorcount", "to", "info", "tensor", "vector",
        "dict", "mul", "mean", "backward", "grad", "scope", "endscope", "withscope", "setting"}) {
    EXPECT_THAT(names, ::testing::Contains(name));
  }
  EXPECT_EQ(Plugin().Rank("use"), 2);
  EXPECT_EQ(Plugin().Rank("tensor"), 1);
}

TEST_F(OverviewSeedTest, GradientOfAMeanOfSquares) {
  // q)x:tensor(1 2 3.0; `grad)  y:mul(x;x)  z:mean(y)  backward z  grad x
  // 0.6666667 1.333333 2   q)free(x;y;z)
  KRef x = Call("tensor", "(1 2 3.0;`grad)");
  KRef y = Call("mul", List({x.share(), x.share()}));
  KRef z = Call("mean", y);
  Call("backward", z);
  EXPECT_EQ(S1(Call("grad", x)), "0.6666667 1.333333 2");
  Call("free", List({x.share(), y.share(), z.share()}));
}

TEST_F(OverviewSeedTest, TensorsOnTheGpu) {
  // q)x:tensor(1 2 3e; `cuda)  device x -> `cuda:0   y:tensor 4 5  to(y;`cuda)  device y -> `cuda:0
  if (S1(Call("device")) != "`cuda")
    GTEST_SKIP() << "no CUDA device: the plugin's device[] is `cpu";
  KRef x = Call("tensor", "(1 2 3e;`cuda)");
  EXPECT_EQ(S1(Call("device", x)), "`cuda:0");
  KRef y = Call("tensor", "4 5");
  Call("to", List({y.share(), kq::Sym("cuda")}));
  EXPECT_EQ(S1(Call("device", y)), "`cuda:0");
  EXPECT_EQ(S1(Call("tensor", y)), "4 5");
  Call("free", List({x.share(), y.share()}));
}

TEST_F(OverviewSeedTest, DefaultDeviceAndDtype) {
  EXPECT_THAT(S1(Call("device")), MatchesRegex("`cpu|`cuda"));
  EXPECT_EQ(S1(Call("dtype")), "`float");
  Call("dtype", "`double");
  KRef t = Call("tensor", "(`zeros;2)");
  EXPECT_EQ(S1(Call("dtype", t)), "`double");
  Call("dtype", "`float");
  EXPECT_EQ(Error("dtype", "`long"), "dtype: default must be a floating point type, given long");
  EXPECT_EQ(Error("dtype", "`huge"), "dtype: unrecognized dtype `huge");
  Call("free", t);
}

TEST_F(OverviewSeedTest, DataInDataOut) {
  EXPECT_EQ(S1(Call("mul", "(1 2 3.0;2.0)")), "2 4 6f");
  EXPECT_EQ(S1(Call("Sum", "1 2 3")), "6");
  // the value and its index as one list, as the real ktorch gives them (tests/differential)
  EXPECT_EQ(S1(Call("Max", "(3 1 2;0)")), "3 0");
}

}  // namespace plugin_pointer_test
}  // namespace kscope::testing
