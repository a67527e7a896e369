// runtime/: the handle table, objects and accounting, without scope policy.
#include <memory>

#include <ATen/ops/arange.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>

#include "runtime/accounting.h"
#include "runtime/handle_table.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace runtime_test {

using ::testing::ElementsAre;
using testing::LeakCheckTest;

// A stand-in for the module/loss/optimizer/model wrappers of later issues: proves the table
// holds composites through the CompositeObject interface.
class FakeModule : public CompositeObject {
 public:
  explicit FakeModule(std::shared_ptr<std::vector<at::Tensor>> parameters)
      : parameters_(std::move(parameters)) {}
  ObjectClass object_class() const override { return ObjectClass::kModule; }
  std::vector<at::Tensor> tensors() const override { return *parameters_; }
  std::int64_t parameter_count() const override {
    return static_cast<std::int64_t>(parameters_->size());
  }
  const void* address() const override { return parameters_.get(); }
  long use_count() const override { return parameters_.use_count(); }
  std::string str() const override { return "FakeModule()"; }
  void MoveTo(std::optional<c10::Device>, std::optional<c10::ScalarType>) override {}
  std::shared_ptr<CompositeObject> share() const override {
    return std::make_shared<FakeModule>(parameters_);
  }

 private:
  std::shared_ptr<std::vector<at::Tensor>> parameters_;
};

using AccountingTest = LeakCheckTest;
using NamesTest = LeakCheckTest;

class HandleTableTest : public LeakCheckTest {
 protected:
  HandleTable table_;  // a private table: these tests see only their own entries
};

TEST_F(HandleTableTest, IdsAreNeverReused) {
  Handle a = table_.Add(Object(at::zeros({1})), kRootOwner, 0, "test");
  table_.Release(a);
  Handle b = table_.Add(Object(at::zeros({1})), kRootOwner, 0, "test");
  EXPECT_NE(a, b);
  EXPECT_FALSE(table_.Contains(a));
  EXPECT_THROW(table_.Get(a), Error);
  try {
    table_.Release(a);
    FAIL() << "released a stale handle";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "stale pointer");
  }
  table_.Release(b);
  EXPECT_EQ(table_.size(), 0u);
}

TEST_F(HandleTableTest, IdsGrowAndOnlyHandedOutIdsAreLive) {
  Handle a = table_.Add(Object(at::zeros({1})), kRootOwner, 0, "test");
  Handle b = table_.Add(Object(TensorVector{at::zeros({1})}), kRootOwner, 0, "test");
  EXPECT_LT(a, b);
  EXPECT_EQ(table_.LastId(), b.id());
  EXPECT_EQ(table_.ClassOf(b), ObjectClass::kVector);
  table_.Release(a);
  Handle c = table_.Add(Object(at::zeros({1})), kRootOwner, 0, "test");  // a's place reused
  EXPECT_LT(b, c);
  EXPECT_FALSE(table_.Contains(a));
  EXPECT_EQ(table_.ClassOf(a), std::nullopt);
  // Ids never handed out — near the live ones, zero, the largest — name nothing.
  for (Handle forged : {Handle(c.id() + 1), Handle(c.id() - 1), Handle(b.id() + 1), Handle(),
                        Handle(~std::uint64_t{0})}) {
    EXPECT_FALSE(table_.Contains(forged)) << forged;
    EXPECT_THROW(table_.Release(forged), Error) << forged;
  }
  const auto rows = table_.Snapshot();  // in creation order
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].first.handle, b);
  EXPECT_EQ(rows[1].first.handle, c);
  table_.Release(b);
  table_.Release(c);
  EXPECT_EQ(table_.size(), 0u);
}

TEST_F(HandleTableTest, EntryHoldsExactlyOneReference) {
  at::Tensor t = at::zeros({3});
  Handle h = table_.Add(Object(t), kRootOwner, 0, "test");
  EXPECT_EQ(t.use_count(), 2u);  // t and the entry
  long seen = 0;
  table_.Read(h, [&](const Object& o) { seen = static_cast<long>(o.tensor()->use_count()); });
  EXPECT_EQ(seen, 2);
  table_.Release(h);
  EXPECT_EQ(t.use_count(), 1u);
}

TEST_F(HandleTableTest, ReleaseOwnedGoesNewestFirstAndSkipsDeparted) {
  std::vector<Handle> hs;
  for (int i = 0; i < 5; ++i) hs.push_back(table_.Add(Object(at::full({1}, i)), 7, 1, "test"));
  table_.Release(hs[1]);
  EXPECT_TRUE(table_.MoveIfOwnedBy(hs[3], 7, kRootOwner, 0));
  EXPECT_FALSE(table_.MoveIfOwnedBy(hs[3], 7, kRootOwner, 0));  // no longer owned by 7
  std::vector<Object> released = table_.ReleaseOwned(7);
  ASSERT_EQ(released.size(), 3u);
  EXPECT_EQ(released[0].tensor()->item<int>(), 4);
  EXPECT_EQ(released[1].tensor()->item<int>(), 2);
  EXPECT_EQ(released[2].tensor()->item<int>(), 0);
  EXPECT_TRUE(table_.Contains(hs[3]));
  EXPECT_EQ(table_.Info(hs[3]).owner, kRootOwner);
  table_.Release(hs[3]);
}

TEST_F(HandleTableTest, OwnerListsStayCompactUnderChurn) {
  // A loop that creates and frees at the root must not grow anything without bound; the
  // survivors are still released in order afterwards.
  Handle keep = table_.Add(Object(at::zeros({1})), 9, 1, "test");
  for (int i = 0; i < 10000; ++i) table_.Release(table_.Add(Object(at::zeros({1})), 9, 1, "test"));
  Handle last = table_.Add(Object(at::ones({1})), 9, 1, "test");
  std::vector<Object> released = table_.ReleaseOwned(9);
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(released[0].tensor()->item<float>(), 1.0f);
  EXPECT_FALSE(table_.Contains(keep));
  EXPECT_FALSE(table_.Contains(last));
}

