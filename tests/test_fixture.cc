#include "tests/test_fixture.h"

#include <cstdint>
#include <vector>

namespace kscope::testing {

at::Tensor Bools(std::initializer_list<int> values) {
  return at::tensor(std::vector<std::int64_t>(values.begin(), values.end())).to(at::kBool);
}

}  // namespace kscope::testing
