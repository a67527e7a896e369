// main() for GoogleTest binaries of code that uses kscope (CMake target kscope::testing_main):
// every test runs under the leak check of testing/gtest_leak_check.h.
#include <gtest/gtest.h>

#include "testing/gtest_leak_check.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  kscope::testing::InstallLeakCheckListener();
  return RUN_ALL_TESTS();
}
