#include "testing/gtest_leak_check.h"

#include "scope/scope_stack.h"

namespace kscope::testing {

void TestLeakCheck::Begin() {
  strict_ = Strict();
  check_.emplace();
}

void TestLeakCheck::End() {
  if (!check_) return;
  const std::string report = check_->Report();
  if (!report.empty()) ADD_FAILURE() << "kscope leak check: the test left behind\n" << report;
  check_->Release();
  check_.reset();
  SetStrict(strict_);
}

void InstallLeakCheckListener() {
  ::testing::UnitTest::GetInstance()->listeners().Append(new LeakCheckListener);
}

}  // namespace kscope::testing
