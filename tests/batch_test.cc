// api/data/batch.h, api/data/batch_window.h and api/data/shuffle.h: zero-copy batch windows and
// in-place shuffles of tensors, vectors and dictionaries (seed 004's batch/restore/shuffle
// sessions), and the tensor-level functions a model reuses (seeded shuffles, unshuffle).
#include <vector>

#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/tensor.h>

#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace batch_test {

using testing::ErrorOf;
using testing::LeakCheckTest;

using BatchTest = LeakCheckTest;
using ShuffleTest = LeakCheckTest;

// til n as a long tensor handle, optionally reshaped.
Handle Til(std::int64_t n, const Shape& shape = {}) {
  std::vector<std::int64_t> values(n);
  for (std::int64_t i = 0; i < n; ++i) values[i] = i;
  return tensor(values, shape);
}

at::Tensor Longs(std::vector<std::int64_t> values) { return at::tensor(values, at::kLong); }

// The tensor a handle holds (the same TensorImpl, not a copy).
at::Tensor Held(Handle h) { return TensorOf("test", h); }

TEST_F(BatchTest, WindowsShowThroughTheHandleWithoutCopies) {
  // q)x:tensor til 7; while[batch(x;3); show tensor x]  -> 0 1 2 / 3 4 5 / ,6
  auto scope = Scope::Open();
  Handle x = Til(7);
  const at::Tensor held = Held(x);
  const void* storage = held.storage().data();
  const auto refs = ref(x);  // the handle's and `held`
  std::vector<at::Tensor> windows;
  int calls = 0;
  while (batch(x, 3)) {
    ASSERT_LT(++calls, 5);
    windows.push_back(tensor(x));
    EXPECT_EQ(Held(x).storage().data(), storage);  // same storage: a window, not a copy
    EXPECT_EQ(Held(x).unsafeGetTensorImpl(), held.unsafeGetTensorImpl());
    EXPECT_EQ(bytes(x), 56);  // the full storage stays charged
    EXPECT_EQ(elements(x), 7);
    EXPECT_EQ(ref(x), refs);
  }
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_TRUE(at::equal(windows[0], Longs({0, 1, 2})));
  EXPECT_TRUE(at::equal(windows[1], Longs({3, 4, 5})));
  EXPECT_TRUE(at::equal(windows[2], Longs({6})));
  EXPECT_TRUE(at::equal(tensor(x), Longs({0, 1, 2, 3, 4, 5, 6})));  // full size after the last
  EXPECT_EQ(Held(x).storage().data(), storage);
}

TEST_F(BatchTest, IndexSelectsOneBatchAndRestoreGivesFullSize) {
  // q)batch(x;3;0); tensor x -> 0 1 2    restore x -> 7
  auto scope = Scope::Open();
  Handle x = Til(7);
  batch_at(x, 3, 2);
  EXPECT_TRUE(at::equal(tensor(x), Longs({6})));
  batch_at(x, 3, 0);
  EXPECT_TRUE(at::equal(tensor(x), Longs({0, 1, 2})));
  EXPECT_TRUE(batch(x, 3));  // sequential batching goes on from the selected window
  EXPECT_TRUE(at::equal(tensor(x), Longs({3, 4, 5})));
  EXPECT_EQ(restore(x), 7);
  EXPECT_TRUE(at::equal(tensor(x), Longs({0, 1, 2, 3, 4, 5, 6})));
  EXPECT_EQ(restore(x), 7);  // already full: nothing to do
}

TEST_F(BatchTest, AlongASecondDimension) {
  auto scope = Scope::Open();
  Handle x = Til(12, {3, 4});
  ASSERT_TRUE(batch(x, 3, 1));
  EXPECT_TRUE(at::equal(tensor(x), Longs({0, 1, 2, 4, 5, 6, 8, 9, 10}).reshape({3, 3})));
  ASSERT_TRUE(batch(x, 3, 1));
  EXPECT_TRUE(at::equal(tensor(x), Longs({3, 7, 11}).reshape({3, 1})));
  EXPECT_FALSE(batch(x, 3, 1));
  EXPECT_EQ(size(x).single(), (std::vector<std::int64_t>{3, 4}));
  batch_at(x, 2, 1, 1);
  EXPECT_EQ(restore(x, 1), 4);
  EXPECT_EQ(size(x).single(), (std::vector<std::int64_t>{3, 4}));
}