TEST_F(HandleTableTest, ConsumeIsAllOrNothing) {
  Handle a = table_.Add(Object(at::zeros({1})), kRootOwner, 0, "test");
  Handle b = table_.Add(Object(at::zeros({2})), kRootOwner, 0, "test");
  Handle stale = table_.Add(Object(at::zeros({3})), kRootOwner, 0, "test");
  table_.Release(stale);
  std::vector<Object> released;
  EXPECT_THROW(
      table_.Consume({a, stale, b}, Object(TensorVector{}), kRootOwner, 0, "vector", &released),
      Error);
  EXPECT_TRUE(table_.Contains(a));
  EXPECT_TRUE(table_.Contains(b));
  EXPECT_EQ(table_.size(), 2u);
  Handle v = table_.Consume({a, b}, Object(TensorVector{}), kRootOwner, 0, "vector", &released);
  EXPECT_EQ(released.size(), 2u);
  EXPECT_FALSE(table_.Contains(a));
  EXPECT_EQ(table_.Info(v).object_class, ObjectClass::kVector);
  EXPECT_STREQ(table_.Info(v).origin, "vector");
  table_.Release(v);
}

TEST_F(HandleTableTest, TransferMovesSourceIntoDestination) {
  Handle a = table_.Add(Object(at::zeros({1})), 3, 1, "a");
  Handle b = table_.Add(Object(at::ones({2})), kRootOwner, 0, "b");
  Object old = table_.Transfer(b, a);
  EXPECT_EQ(old.tensor()->numel(), 1);
  EXPECT_FALSE(table_.Contains(b));
  EntryInfo info = table_.Info(a);
  EXPECT_EQ(info.owner, 3u);
  EXPECT_STREQ(info.origin, "a");
  EXPECT_EQ(table_.Get(a).tensor()->numel(), 2);
  table_.Release(a);
}

TEST_F(HandleTableTest, HoldsCompositeObjects) {
  auto parameters = std::make_shared<std::vector<at::Tensor>>(
      std::vector<at::Tensor>{at::zeros({10, 64}), at::zeros({10})});
  Handle m = table_.Add(Object(std::make_shared<FakeModule>(parameters)), kRootOwner, 0, "module");
  EXPECT_EQ(table_.Info(m).object_class, ObjectClass::kModule);
  Object copy = table_.Get(m);
  EXPECT_EQ(Ref(copy).single(), 3);  // `parameters`, the entry's wrapper, the copy's wrapper
  EXPECT_EQ(Size(copy).single(), std::vector<std::int64_t>{2});
  EXPECT_EQ(TensorCount(copy), 2);
  EXPECT_EQ(Elements(copy), 650);
  EXPECT_EQ(Bytes(copy), 2600);
  EXPECT_EQ(Ptr(copy).single(), reinterpret_cast<std::intptr_t>(parameters.get()));
  table_.Release(m);
  copy = Object();
  EXPECT_EQ(parameters.use_count(), 1);
}

TEST_F(AccountingTest, SharedStorageIsCountedOnce) {
  at::Tensor base = at::arange(12, at::kFloat);
  // A vector holding two views of one storage that nothing else uses: the storage once.
  at::Tensor first = base.narrow(0, 0, 4), second = base.narrow(0, 4, 8);
  base = at::Tensor();
  Object v(TensorVector{first, second});
  EXPECT_EQ(Bytes(v), 48);
  EXPECT_EQ(Elements(v), 12);
  // A view of a storage shared with a tensor outside the object: only its own elements.
  at::Tensor whole = at::arange(10, at::kDouble);
  Object view(whole.narrow(0, 2, 3));
  EXPECT_EQ(Bytes(view), 24);
  EXPECT_EQ(Elements(view), 3);
  EXPECT_EQ(Bytes(Object(whole)), 80);
}

TEST_F(AccountingTest, PerElementShapesFollowTheClass) {
  TensorDict d;
  d.insert("a", at::zeros({4}, at::kBool));
  d.insert("b", at::zeros({3, 4}, at::kLong));
  Object o(d);
  PerElement<std::string> dtypes = Dtype(o);
  ASSERT_TRUE(dtypes.is_named());
  EXPECT_EQ(dtypes.named()[0], (std::pair<std::string, std::string>("a", "bool")));
  EXPECT_EQ(dtypes.named()[1].second, "long");
  PerElement<std::vector<std::int64_t>> sizes =
      Size(Object(TensorVector{at::zeros({2}), at::zeros({1, 5})}));
  ASSERT_TRUE(sizes.is_list());
  EXPECT_THAT(sizes.list()[1], ElementsAre(1, 5));
  EXPECT_EQ(Bytes(o), 100);
}

TEST_F(NamesTest, DtypesAndDevicesRoundTrip) {
  for (const char* name : {"bool", "byte", "char", "short", "int", "long", "half", "float",
                           "double", "chalf", "cfloat", "cdouble"}) {
    auto t = DtypeFromName(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(DtypeName(*t), name);
  }
  EXPECT_FALSE(DtypeFromName("floaty").has_value());
  EXPECT_EQ(DeviceName(*DeviceFromName("cpu")), "cpu");
  EXPECT_EQ(DeviceFromName("cuda:1")->index(), 1);
  EXPECT_TRUE(DeviceFromName("cuda")->is_cuda());
  EXPECT_FALSE(DeviceFromName("cuda:x").has_value());
  EXPECT_FALSE(DeviceFromName("gpu").has_value());
}

}  // namespace runtime_test
}  // namespace kscope
