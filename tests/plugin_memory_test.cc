// Memory through the plugin (issue 45, q/env/memory_fns.cc): devicememory[] and
// devicememory`cpu, resetpeaks, emptycache, memorylimit, scope`footprint with footprint s and
// footprint[], setting`footprint, the bytes a leak left in leaks' check, and a q session that
// runs out of memory in run and trains on once the limit is lifted.
#include <string>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_memory_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using MemoryFnsTest = PluginTest;

constexpr long long kMiB = 1 << 20;

// The first row's value in column `name` of a table of longs.
long long FirstOf(const KRef& table, const char* name) {
  KRef column = At(kabi::TableDict(table.get()), name);
  EXPECT_EQ(column->t, kabi::kLong) << name;
  return column->t == kabi::kLong ? kabi::Longs(column.get())[0] : 0;
}

TEST_F(MemoryFnsTest, DeviceMemoryTableAndOneDevicesDictionary) {
  KRef table = Call("devicememory");
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::TableDict(table.get()))))),
            "`device`allocated`reserved`peakallocated`peakreserved`allocations`allocatedtotal"
            "`freedtotal");
  EXPECT_THAT(S1(At(kabi::TableDict(table.get()), "device")),  // the cpu first
              ::testing::MatchesRegex(",?`cpu(`cuda:[0-9]+)*"));
  const long long before = At(Call("devicememory", "`cpu"), "allocated")->j;
  KRef t = Call("tensor", "(`zeros;262144)");  // 1 MiB of floats
  KRef cpu = Call("devicememory", "`cpu");
  EXPECT_EQ(S1(At(cpu, "device")), "`cpu");
  EXPECT_EQ(At(cpu, "allocated")->j - before, kMiB);
  EXPECT_EQ(At(cpu, "reserved")->j, At(cpu, "allocated")->j);
  EXPECT_GE(FirstOf(Call("devicememory"), "allocations"), 1);
  Call("free", t);
  EXPECT_FALSE(Call("resetpeaks"));
  KRef reset = Call("devicememory", "`cpu");
  EXPECT_EQ(At(reset, "peakallocated")->j, At(reset, "allocated")->j);
  EXPECT_FALSE(Call("emptycache"));
  EXPECT_EQ(Error("devicememory", "`gpu"),
            "devicememory: expecting a device, e.g. `cpu or `cuda:0, given `gpu");
  EXPECT_THAT(Error("resetpeaks", "1"), HasSubstr("resetpeaks"));
}

TEST_F(MemoryFnsTest, FootprintOfATrackedScopeWhileOpenAndAfter) {
  KRef s = Call("scope", "`footprint");
  Call("tensor", "(`zeros;262144)");
  EXPECT_GE(FirstOf(Call("footprint", s), "allocated"), kMiB);
  Call("endscope", s);
  KRef closed = Call("footprint");
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::TableDict(closed.get()))))),
            "`device`start`allocated`freed`peak`now");
  EXPECT_GE(FirstOf(closed, "freed"), kMiB);  // the tensor freed as the scope closed
  EXPECT_GE(FirstOf(closed, "peak") - FirstOf(closed, "start"), kMiB);
  KRef plain = Call("scope");
  EXPECT_THAT(Error("footprint", plain), HasSubstr("does not track its footprint"));
  Call("endscope", plain);
  EXPECT_EQ(Error("scope", "`memory"),
            "scope: expecting no argument or `footprint, given symbol scalar");
  EXPECT_EQ(S1(Call("setting", "`footprint")), "0b");
  Call("setting", "(`footprint;1b)");
  EXPECT_EQ(S1(Call("setting", "`footprint")), "1b");
  Call("setting", "(`footprint;0b)");
}

TEST_F(MemoryFnsTest, LeaksCheckNamesTheBytesLeft) {
  // README's session: f:{[x] t:tensor(`randn;1000 1000); mean t} leaves t and its mean behind.
  KRef c = Call("leaks");
  KRef t = Call("tensor", "(`randn;1000 1000)");
  KRef r = Call("mean", t);
  EXPECT_EQ(Error("leaks", List({c.share(), kq::Sym("check")})),
            "leaks: 2 pointer(s) left behind, now freed: tensor from randn, tensor from mean; "
            "bytes left: cpu 4000004");
}

TEST_F(MemoryFnsTest, RunOutOfMemoryThenTrainOn) {
  // q)q:module seq(`sequential;(`linear;8;256);`relu;(`linear;256;3))
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;8;256);`relu;(`linear;256;3))"));
  KRef m = Call("model", List({q.share(), Call("loss", "`ce").share(),
                               Call("opt", List({kq::Sym("adam"), q.share()})).share()}));
  Call("train", List({m.share(), kq::Sym("batchsize"), Q("32").share()}));
  KRef x = Call("tensor", "(`randn;128 8)");
  KRef y = Call("tensor", "(`randint;3;128)");
  Call("train", List({m.share(), x.share(), y.share()}));
  EXPECT_EQ(S1(Call("memorylimit", "`cpu")), "0N");
  const long long held = At(Call("devicememory", "`cpu"), "allocated")->j;
  Call("memorylimit", List({kq::Sym("cpu"), kq::Long(held + 1024)}));
  EXPECT_EQ(Call("memorylimit", "`cpu")->j, held + 1024);
  EXPECT_THAT(Error("run", m), StartsWith("run: out of memory on cpu: tried to allocate "));
  EXPECT_THAT(Error("forward", m), StartsWith("forward: out of memory on cpu: tried to allocate "));
  Call("memorylimit", "(`cpu;0N)");
  EXPECT_EQ(S1(Call("memorylimit", "`cpu")), "0N");
  EXPECT_EQ(S1(Call("datasize", m)), "128");
  const auto loss = [&] {  // run's mean loss: a real on the 2.x line, a float on 1.13
    KRef r = Call("run", m);
    return r->t == -kabi::kReal ? double{r->e} : r->f;
  };
  const double first = loss();
  for (int epoch = 0; epoch < 10; ++epoch) loss();
  EXPECT_LT(loss(), first);
  EXPECT_EQ(Error("memorylimit", "(`cpu;-1)"), "memory limit: expecting bytes >= 0, given -1");
  Call("free", List({m.share(), x.share(), y.share()}));
}

}  // namespace plugin_memory_test
}  // namespace kscope::testing