TEST_F(BatchTest, VectorAndDictionaryBatchTogether) {
  auto scope = Scope::Open();
  Handle v = vector({Til(5), Til(10, {5, 2})});
  int batches = 0;
  while (batch(v, 2)) {
    const TensorVector w = vector(v);
    ASSERT_EQ(w[0].size(0), w[1].size(0));
    EXPECT_TRUE(at::equal(w[1].select(1, 0), 2 * w[0]));  // rows stay aligned
    ++batches;
  }
  EXPECT_EQ(batches, 3);
  EXPECT_EQ(restore(v), 5);

  Handle d = dict({{"a", Til(12, {3, 4})}, {"b", Til(3)}});
  batch_at(d, 2, 1);
  EXPECT_TRUE(at::equal(dict(d, "a"), Longs({8, 9, 10, 11}).reshape({1, 4})));
  EXPECT_TRUE(at::equal(dict(d, "b"), Longs({2})));
  EXPECT_EQ(restore(d), 3);
  EXPECT_EQ(size(d).named()[0].second, (std::vector<std::int64_t>{3, 4}));
}

TEST_F(BatchTest, AddrefSeesTheSameWindow) {
  auto scope = Scope::Open();
  Handle x = Til(7);
  Handle y = addref(x);
  ASSERT_TRUE(batch(x, 4));
  EXPECT_TRUE(at::equal(tensor(y), Longs({0, 1, 2, 3})));
  EXPECT_EQ(restore(y), 7);
  EXPECT_EQ(Held(x).size(0), 7);
}

TEST_F(BatchTest, SizeMismatchChangesNothing) {
  // seed 004: 'tensor size mismatch, 100 vs 10
  auto scope = Scope::Open();
  Handle v = vector({Til(100), Til(10)});
  EXPECT_EQ(ErrorOf([&] { batch(v, 3); }), "tensor size mismatch, 100 vs 10");
  EXPECT_EQ(ErrorOf([&] { shuffle(v); }), "tensor size mismatch, 100 vs 10");
  EXPECT_EQ(size(v).list()[0], (std::vector<std::int64_t>{100}));
  EXPECT_TRUE(at::equal(vector(v, 1), at::arange(10, at::kLong)));
}

TEST_F(BatchTest, BadArgumentsLeaveTheWindow) {
  auto scope = Scope::Open();
  Handle x = Til(7);
  ASSERT_TRUE(batch(x, 3));
  EXPECT_EQ(ErrorOf([&] { batch(x, 0); }),
            "batch: batch size must be at least 1 and less than the full size of 7, given 0");
  EXPECT_EQ(ErrorOf([&] { batch(x, 7); }),
            "batch: batch size must be at least 1 and less than the full size of 7, given 7");
  EXPECT_EQ(ErrorOf([&] { batch_at(x, 3, 3); }),
            "batch: batch index 3 out of range for 3 batch(es) of 3 from 7 rows");
  EXPECT_EQ(ErrorOf([&] { batch_at(x, 0, 0); }), "batch: batch size must be at least 1, given 0");
  EXPECT_EQ(ErrorOf([&] { batch(x, 3, 1); }), "batch: dimension 1 out of range for a 1-dim tensor");
  EXPECT_EQ(ErrorOf([&] { restore(x, -1); }),
            "restore: dimension -1 out of range for a 1-dim tensor");
  EXPECT_TRUE(at::equal(tensor(x), Longs({0, 1, 2})));

  Handle o = opt("sgd");
  EXPECT_EQ(ErrorOf([&] { batch(o, 3); }),
            "batch: expected tensor, vector or dictionary, given optimizer");
  EXPECT_EQ(ErrorOf([&] { shuffle(o); }),
            "shuffle: expected tensor, vector or dictionary, given optimizer");
  Handle s = scalar<std::int64_t>(3);
  EXPECT_EQ(ErrorOf([&] { restore(s); }), "restore: tensor has no dimensions");
  Handle e = vector(std::vector<Operand>{});
  EXPECT_EQ(ErrorOf([&] { batch(e, 1); }), "batch: no tensors");
  kscope::free(x);
  EXPECT_EQ(ErrorOf([&] { batch(x, 3); }), "stale pointer");
}

