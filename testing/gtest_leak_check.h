// kscope::testing — leak checks for GoogleTest suites of code that uses kscope (link the CMake
// target kscope::testing; kscope::testing_main adds a main() with the listener installed).
//
// Two ways in, the same check (api/core/leak_check.h) around each test:
//   - LeakCheckedTest, a fixture: `class MyTest : public kscope::testing::LeakCheckedTest {};`
//   - LeakCheckListener, for every test of a binary whatever its fixture: call
//     kscope::testing::InstallLeakCheckListener() in main() before RUN_ALL_TESTS (or link
//     kscope::testing_main).
// A test that leaves a handle alive or a scope open fails, its message listing the obj rows
// (class, device, size, creating call, owner); the check then closes those scopes, frees those
// handles and restores strict mode, so one leaking test does not fail the next.
//
// Thread-safety: tests run on GoogleTest's main thread; a test that starts threads must join
// them before it ends (their leaked handles are found, their open scopes are not).
#ifndef KSCOPE_TESTING_GTEST_LEAK_CHECK_H_
#define KSCOPE_TESTING_GTEST_LEAK_CHECK_H_

#include <optional>

#include <gtest/gtest.h>

#include "api/core/leak_check.h"

namespace kscope::testing {

// The check of one test: Begin() before it, End() after it (adding a GoogleTest failure for a
// leak, then cleaning up).
class TestLeakCheck {
 public:
  void Begin();
  void End();

 private:
  std::optional<LeakCheck> check_;
  bool strict_ = false;
};

class LeakCheckedTest : public ::testing::Test {
 protected:
  void SetUp() override { check_.Begin(); }
  void TearDown() override { check_.End(); }

 private:
  TestLeakCheck check_;
};

class LeakCheckListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo&) override { check_.Begin(); }
  void OnTestEnd(const ::testing::TestInfo&) override { check_.End(); }

 private:
  TestLeakCheck check_;
};

// Appends a LeakCheckListener to GoogleTest's listeners (which own it). Call once, after
// ::testing::InitGoogleTest.
void InstallLeakCheckListener();

}  // namespace kscope::testing

#endif  // KSCOPE_TESTING_GTEST_LEAK_CHECK_H_
