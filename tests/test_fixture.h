// The fixture every kscope test uses, and helpers the tests share.
//
// LeakCheckTest is the installed kit's fixture (testing/gtest_leak_check.h): a test fails if it
// leaves a handle alive or a scope open, with the obj rows of what it left; the kit then cleans
// up so one leaking test does not cascade into the next. kscope_tests also runs every test
// under the kit's listener (kscope::testing_main), so plain TEST()s are checked too.
#ifndef KSCOPE_TESTS_TEST_FIXTURE_H_
#define KSCOPE_TESTS_TEST_FIXTURE_H_

#include <initializer_list>

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kscope/kscope.h"
#include "testing/gtest_leak_check.h"

namespace kscope::testing {

using LeakCheckTest = LeakCheckedTest;

// A bool tensor from 0/1 values (libtorch 1.13's at::tensor has no bool overload).
at::Tensor Bools(std::initializer_list<int> values);

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_TEST_FIXTURE_H_