TEST_F(BatchTest, ViewsOfOtherTensorsAreRefused) {
  auto scope = Scope::Open();
  const at::Tensor base = at::arange(10, at::kLong);
  Handle every_other = tensor(base.slice(0, 0, 10, 2));
  EXPECT_EQ(
      ErrorOf([&] { batch(every_other, 2); }),
      "batch: tensor is not contiguous over its own storage (a view of part of another tensor?)");
  Handle transposed = tensor(base.reshape({2, 5}).t());
  EXPECT_EQ(
      ErrorOf([&] { batch(transposed, 2); }),
      "batch: tensor is not contiguous over its own storage (a view of part of another tensor?)");
  EXPECT_EQ(Held(every_other).size(0), 5);
  // A narrowed view of a contiguous tensor is a window of it: restore gives the whole.
  Handle part = tensor(base.narrow(0, 2, 5));
  EXPECT_EQ(restore(part), 10);
}

TEST_F(BatchTest, LeavesRequiringGradStayLeaves) {
  auto scope = Scope::Open();
  Options grad;
  grad.grad = true;
  Handle x = tensor(std::vector<double>{1, 2, 3, 4, 5}, {}, grad);
  ASSERT_TRUE(batch(x, 2));
  EXPECT_TRUE(Held(x).requires_grad());
  EXPECT_TRUE(Held(x).is_leaf());
  EXPECT_EQ(restore(x), 5);
  shuffle(x);
  EXPECT_TRUE(Held(x).is_leaf());
  EXPECT_TRUE(Held(x).requires_grad());
}

TEST_F(BatchTest, BatchCountsAndModelSelection) {
  EXPECT_EQ(BatchCount(7, 3), 3);
  EXPECT_EQ(BatchCount(7, 3, true), 2);
  EXPECT_EQ(BatchCount(6, 3, true), 2);
  EXPECT_EQ(BatchCount(7, 10), 1);
  EXPECT_EQ(BatchCount(0, 3), 0);
  EXPECT_EQ(BatchCount(7, 0), 0);
  // A model's batch size may exceed its rows: one batch of all of them.
  const std::vector<at::Tensor> data = {at::arange(7, at::kLong),
                                        at::arange(14, at::kLong).reshape({7, 2})};
  SelectBatch("batch", data, 10, 0);
  EXPECT_EQ(data[0].size(0), 7);
  SelectBatch("batch", data, 3, 2);
  EXPECT_EQ(data[1].size(0), 1);
  EXPECT_EQ(FullSize("batch", data), 7);
  EXPECT_EQ(RestoreFull("batch", data), 7);
  EXPECT_EQ(data[1].size(0), 7);
}

TEST_F(ShuffleTest, TensorIsReorderedInPlace) {
  // q)x:tensor til 7; shuffle x; tensor x -> 2 0 4 6 3 5 1 (a permutation)
  auto scope = Scope::Open();
  Handle x = Til(7);
  const at::Tensor held = Held(x);
  bool moved = false;
  for (int i = 0; i < 5; ++i) {
    shuffle(x);
    const at::Tensor now = tensor(x);
    EXPECT_TRUE(at::equal(std::get<0>(at::sort(now)), at::arange(7, at::kLong)));
    moved = moved || !at::equal(now, at::arange(7, at::kLong));
  }
  EXPECT_TRUE(moved);
  EXPECT_EQ(Held(x).unsafeGetTensorImpl(), held.unsafeGetTensorImpl());  // same tensor, same handle
  EXPECT_EQ(bytes(x), 56);
}

TEST_F(ShuffleTest, RemovesBatchingFirst) {
  // q)batch(x;3;0); tensor x -> 0 1 2; shuffle x; tensor x -> 5 4 6 1 2 3 0
  auto scope = Scope::Open();
  Handle x = Til(7);
  batch_at(x, 3, 0);
  shuffle(x);
  EXPECT_TRUE(at::equal(std::get<0>(at::sort(tensor(x))), at::arange(7, at::kLong)));
  EXPECT_EQ(Held(x).size(0), 7);
  EXPECT_TRUE(batch(x, 3));  // batchable again: the reordered tensor owns its new storage
  EXPECT_EQ(restore(x), 7);
}

