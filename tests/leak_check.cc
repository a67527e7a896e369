#include "tests/leak_check.h"

#include <ATen/ops/empty.h>

namespace kscope::testing {

at::Tensor Bools(std::initializer_list<int> values) {
  return at::tensor(std::vector<std::int64_t>(values.begin(), values.end())).to(at::kBool);
}

std::string LeakedRows(std::uint64_t after) {
  std::vector<ObjectRow> leaked;
  for (ObjectRow& row : obj()) {
    if (row.ptr.id() > after) leaked.push_back(std::move(row));
  }
  return leaked.empty() ? std::string() : FormatObjects(leaked);
}

std::uint64_t HighestHandleId() {
  const Handle probe = tensor(at::empty({0}));
  kscope::free(probe);
  return probe.id();
}

void LeakCheckTest::SetUp() {
  strict_ = Strict();
  depth_ = ScopeDepth();
  first_id_ = HighestHandleId();
}

void LeakCheckTest::TearDown() {
  const int depth = ScopeDepth();
  EXPECT_EQ(depth, depth_) << "the test left " << depth - depth_ << " scope(s) open";
  std::vector<ScopeId> open = OpenScopes();
  while (static_cast<int>(open.size()) > depth_) {
    CloseScopeNoThrow(open.back(), {});
    open.pop_back();
  }
  const std::string leaked = LeakedRows(first_id_);
  EXPECT_TRUE(leaked.empty()) << "handles created by the test are still alive:\n" << leaked;
  std::vector<Handle> handles;
  for (const ObjectRow& row : obj()) {
    if (row.ptr.id() > first_id_) handles.push_back(row.ptr);
  }
  kscope::free(handles);
  SetStrict(strict_);
}

}  // namespace kscope::testing
