// api/core/pointer.h: seed 000 (ktorch's pointers page) reproduced in C++.
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace pointer_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using PointerTest = LeakCheckTest;

TEST_F(PointerTest, ObjListsEveryLiveHandle) {
  // q)t:tensor 1 2 3.0  v:vector(1 2;3 4 5e)  d:dict `a`b!(0101b; 3 4#til 12)
  auto scope = Scope::Open();
  Handle t = tensor(std::vector<double>{1, 2, 3});
  Handle v = vector({Operand(at::tensor({1, 2}, at::kLong)), Operand(at::tensor({3.f, 4.f, 5.f}))});
  Handle d = dict({{"a", Operand(testing::Bools({0, 1, 0, 1}))},
                   {"b", Operand(at::arange(12, at::kLong).reshape({3, 4}))}});
  std::vector<ObjectRow> rows = obj();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].ptr, t);
  EXPECT_EQ(ClassName(rows[0].object_class), "tensor");
  EXPECT_EQ(rows[0].device, "cpu");
  EXPECT_EQ(rows[0].dtype, "double");
  EXPECT_THAT(rows[0].size, ElementsAre(3));
  EXPECT_EQ(rows[0].elements, 3);
  EXPECT_EQ(rows[0].bytes, 24);
  EXPECT_EQ(rows[0].origin, "tensor");
  EXPECT_EQ(rows[0].scope, 1);
  // vector: size 2, 5 elements, 16 + 12 bytes; dictionary: 2, 16, 100.
  EXPECT_EQ(rows[1].ptr, v);
  EXPECT_EQ(rows[1].dtype, "");
  EXPECT_THAT(rows[1].size, ElementsAre(2));
  EXPECT_EQ(rows[1].elements, 5);
  EXPECT_EQ(rows[1].bytes, 28);
  EXPECT_EQ(rows[2].ptr, d);
  EXPECT_EQ(ClassName(rows[2].object_class), "dictionary");
  EXPECT_THAT(rows[2].size, ElementsAre(2));
  EXPECT_EQ(rows[2].elements, 16);
  EXPECT_EQ(rows[2].bytes, 100);
}

TEST_F(PointerTest, FreeOneThenAll) {
  // q)a:tensor 1 2 3  v:vector(4 5;6 7 8)  free v  class v -> 'stale pointer  free[]
  Handle a = tensor(std::vector<std::int64_t>{1, 2, 3});
  Handle v =
      vector({Operand(at::tensor({4, 5}, at::kLong)), Operand(at::tensor({6, 7, 8}, at::kLong))});
  EXPECT_EQ(obj()[1].bytes, 40);
  kscope::free(v);
  ASSERT_EQ(obj().size(), 1u);
  EXPECT_EQ(obj()[0].ptr, a);
  EXPECT_EQ(ErrorOf([&] { class_(v); }), "stale pointer");
  kscope::free();
  EXPECT_TRUE(obj().empty());
}

TEST_F(PointerTest, FreeListsAndDictionariesValidateFirst) {
  auto scope = Scope::Open();
  Handle a = tensor(std::vector<std::int64_t>{1, 2, 3});
  Handle b = tensor(std::vector<std::int64_t>{4, 5});
  Handle gone = zeros({1});
  kscope::free(gone);
  EXPECT_EQ(ErrorOf([&] {
              kscope::free(std::vector<Handle>{a, gone, b});
            }),
            "free: stale pointer, element[1] of given list");
  EXPECT_TRUE(mapped(a));
  EXPECT_TRUE(mapped(b));
  EXPECT_EQ(ErrorOf([&] {
              kscope::free({{"x", a}, {"y", gone}});
            }),
            "free: stale pointer, key[`y] of given dictionary");
  EXPECT_TRUE(mapped(a));
  EXPECT_EQ(class_if_mapped(a), ObjectClass::kTensor);
  EXPECT_EQ(class_if_mapped(gone), std::nullopt);
  kscope::free(std::vector<Handle>{a, b, a});  // duplicates tolerated
  EXPECT_FALSE(mapped(a));
  EXPECT_FALSE(mapped(b));
  EXPECT_EQ(class_if_mapped(b), std::nullopt);
  Handle c = zeros({1});
  kscope::free({{"c", c}});
  EXPECT_FALSE(mapped(c));
}