TEST_F(ShuffleTest, RowsAndColumnsMoveTogether) {
  // q)use[x]tensor(3 4#til 12); shuffle x; shuffle(x;1)
  auto scope = Scope::Open();
  Handle x = Til(12, {3, 4});
  shuffle(x);
  shuffle(x, 1);
  const at::Tensor t = tensor(x);
  const at::Tensor row = t.select(0, 0), column = t.select(1, 0);
  // Each entry is 4*(its row's origin) + (its column's origin).
  EXPECT_TRUE(
      at::equal(t, (column - column.remainder(4)).unsqueeze(1) + row.remainder(4).unsqueeze(0)));
  EXPECT_TRUE(at::equal(std::get<0>(at::sort(t.flatten())), at::arange(12, at::kLong)));
}

TEST_F(ShuffleTest, DictionaryKeepsRowsAligned) {
  // q)d:dict`a`b!(3 4#til 12;1 2 3); shuffle d; dict d -> a| 8 9 10 11 4 5 6 7 0 1 2 3  b| 3 2 1
  auto scope = Scope::Open();
  Handle d = dict({{"a", Til(12, {3, 4})}, {"b", tensor(std::vector<std::int64_t>{1, 2, 3})}});
  for (int i = 0; i < 3; ++i) {
    shuffle(d);
    const at::Tensor a = dict(d, "a"), b = dict(d, "b");
    EXPECT_TRUE(at::equal(a, 4 * (b - 1).unsqueeze(1) + at::arange(4, at::kLong).unsqueeze(0)));
  }
}

TEST_F(ShuffleTest, SeededGeneratorRepeatsAndUnshuffleRestores) {
  // A model's epochs: the same seed gives the same permutations on every task; unshuffle m.
  const std::vector<at::Tensor> task0 = {at::arange(7, at::kLong), 100 + at::arange(7, at::kLong)};
  const std::vector<at::Tensor> task1 = {at::arange(7, at::kLong), 100 + at::arange(7, at::kLong)};
  at::Generator g0 = ShuffleGenerator(42), g1 = ShuffleGenerator(42);
  at::Tensor p0, p1;
  for (int epoch = 0; epoch < 3; ++epoch) {
    SelectBatch("batch", task0, 3, 1);  // an epoch interrupted mid-way: shuffle restores first
    p0 = ComposePermutations(p0, Shuffle("shuffle", task0, 0, g0));
    p1 = ComposePermutations(p1, Shuffle("shuffle", task1, 0, g1));
  }
  EXPECT_TRUE(at::equal(task0[0], task1[0]));
  EXPECT_TRUE(at::equal(p0, p1));
  EXPECT_TRUE(at::equal(task0[0], p0));  // the cumulative permutation is where rows came from
  EXPECT_TRUE(at::equal(task0[1], task0[0] + 100));
  Unshuffle("unshuffle", task0, p0);
  EXPECT_TRUE(at::equal(task0[0], at::arange(7, at::kLong)));
  EXPECT_TRUE(at::equal(task0[1], 100 + at::arange(7, at::kLong)));
  Unshuffle("unshuffle", task0, at::Tensor());  // never shuffled: nothing to undo
  EXPECT_TRUE(at::equal(task0[0], at::arange(7, at::kLong)));
}

TEST_F(ShuffleTest, BadPermutationChangesNothing) {
  const std::vector<at::Tensor> data = {at::arange(7, at::kLong)};
  EXPECT_EQ(ErrorOf([&] { Permute("unshuffle", data, at::arange(6, at::kLong)); }),
            "unshuffle: expected a permutation of 7 long indices");
  EXPECT_EQ(ErrorOf([&] { Permute("unshuffle", data, at::arange(7, at::kInt)); }),
            "unshuffle: expected a permutation of 7 long indices");
  EXPECT_TRUE(at::equal(data[0], at::arange(7, at::kLong)));
  Permute("unshuffle", data, Longs({6, 5, 4, 3, 2, 1, 0}));
  EXPECT_TRUE(at::equal(data[0], Longs({6, 5, 4, 3, 2, 1, 0})));
}

}  // namespace batch_test
}  // namespace kscope
