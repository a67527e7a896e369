// Faults through the plugin (issue 20): a q error raised by a callback module's q function at
// each of its calls in an epoch. run fails with the callback's error, nothing is left behind (no
// pointer, no k object: the fixture's checks), the data is whole again, and the model trains on.
// A q error inside withscope: ScopeFnsTest.AnErrorInsideWithscopeLeavesNoPointerBehind.
#include <string>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_fault_injection_test {

using ::testing::HasSubstr;

using PluginFaultInjectionTest = PluginTest;

// 16 rows of 4 features, row i's features i%5 .. i%5+3 scaled, and classes i%3, as q literals.
std::string Features() {
  std::string rows;
  for (int i = 0; i < 16; ++i) {
    rows += (i ? ";" : "(");
    for (int j = 0; j < 4; ++j) rows += std::to_string(0.1 * (i % 5 + j)).substr(0, 4) + " ";
    rows.back() = 'e';
  }
  return rows + ")";
}
std::string Classes() {
  std::string classes;
  for (int i = 0; i < 16; ++i) classes += std::to_string(i % 3) + " ";
  classes.back() = 'j';
  return classes;
}

TEST_F(PluginFaultInjectionTest, QErrorFromACallbackAtEachOfItsCallsInAnEpoch) {
  int calls = 0, fail_at = 0;
  const char* kFn = "{[m;x]mul(x;1e)}";
  khost::Define(kFn, [&](const std::vector<kabi::K>& args) -> kabi::K {
    if (++calls == fail_at) return kabi::krr(const_cast<char*>("refused by the callback"));
    return Call("mul", List({kabi::r1(args[1]), Q("1e").release()})).release();
  });
  KRef q = Call("module", Call("seq",
                               "(`sequential;(`linear;4;8);(`callback;`cb;\"{[m;x]mul(x;1e)}\");"
                               "`relu;(`linear;8;3))"));
  KRef m =
      Call("model", List({q.share(), Call("loss", "`ce").share(), Call("opt", "`sgd").share()}));
  Call("train", List({m.share(), kq::Sym("batchsize"), Q("8").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), Q(Features()).share(), Q(Classes()).share()}))), "2");
  Call("run", m);
  ASSERT_EQ(calls, 2);  // one forward per batch
  for (int n = 1; n <= 2; ++n) {
    calls = 0;
    fail_at = n;
    EXPECT_THAT(Error("run", m), HasSubstr("refused by the callback"));
    EXPECT_EQ(S1(Call("datasize", m)), "16");
  }
  fail_at = 0;
  for (int epoch = 0; epoch < 3; ++epoch) Call("run", m);
  khost::Undefine(kFn);
  Call("free", m);
}

}  // namespace plugin_fault_injection_test
}  // namespace kscope::testing