TEST_F(PointerTest, FreeAllKeepsScopesOpen) {
  Handle root = zeros({1});
  auto scope = Scope::Open();
  Handle inner = zeros({1});
  kscope::free();
  EXPECT_FALSE(mapped(root));
  EXPECT_FALSE(mapped(inner));
  EXPECT_EQ(ScopeDepth(), scope.depth());
  Handle after = zeros({1});
  EXPECT_EQ(obj().back().scope, scope.depth());
  (void)after;
}

TEST_F(PointerTest, ReturnCopiesOutThenFrees) {
  // q)x:tensor(1.2 1.9 3.1;`grad) ... backward z:loss(l;x;y); return z  -> 0.02 (mse)
  auto scope = Scope::Open();
  Options grad;
  grad.grad = true;
  Handle x = tensor(std::vector<double>{1.2, 1.9, 3.1}, {}, grad);
  Handle y = tensor(std::vector<double>{1.0, 2.0, 3.0});
  Handle z = mean(pow(sub(x, y), 2.0));
  backward(z);
  Value r = return_(z);
  EXPECT_NEAR(std::get<at::Tensor>(r).item<double>(), 0.02, 1e-12);
  EXPECT_FALSE(mapped(z));
  EXPECT_EQ(ErrorOf([&] { return_(z); }), "stale pointer");
  Handle v = vector({x});
  TensorVector values = std::get<TensorVector>(return_(v));
  EXPECT_EQ(values.size(), 1u);
  EXPECT_FALSE(values[0].requires_grad());  // values out are detached copies
  EXPECT_FALSE(mapped(v));
}

TEST_F(PointerTest, MappedPtrAndClass) {
  auto scope = Scope::Open();
  Handle t = tensor(std::vector<std::int64_t>{1, 2, 3});
  EXPECT_TRUE(mapped(t));
  Handle t2 = addref(t);
  EXPECT_EQ(ptr(t).single(), ptr(t2).single());  // sharing an object: same raw pointer
  EXPECT_NE(t, t2);                              // but distinct handles
  EXPECT_EQ(class_(t), ObjectClass::kTensor);
  Handle v = vector({Operand(at::zeros({1}))});
  EXPECT_EQ(class_(v), ObjectClass::kVector);
  EXPECT_TRUE(ptr(v).is_list());
  kscope::free(t);
  EXPECT_FALSE(mapped(t));
  EXPECT_FALSE(mapped(Handle()));
  EXPECT_FALSE(mapped(Handle(~0ull)));
}

TEST_F(PointerTest, DeviceDtypeSize) {
  auto scope = Scope::Open();
  Handle t = tensor(std::vector<double>{1, 2, 3});
  EXPECT_EQ(device(t), "cpu");
  EXPECT_EQ(dtype(t).single(), "double");
  Handle r = randn({64, 128});
  EXPECT_EQ(size(r).single(), (std::vector<std::int64_t>{64, 128}));
  EXPECT_EQ(elements(r), 8192);
  EXPECT_EQ(bytes(r), 32768);
  EXPECT_EQ(tensorcount(r), 1);
  Handle d =
      dict({{"a", Operand(at::zeros({2}, at::kFloat))}, {"b", Operand(at::zeros({1}, at::kLong))}});
  PerElement<std::string> dtypes = dtype(d);
  ASSERT_TRUE(dtypes.is_named());
  EXPECT_EQ(dtypes.named()[1].second, "long");
  EXPECT_EQ(tensorcount(d), 2);
}

