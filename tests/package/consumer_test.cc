// A GoogleTest suite of a project that uses kscope, under the leak-check kit: linked with
// kscope::testing_main, every test runs under its listener; FixtureTest also uses the fixture.
// ConsumerTest.LeaksOnPurpose leaks a handle: the package's tests expect it to fail with the
// handle's row (tests/package/CMakeLists.txt), proving the kit catches a leak.
#include <gtest/gtest.h>

#include <kscope/kscope.h>
#include <kscope/testing/gtest_leak_check.h>

namespace {

TEST(ConsumerTest, ScopedHandlesAreNotLeaks) {
  auto scope = kscope::Scope::Open();
  const kscope::Handle x = kscope::ones({2, 2});
  EXPECT_EQ(kscope::elements(x), 4);
}

TEST(ConsumerTest, LeaksOnPurpose) {
  const kscope::Handle leaked = kscope::zeros({2, 3});  // never freed, in no scope
  EXPECT_TRUE(kscope::mapped(leaked));
}

class FixtureTest : public kscope::testing::LeakCheckedTest {};

TEST_F(FixtureTest, WithScopeHandsOffAndFrees) {
  const kscope::Handle kept = kscope::with_scope([] { return kscope::ones({3}); });
  EXPECT_TRUE(kscope::mapped(kept));
  kscope::free(kept);
}

}  // namespace
