// LeakCheckTest — the fixture every kscope test uses.
//
// Before a test it records the highest handle id issued so far, this thread's scope depth and
// the strict setting; after the test it fails, printing the obj rows, if any handle created
// during the test is still alive, or if the test left a scope open. It then releases the
// leaked handles, closes leftover scopes and restores strict mode, so one leaking test does not
// cascade into the next. Single-threaded use: a test that starts threads must join them.
#ifndef KSCOPE_TESTS_LEAK_CHECK_H_
#define KSCOPE_TESTS_LEAK_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kscope/kscope.h"

namespace kscope::testing {

// The rows of handles with id > `after` that are alive now (FormatObjects); empty if none.
std::string LeakedRows(std::uint64_t after);
// The highest handle id issued so far (0 if none): a fresh handle is registered to learn it,
// then freed.
std::uint64_t HighestHandleId();
// A bool tensor from 0/1 values (libtorch 1.13's at::tensor has no bool overload).
at::Tensor Bools(std::initializer_list<int> values);

class LeakCheckTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

 private:
  std::uint64_t first_id_ = 0;
  int depth_ = 0;
  bool strict_ = false;
};

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_LEAK_CHECK_H_