TEST_F(PointerTest, RefAndAddref) {
  // q)a:tensor 0101b  b:tensor til 9  v:vector(a; addref b)  ref a -> 'stale pointer
  // ref b -> 2   free v   ref b -> 1
  auto scope = Scope::Open();
  Handle a = tensor(std::vector<bool>{false, true, false, true});
  Handle b = tensor(std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  Handle v = vector({a, addref(b)});
  EXPECT_EQ(ErrorOf([&] { ref(a); }), "stale pointer");
  EXPECT_EQ(ref(b).single(), 2);
  EXPECT_THAT(ref(v).list(), ElementsAre(1, 2));
  kscope::free(v);
  EXPECT_EQ(ref(b).single(), 1);
  // addref works on every class, including containers.
  Handle d = dict({{"x", Operand(at::zeros({1}))}});
  Handle d2 = addref(d);
  EXPECT_EQ(ref(d2).named()[0].second, 2);
}

TEST_F(PointerTest, UseReplacesTheObject) {
  // q)a:tensor 1 2 3  b:tensor 010101b  use[a]b  tensor a -> 010101b  tensor b -> 'stale pointer
  Handle a = tensor(std::vector<std::int64_t>{1, 2, 3});
  Handle b = tensor(std::vector<bool>{false, true, false, true, false, true});
  use(a, b);
  EXPECT_EQ(values<bool>(a), (std::vector<bool>{false, true, false, true, false, true}));
  EXPECT_EQ(ErrorOf([&] { tensor(b); }), "stale pointer");
  // q)seed 123  use[a]tensor(`rand;2 3)  obj[] shows one tensor: float 2 3 6 24
  seed(123);
  use(a, rand({2, 3}));
  std::vector<ObjectRow> rows = obj();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].ptr, a);
  EXPECT_EQ(rows[0].dtype, "float");
  EXPECT_THAT(rows[0].size, ElementsAre(2, 3));
  EXPECT_EQ(rows[0].bytes, 24);
  EXPECT_EQ(rows[0].origin, "tensor");  // use keeps the handle's id, owner and origin
  seed(123);
  EXPECT_TRUE(tensor(a).equal(TensorOf("test", rand({2, 3}))));
  kscope::free();
}

TEST_F(PointerTest, UseErrorsChangeNothing) {
  auto scope = Scope::Open();
  Handle a = tensor(std::vector<std::int64_t>{1, 2, 3});
  Handle v = vector({Operand(at::zeros({1}))});
  EXPECT_EQ(ErrorOf([&] { use(a, v); }), "use: unable to re-assign tensor to given vector");
  EXPECT_TRUE(mapped(v));
  EXPECT_EQ(values<std::int64_t>(a), (std::vector<std::int64_t>{1, 2, 3}));
  use(a, a);  // no-op
  EXPECT_EQ(ref(a).single(), 1);
  Handle gone = zeros({1});
  kscope::free(gone);
  EXPECT_EQ(ErrorOf([&] { use(a, gone); }), "stale pointer");
  EXPECT_EQ(ErrorOf([&] { use(gone, a); }), "stale pointer");
  EXPECT_TRUE(mapped(a));
  // E4(e): b has another handle c: after use[a;b], ref a is 2 and b is stale.
  Handle b = ones({2});
  Handle c = addref(b);
  use(a, b);
  EXPECT_EQ(ref(a).single(), 2);
  EXPECT_FALSE(mapped(b));
  EXPECT_EQ(ptr(a).single(), ptr(c).single());
  // E4(f): host data of the handle's class builds a new object in place.
  use(v, Value(TensorVector{at::ones({3}), at::ones({4})}));
  EXPECT_EQ(size(v).list().size(), 2u);
  EXPECT_EQ(ErrorOf([&] { use(v, Value(at::ones({1}))); }),
            "use: unable to re-assign vector to given tensor data");
}

TEST_F(PointerTest, StrIsLibtorchsPrintout) {
  auto scope = Scope::Open();
  Handle t = tensor(std::vector<float>{1, 2, 3});
  EXPECT_THAT(str(t), HasSubstr("[ CPUFloatType{3} ]"));
  Handle v = vector({t});
  EXPECT_EQ(ErrorOf([&] { str(v); }), "str: not implemented for vectors");
}

TEST_F(PointerTest, ReturnOfADictionaryGivesItsValues) {
  auto scope = Scope::Open();
  Handle d = dict({{"a", Operand(at::ones({1}))}});
  TensorDict values = std::get<TensorDict>(return_(d));
  EXPECT_EQ(values.keys(), std::vector<std::string>{"a"});
}

}  // namespace pointer_test
}  // namespace kscope
