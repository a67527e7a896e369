// Seed 004's batch, restore and shuffle sessions on tensors, vectors and dictionaries, through
// the k host as q calls the plugin.
#include <algorithm>
#include <numeric>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_batch_test {

using PluginBatchTest = PluginTest;

// The values of a k long vector.
std::vector<std::int64_t> LongsOf(const KRef& x) {
  EXPECT_EQ(x->t, kabi::kLong);
  return std::vector<std::int64_t>(kabi::Longs(x.get()), kabi::Longs(x.get()) + x->n);
}

// The rows of a k general list of long vectors (a matrix's values).
std::vector<std::vector<std::int64_t>> RowsOf(const KRef& x) {
  EXPECT_EQ(x->t, 0);
  std::vector<std::vector<std::int64_t>> rows;
  for (long long i = 0; i < x->n; ++i)
    rows.push_back(LongsOf(KRef(kabi::r1(kabi::Items(x.get())[i]))));
  return rows;
}

std::vector<std::int64_t> Sorted(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::int64_t> Til(std::int64_t n) {
  std::vector<std::int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// An owned k value from a literal, to put in a List.
kabi::K N(absl::string_view literal) { return Q(literal).release(); }

// q's til n as a k long vector.
KRef TilK(std::int64_t n) {
  KRef x(kabi::ktn(kabi::kLong, n));
  std::iota(kabi::Longs(x.get()), kabi::Longs(x.get()) + n, 0);
  return x;
}

TEST_F(PluginBatchTest, ForwardInBatchesSeed004) {
  // q)x:tensor til 7; q:module`identity; tensor y:forward(q;x) -> 0 1 2 3 4 5 6
  // q)while[batch(x;3); use[y]forward(q;x); show tensor y] -> 0 1 2 / 3 4 5 / ,6
  KRef x = Call("tensor", "0 1 2 3 4 5 6");
  KRef q = Call("module", "`identity");
  KRef y = Call("forward", List({q.share(), x.share()}));
  EXPECT_EQ(S1(Call("tensor", y)), "0 1 2 3 4 5 6");
  std::vector<std::string> shown;
  for (int i = 0; i < 5; ++i) {
    KRef more = Call("batch", List({x.share(), N("3")}));
    ASSERT_EQ(more->t, -kabi::kBoolean);
    if (!more->g) break;
    Use(y, Call("forward", List({q.share(), x.share()})));
    shown.push_back(S1(Call("tensor", y)));
  }
  EXPECT_THAT(shown, ::testing::ElementsAre("0 1 2", "3 4 5", ",6"));
  EXPECT_EQ(S1(Call("tensor", x)), "0 1 2 3 4 5 6");  // full size after the last batch
  Call("free", List({x.share(), q.share(), y.share()}));
}

TEST_F(PluginBatchTest, ShuffleATensorSeed004) {
  // q)x:tensor til 7; shuffle x; tensor x -> 2 0 4 6 3 5 1
  KRef x = Call("tensor", "0 1 2 3 4 5 6");
  EXPECT_EQ(S1(Call("shuffle", x)), "::");
  EXPECT_EQ(Sorted(LongsOf(Call("tensor", x))), Til(7));
  // q)use[x]tensor(3 4#til 12); shuffle x; tensor x -> 0 1 2 3 / 8 9 10 11 / 4 5 6 7
  Use(x, Call("tensor", "(0 1 2 3;4 5 6 7;8 9 10 11)"));
  Call("shuffle", x);
  std::vector<std::vector<std::int64_t>> rows = RowsOf(Call("tensor", x));
  std::vector<std::int64_t> firsts;
  for (const auto& row : rows) {
    firsts.push_back(row[0]);
    EXPECT_EQ(row, (std::vector<std::int64_t>{row[0], row[0] + 1, row[0] + 2,
                                              row[0] + 3}));  // rows move whole
  }
  EXPECT_EQ(Sorted(firsts), (std::vector<std::int64_t>{0, 4, 8}));
  // q)shuffle(x;1); tensor x -> 2 3 0 1 / 10 11 8 9 / 6 7 4 5: one column order for all rows
  Call("shuffle", List({x.share(), N("1")}));
  rows = RowsOf(Call("tensor", x));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(Sorted(rows[i]),
              (std::vector<std::int64_t>{firsts[i], firsts[i] + 1, firsts[i] + 2, firsts[i] + 3}));
    for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(rows[i][j] - firsts[i], rows[0][j] - firsts[0]);
  }
  Call("free", x);
}

TEST_F(PluginBatchTest, ShuffleADictionarySeed004) {
  // q)d:dict`a`b!(3 4#til 12;1 2 3); shuffle d; dict d -> a| 8 9 10 11 4 5 6 7 0 1 2 3  b| 3 2 1
  KRef d = Call("dict", "`a`b!((0 1 2 3;4 5 6 7;8 9 10 11);1 2 3)");
  EXPECT_EQ(S1(Call("shuffle", d)), "::");
  KRef values = Call("dict", d);
  const std::vector<std::vector<std::int64_t>> a =
      RowsOf(KRef(kabi::r1(kabi::Items(kabi::DictValues(values.get()))[0])));
  const std::vector<std::int64_t> b =
      LongsOf(KRef(kabi::r1(kabi::Items(kabi::DictValues(values.get()))[1])));
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(Sorted(b), (std::vector<std::int64_t>{1, 2, 3}));
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(a[i][0], 4 * (b[i] - 1));  // rows stay aligned
  Call("free", d);
}

TEST_F(PluginBatchTest, ShuffleRemovesBatchingSeed004) {
  // q)x:tensor til 7; batch(x;3;0); tensor x -> 0 1 2; shuffle x; tensor x -> 5 4 6 1 2 3 0
  KRef x = Call("tensor", "0 1 2 3 4 5 6");
  EXPECT_EQ(S1(Call("batch", List({x.share(), N("3"), N("0")}))), "::");
  EXPECT_EQ(S1(Call("tensor", x)), "0 1 2");
  Call("shuffle", x);
  EXPECT_EQ(Sorted(LongsOf(Call("tensor", x))), Til(7));
  Call("free", x);
}

TEST_F(PluginBatchTest, IndexDimensionAndRestore) {
  // q)batch(x;3;2) -> last batch; restore x -> 7; restore(x;0) -> 7
  KRef x = Call("tensor", "0 1 2 3 4 5 6");
  Call("batch", List({x.share(), N("3"), N("2")}));
  EXPECT_EQ(S1(Call("tensor", x)), ",6");
  EXPECT_EQ(S1(Call("restore", x)), "7");
  EXPECT_EQ(S1(Call("tensor", x)), "0 1 2 3 4 5 6");
  EXPECT_EQ(S1(Call("batch", List({x.share(), N("4")}))), "1b");
  EXPECT_EQ(S1(Call("restore", List({x.share(), N("0")}))), "7");
  // q)m:tensor 3 4#til 12; batch(m;3 1) -> columns 0-2, then column 3, then 0b
  KRef m = Call("tensor", "(0 1 2 3;4 5 6 7;8 9 10 11)");
  EXPECT_EQ(S1(Call("batch", List({m.share(), N("3 1")}))), "1b");
  EXPECT_EQ(S1(Call("tensor", m)), "(0 1 2;4 5 6;8 9 10)");
  EXPECT_EQ(S1(Call("batch", List({m.share(), N("3 1")}))), "1b");
  EXPECT_EQ(S1(Call("tensor", m)), "(,3;,7;,11)");
  EXPECT_EQ(S1(Call("batch", List({m.share(), N("3 1")}))), "0b");
  Call("batch", List({m.share(), N("2 1"), N("1")}));
  EXPECT_EQ(S1(Call("size", m)), "3 2");
  EXPECT_EQ(S1(Call("restore", List({m.share(), N("1")}))), "4");
  Call("free", List({x.share(), m.share()}));
}

TEST_F(PluginBatchTest, VectorsBatchTogether) {
  // q)v:vector(til 5; 5 2#til 10); while[batch(v;2); ...] -> 3 batches of aligned rows
  KRef v = Call("vector", "(0 1 2 3 4;(0 1;2 3;4 5;6 7;8 9))");
  std::vector<std::string> shown;
  while (Call("batch", List({v.share(), N("2")}))->g) shown.push_back(S1(Call("vector", v)));
  EXPECT_THAT(shown, ::testing::ElementsAre("(0 1;(0 1;2 3))", "(2 3;(4 5;6 7))", "(,4;,8 9)"));
  EXPECT_EQ(S1(Call("restore", v)), "5");
  Call("free", v);
}

TEST_F(PluginBatchTest, ErrorsChangeNothing) {
  // seed 004: 'tensor size mismatch, 100 vs 10
  KRef v = Call("vector", List({TilK(100).share(), TilK(10).share()}));
  EXPECT_EQ(Error("batch", List({v.share(), N("3")})), "tensor size mismatch, 100 vs 10");
  EXPECT_EQ(Error("shuffle", v), "tensor size mismatch, 100 vs 10");
  EXPECT_EQ(S1(Call("size", v)), "(,100;,10)");
  KRef x = Call("tensor", "0 1 2 3 4 5 6");
  Call("batch", List({x.share(), N("3")}));
  EXPECT_EQ(Error("batch", List({x.share(), N("7")})),
            "batch: batch size must be at least 1 and less than the full size of 7, given 7");
  EXPECT_EQ(Error("batch", List({x.share(), N("3"), N("3")})),
            "batch: batch index 3 out of range for 3 batch(es) of 3 from 7 rows");
  EXPECT_EQ(Error("batch", List({x.share(), N("3 1 2")})),
            "batch: arg[1] expected batch size or (size;dim), given 3 long(s)");
  EXPECT_EQ(Error("batch", x), "batch: unrecognized arg(s) - tensor");
  EXPECT_EQ(Error("restore", List({x.share(), N("1")})),
            "restore: dimension 1 out of range for a 1-dim tensor");
  EXPECT_EQ(Error("shuffle", Q("1 2 3")), "shuffle: arg[0] expected pointer, given long list");
  EXPECT_EQ(S1(Call("tensor", x)), "0 1 2");  // the window is unchanged
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(Error("shuffle", l), "shuffle: expected tensor, vector or dictionary, given loss");
  Call("free", List({v.share(), x.share(), l.share()}));
  EXPECT_EQ(Error("restore", x), "stale pointer");
}

}  // namespace plugin_batch_test
}  // namespace kscope::testing
