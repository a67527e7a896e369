// khost_test.cc — the k host's own tests: the behaviours of k-abi.md §7, every check of §4.7
// firing when provoked, builders, the literal parser, the renderers of §4.9, b9/d9, and loading a
// real plugin with dlopen.
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "tests/build_paths.h"
#include "tests/khost/khost.h"

namespace khost_test {

using kabi::K;
using khost::Check;
using khost::KRef;
using khost::ReportCapture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Every test must leave no object of its own alive.
class KhostTest : public ::testing::Test {
 protected:
  ~KhostTest() override { khost::ClearError(); }
  khost::LeakScope leaks_;
};

// The reports of `capture` as text, for failure messages.
std::string Reports(const ReportCapture& capture) { return capture.Text(); }

std::vector<std::uint8_t> ByteVector(K x) {
  return std::vector<std::uint8_t>(kabi::Bytes(x), kabi::Bytes(x) + x->n);
}

// --- plugin functions the checks are provoked with -----------------------------------------------

K leaked_object = nullptr;

K Leaky(K) {
  leaked_object = kabi::kj(1);
  return kabi::ktn(kabi::kLong, 0);
}
K FreesArgument(K x) {
  kabi::r0(x);
  return kabi::kj(0);
}
K ReturnsArgument(K x) { return x; }
K WrapsArgument(K x) { return kabi::knk(1, x); }
K GivesTwice(K) {
  K a = kabi::kj(7);
  return kabi::knk(2, a, a);
}
K LeavesSlots(K) { return kabi::ktn(kabi::kMixed, 2); }
char static_text[] = "not interned";
K BadSymbol(K) {
  K x = kabi::ktn(kabi::kSymbol, 1);
  kabi::Symbols(x)[0] = static_text;
  return x;
}
K UnevenTable(K) {
  K t = kabi::ka(kabi::kTable);
  t->k = kq::Dict(kq::Syms({"a", "b"}), kq::List({kq::Longs({1, 2}), kq::Longs({3})}));
  return t;
}
K KrrThenValue(K) {
  kabi::krr("oops");
  return kabi::kj(1);
}
char message_buffer[16];
K UnstableMessage(K) {
  std::strcpy(message_buffer, "first");
  kabi::krr(message_buffer);
  std::strcpy(message_buffer, "second");
  return nullptr;
}
K Reserved(K) { return kabi::krr("stop"); }
K Throws(K) { throw std::runtime_error("boom"); }
K ReturnsNothing(K) { return nullptr; }
K TypeOf(K x) { return kabi::kh(x->t); }
K CountOf(K x) { return kabi::kj(x->t >= 0 ? x->n : 1); }
K Add(K x, K y) { return kabi::kj(x->j + y->j); }
K ReturnsError(K) { return kabi::k(0, "no such thing", static_cast<K>(nullptr)); }

// =============================================================================================
// §7: exact behaviours
// =============================================================================================

TEST_F(KhostTest, ObjectLayoutIsQs) {
  EXPECT_EQ(sizeof(kabi::Object), 16u);
  EXPECT_EQ(offsetof(kabi::Object, m), 0u);
  EXPECT_EQ(offsetof(kabi::Object, a), 1u);
  EXPECT_EQ(offsetof(kabi::Object, t), 2u);
  EXPECT_EQ(offsetof(kabi::Object, u), 3u);
  EXPECT_EQ(offsetof(kabi::Object, r), 4u);
  EXPECT_EQ(offsetof(kabi::Object, n), 8u);
  KRef x(kabi::ktn(kabi::kLong, 3));
  EXPECT_EQ(reinterpret_cast<char*>(kabi::Longs(x.get())) - reinterpret_cast<char*>(x.get()), 16);
  EXPECT_EQ(x->m, 0);
  EXPECT_EQ(x->a, 0);
}

TEST_F(KhostTest, RefcountsStartAndEndAtZero) {
  K x = kabi::ktn(kabi::kLong, 3);
  EXPECT_EQ(x->r, 0);
  EXPECT_EQ(x->t, kabi::kLong);
  EXPECT_EQ(x->n, 3);
  EXPECT_EQ(kabi::r1(x), x);
  EXPECT_EQ(x->r, 1);
  kabi::r0(x);
  EXPECT_EQ(x->r, 0);
  const std::int64_t freed = khost::Stats().freed;
  kabi::r0(x);
  EXPECT_EQ(khost::Stats().freed, freed + 1);
  EXPECT_EQ(khost::internal::Lookup(x).kind, khost::internal::Kind::kFreed);

  KRef j(kabi::kj(5));
  EXPECT_EQ(j->r, 0);
  EXPECT_EQ(j->t, -kabi::kLong);
  EXPECT_EQ(j->j, 5);
}

TEST_F(KhostTest, SymbolsAreInternedPointers) {
  char abc[] = "abc";
  char abcdef[] = "abcdef";
  char empty[] = "";
  EXPECT_EQ(kabi::ss(abc), kabi::ss(abc));
  EXPECT_EQ(kabi::ss(abc), kabi::sn(abcdef, 3));
  EXPECT_NE(kabi::ss(abc), abc);
  KRef null_symbol(kabi::ks(empty));
  EXPECT_EQ(null_symbol->s, kabi::ss(empty));
  EXPECT_TRUE(khost::IsInterned(kabi::ss(abc)));
  EXPECT_FALSE(khost::IsInterned(abc));
}

TEST_F(KhostTest, KrrLeavesAnErrorForEe) {
  EXPECT_EQ(kabi::krr("boom"), nullptr);
  EXPECT_EQ(khost::PendingError(), "boom");
  KRef e(kabi::ee(nullptr));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->t, kabi::kError);
  EXPECT_STREQ(e->s, "boom");
  EXPECT_EQ(khost::PendingError(), std::nullopt);
  EXPECT_EQ(kabi::ee(nullptr), nullptr);
}

TEST_F(KhostTest, OrrAppendsTheOsError) {
  errno = EINVAL;
  EXPECT_EQ(kabi::orr("open"), nullptr);
  KRef e(kabi::ee(nullptr));
  EXPECT_STREQ(e->s, "open. OS reports: Invalid argument");
}

TEST_F(KhostTest, XtOfAListIsNyi) {
  EXPECT_EQ(kabi::xT(kabi::knk(2, kabi::kj(1), kabi::kj(2))), nullptr);
  EXPECT_EQ(khost::PendingError(), "nyi");
  khost::ClearError();
}

TEST_F(KhostTest, XtOfUnevenColumnsIsLength) {
  EXPECT_EQ(kq::Table({{"a", kq::Longs({1, 2})}, {"b", kq::Longs({3})}}), nullptr);
  EXPECT_EQ(khost::PendingError(), "length");
  khost::ClearError();
}

TEST_F(KhostTest, JvLeavesItsSecondArgumentAlone) {
  K x = kq::Longs({1, 2});
  KRef y(kq::Longs({3, 4}));
  K joined = kabi::jv(&x, y.get());
  KRef owner(joined);
  EXPECT_EQ(joined, x);
  EXPECT_EQ(khost::S1(x), "1 2 3 4");
  EXPECT_EQ(y->r, 0);
  EXPECT_EQ(khost::S1(y.get()), "3 4");
}

TEST_F(KhostTest, JaOnASharedObjectMutatesInPlace) {
  KRef holder(kabi::ktn(kabi::kLong, 3));
  K alias = kabi::r1(holder.get());
  ReportCapture capture;
  long long v = 42;
  K x = alias;
  kabi::ja(&x, &v);
  EXPECT_EQ(x, alias);
  EXPECT_EQ(holder->n, 4);
  EXPECT_EQ(kabi::Longs(holder.get())[3], 42);
  EXPECT_TRUE(capture.Has(Check::kSharedMutation)) << Reports(capture);
  kabi::r0(alias);
}

TEST_F(KhostTest, SmallConstructors) {
  KRef b(kabi::kb(5));
  EXPECT_EQ(b->g, 1);
  char abcdef[] = "abcdef";
  KRef p(kabi::kpn(abcdef, 3));
  EXPECT_EQ(p->n, 3);
  EXPECT_EQ(khost::S1(p.get()), "\"abc\"");
  KRef t(kabi::kt(1)), d(kabi::kd(1)), z(kabi::kz(1)), ts(kabi::ktj(-kabi::kTimestamp, 1)),
      tn(kabi::ktj(-kabi::kTimespan, 1)), u(kabi::ku(kabi::GuidValue{}));
  EXPECT_EQ(t->t, -19);
  EXPECT_EQ(d->t, -14);
  EXPECT_EQ(z->t, -15);
  EXPECT_EQ(ts->t, -12);
  EXPECT_EQ(tn->t, -16);
  EXPECT_EQ(u->t, -2);
  KRef e(kabi::ke(1.5));
  EXPECT_EQ(e->e, 1.5f);
  KRef null(kabi::ka(kabi::kUnaryPrimitive));
  EXPECT_EQ(null->g, 0);
}

TEST_F(KhostTest, DatesAndVersion) {
  EXPECT_EQ(kabi::ymd(2000, 1, 1), 0);
  EXPECT_EQ(kabi::ymd(2024, 2, 29), 8825);
  EXPECT_EQ(kabi::ymd(1999, 12, 31), -1);
  EXPECT_EQ(kabi::dj(0), 20000101);
  EXPECT_EQ(kabi::dj(8825), 20240229);
  EXPECT_EQ(kabi::dj(-1), 19991231);
  EXPECT_EQ(kabi::ver(), 20231122);
}

TEST_F(KhostTest, B9InProcessModeWritesSymbolPointers) {
  KRef d(kq::Parse("`a`b!1 2"));
  KRef bytes(kabi::b9(-1, d.get()));
  ASSERT_TRUE(bytes);
  const std::vector<std::uint8_t> b = ByteVector(bytes.get());
  ASSERT_GE(b.size(), 9u);
  EXPECT_THAT(std::vector<std::uint8_t>(b.begin(), b.begin() + 4), ElementsAre(1, 0, 3, 0));
  std::uint32_t length;
  std::memcpy(&length, &b[4], 4);
  EXPECT_EQ(length, b.size());
  EXPECT_EQ(b[8], 0x63);
  // keys: type 11, attribute, count 2, then two 8-byte pointers
  EXPECT_EQ(b[9], 11);
  char* first;
  std::memcpy(&first, &b[15], sizeof first);
  char a[] = "a";
  EXPECT_EQ(first, kabi::ss(a));
  KRef back(kabi::d9(bytes.get()));
  EXPECT_EQ(khost::S1(back.get()), "`a`b!1 2");
}

TEST_F(KhostTest, D9ReadsAnEmptySymbolList) {
  // Found by the fuzzer: d9 of an empty symbol list copied from a null pointer (UBSan).
  KRef empty(kabi::ktn(kabi::kSymbol, 0));
  KRef bytes(kabi::b9(-1, empty.get()));
  KRef back(kabi::d9(bytes.get()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->t, kabi::kSymbol);
  EXPECT_EQ(back->n, 0);
}

TEST_F(KhostTest, B9ModeThreeRoundTripsThroughOkxAndD9) {
  KRef x(kq::Parse("(1;`a`b;\"text\";0101b;`x`y!(1.5;2000.01.01);+`c`d!(1 2;`p`q);::)"));
  ReportCapture capture;  // b9 outside mode -1 is flagged: q wants -1 inside a plugin
  KRef bytes(kabi::b9(3, x.get()));
  ASSERT_TRUE(bytes);
  EXPECT_EQ(capture.Count(Check::kBadArgument), 1) << Reports(capture);
  EXPECT_EQ(kabi::Bytes(bytes.get())[2], 0);
  EXPECT_EQ(kabi::okx(bytes.get()), 1);
  KRef back(kabi::d9(bytes.get()));
  ASSERT_TRUE(back);
  EXPECT_TRUE(khost::Match(x.get(), back.get())) << khost::S1(back.get());
  EXPECT_EQ(bytes->r, 0);
}

// =============================================================================================
// Object model: frees, joins, policies
// =============================================================================================

TEST_F(KhostTest, R0FreesRecursively) {
  const std::int64_t freed = khost::Stats().freed;
  kabi::r0(kabi::knk(2, kq::Longs({1, 2}), kabi::xD(kq::Syms({"a"}), kq::Longs({1}))));
  EXPECT_EQ(khost::Stats().freed, freed + 5);
}

TEST_F(KhostTest, R0LeavesSharedChildrenAlive) {
  KRef child(kq::Longs({1, 2}));
  kabi::r0(kabi::knk(1, kabi::r1(child.get())));
  EXPECT_EQ(child->r, 0);
  EXPECT_EQ(khost::S1(child.get()), "1 2");
}

TEST_F(KhostTest, JoinsGrowAndMoveAndStaleCopiesAreCaught) {
  K x = kabi::ktn(kabi::kSymbol, 0);
  K first = x;
  char name[] = "s";
  for (int i = 0; i < 100; ++i) kabi::js(&x, kabi::ss(name));
  KRef owner(x);
  EXPECT_NE(x, first);
  EXPECT_EQ(x->n, 100);
  ReportCapture capture;
  kabi::r1(first);
  EXPECT_TRUE(capture.Has(Check::kUseAfterFree)) << Reports(capture);
  EXPECT_THAT(Reports(capture), HasSubstr("a join moved it"));
}

TEST_F(KhostTest, JkTakesItsItemAndJvSharesItems) {
  K x = kabi::ktn(kabi::kMixed, 0);
  kabi::jk(&x, kq::Longs({1}));
  kabi::jk(&x, kq::Sym("a"));
  KRef list(x);
  EXPECT_EQ(khost::S1(list.get()), "(,1;`a)");
  K y = kabi::ktn(kabi::kMixed, 0);
  kabi::jv(&y, list.get());
  KRef copy(y);
  EXPECT_EQ(kabi::Items(list.get())[0]->r, 1);
  EXPECT_EQ(khost::S1(copy.get()), "(,1;`a)");
}

TEST_F(KhostTest, JvOfAnObjectOntoItself) {
  K x = kq::Longs({1, 2, 3});
  kabi::jv(&x, x);
  KRef owner(x);
  EXPECT_EQ(khost::S1(x), "1 2 3 1 2 3");
}

TEST_F(KhostTest, UnfilledSlotsHoldThePoisonPointer) {
  K x = kabi::ktn(kabi::kMixed, 2);
  EXPECT_TRUE(khost::internal::IsUnfilled(kabi::Items(x)[0]));
  ReportCapture capture;
  kabi::r0(x);
  EXPECT_TRUE(capture.Has(Check::kUnfilledSlot)) << Reports(capture);
  K s = kabi::ktn(kabi::kSymbol, 1);
  kabi::r0(s);
  EXPECT_EQ(capture.Count(Check::kUnfilledSlot), 3)
      << Reports(capture);  // two list slots, one symbol
}

TEST_F(KhostTest, ReleasePolicyStillIdentifiesUseAfterFree) {
  const khost::FreePolicy policy = khost::GetFreePolicy();
  khost::SetFreePolicy(khost::FreePolicy::kRelease);
  K x = kabi::kj(1);
  kabi::r0(x);
  khost::SetFreePolicy(policy);
  ReportCapture capture;
  kabi::r1(x);
  EXPECT_TRUE(capture.Has(Check::kUseAfterFree)) << Reports(capture);
}

TEST_F(KhostTest, QuarantineCanBeReleased) {
  const khost::FreePolicy policy = khost::GetFreePolicy();
  khost::SetFreePolicy(khost::FreePolicy::kQuarantine);
  kabi::r0(kabi::kj(1));
  EXPECT_GT(khost::Stats().quarantined, 0);
  khost::ReleaseQuarantine();
  EXPECT_EQ(khost::Stats().quarantined, 0);
  khost::SetFreePolicy(policy);
}

TEST_F(KhostTest, StatsCountObjects) {
  const khost::HostStats before = khost::Stats();
  KRef x(kq::Longs({1}));
  KRef y(kq::Sym("a"));
  const khost::HostStats after = khost::Stats();
  EXPECT_EQ(after.live, before.live + 2);
  EXPECT_EQ(after.allocated, before.allocated + 2);
  EXPECT_GE(after.peak, after.live);
  EXPECT_GE(after.live_by_type.at(kabi::kLong), 1);
  EXPECT_GE(after.live_by_type.at(-kabi::kSymbol), 1);
}

// =============================================================================================
// §4.7 checks, each provoked
// =============================================================================================

TEST_F(KhostTest, DefaultModeFailsTheTest) {
  K x = kabi::kj(1);
  kabi::r0(x);
  EXPECT_NONFATAL_FAILURE(kabi::r0(x), "double r0");
}

TEST_F(KhostTest, CountOnlyModeRecords) {
  khost::SetReportMode(khost::ReportMode::kCountOnly);
  const std::size_t before = khost::Stats().reports.size();
  K x = kabi::kj(1);
  kabi::r0(x);
  kabi::r0(x);
  khost::SetReportMode(khost::ReportMode::kFail);
  const std::vector<khost::Report> reports = khost::Stats().reports;
  ASSERT_EQ(reports.size(), before + 1);
  EXPECT_EQ(reports.back().check, Check::kDoubleFree);
  EXPECT_EQ(reports.back().type, -kabi::kLong);
  EXPECT_GT(reports.back().serial, 0u);
}

TEST_F(KhostTest, UseAfterFreeAtApiEntries) {
  K x = kq::Longs({1});
  kabi::r0(x);
  ReportCapture capture;
  kabi::r1(x);
  K list = kabi::ktn(kabi::kMixed, 0);
  kabi::jv(&list, x);
  KRef owner(list);
  kabi::r0(kabi::b9(-1, x));
  EXPECT_EQ(capture.Count(Check::kUseAfterFree), 3) << Reports(capture);
}

TEST_F(KhostTest, NullAndForeignPointers) {
  ReportCapture capture;
  kabi::r1(nullptr);
  kabi::Object on_stack{};
  kabi::r0(&on_stack);
  K list = kabi::ktn(kabi::kMixed, 0);
  kabi::js(&list, kabi::ss(static_text));
  KRef owner(list);
  EXPECT_EQ(capture.Count(Check::kBadPointer), 2) << Reports(capture);
  EXPECT_EQ(capture.Count(Check::kJoinMisuse), 1) << Reports(capture);
}

TEST_F(KhostTest, OverwrittenPrefixIsReported) {
  KRef x(kabi::kj(1));
  khost::internal::Prefix* prefix = khost::internal::PrefixOf(x.get());
  const std::uint64_t magic = prefix->magic;
  prefix->magic = 0;
  ReportCapture capture;
  kabi::r1(x.get());
  prefix->magic = magic;
  EXPECT_THAT(Reports(capture), HasSubstr("overwritten prefix"));
}

TEST_F(KhostTest, JoinMisuse) {
  ReportCapture capture;
  K longs = kq::Longs({1});
  kabi::js(&longs, kabi::ss(static_text));
  kabi::jk(&longs, kabi::kj(2));  // jk still takes its item
  longs->u = 1;
  long long v = 3;
  kabi::ja(&longs, &v);
  K symbols = kq::Syms({"a"});
  kabi::js(&symbols, static_text);
  KRef owners[] = {KRef(longs), KRef(symbols)};
  EXPECT_EQ(capture.Count(Check::kJoinMisuse), 3) << Reports(capture);
  EXPECT_EQ(capture.Count(Check::kNotInterned), 1) << Reports(capture);
  longs->u = 0;
}

TEST_F(KhostTest, ErrorObjectMisuse) {
  kabi::krr("e");
  KRef e(kabi::ee(nullptr));
  ReportCapture capture;
  kabi::r1(e.get());
  kabi::r0(e.get());
  EXPECT_EQ(capture.Count(Check::kErrorObjectMisuse), 1) << Reports(capture);
}

TEST_F(KhostTest, MalformedDictionaryIsReportedByXd) {
  ReportCapture capture;
  KRef d(kabi::xD(kq::Syms({"a", "b"}), kq::Longs({1})));
  EXPECT_TRUE(capture.Has(Check::kMalformed)) << Reports(capture);
}

TEST_F(KhostTest, BadRanksAndTypes) {
  ReportCapture capture;
  KRef f(kabi::dl(reinterpret_cast<void*>(&Leaky), 9));
  EXPECT_EQ(kabi::ktn(3, 1), nullptr);
  KRef g(khost::Function(0, [](const std::vector<K>&) { return kabi::kj(0); }));
  EXPECT_EQ(capture.Count(Check::kBadArgument), 3) << Reports(capture);
  EXPECT_EQ(khost::Call(f.get(), {}).error, "rank");
}

TEST_F(KhostTest, PluginLeakIsReported) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&Leaky), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {}, "leaky");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(capture.Count(Check::kLeak), 1) << Reports(capture);
  EXPECT_THAT(Reports(capture), HasSubstr("leaky allocated object"));
  kabi::r0(leaked_object);
}

TEST_F(KhostTest, RetainedObjectsCanBeExcused) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&Leaky), 1));
  const std::int64_t retained = khost::Stats().retained;
  {
    khost::AllowRetained allow;
    khost::Result r = khost::Call(f.get(), {});
  }
  EXPECT_EQ(khost::Stats().retained, retained + 1);
  kabi::r0(leaked_object);
}

TEST_F(KhostTest, R0OfABorrowedArgument) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&FreesArgument), 1));
  KRef x(kq::Longs({1}));
  kabi::r1(x.get());  // the plugin's r0 drops this one
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {x.get()});
  EXPECT_EQ(capture.Count(Check::kBorrowedFreed), 1) << Reports(capture);
}

TEST_F(KhostTest, ReturningABorrowedArgumentWithoutR1) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&ReturnsArgument), 1));
  KRef g(kabi::dl(reinterpret_cast<void*>(&WrapsArgument), 1));
  KRef x(kq::Longs({1}));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {x.get()});
  r.value.release();  // it is x itself
  khost::Result s = khost::Call(g.get(), {x.get()});
  kabi::r1(x.get());  // the reference the list took without r1
  EXPECT_EQ(capture.Count(Check::kBorrowedReturned), 2) << Reports(capture);
}

TEST_F(KhostTest, OverOwnership) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&GivesTwice), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_EQ(capture.Count(Check::kOverOwnership), 1) << Reports(capture);
  kabi::r1(kabi::Items(r.value.get())[0]);
}

TEST_F(KhostTest, UnfilledSlotAtTheBoundary) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&LeavesSlots), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_EQ(capture.Count(Check::kUnfilledSlot), 2) << Reports(capture);
  kabi::Items(r.value.get())[0] = kabi::kj(0);
  kabi::Items(r.value.get())[1] = kabi::kj(0);
}

TEST_F(KhostTest, NonInternedSymbolAtTheBoundary) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&BadSymbol), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_EQ(capture.Count(Check::kNotInterned), 1) << Reports(capture);
}

TEST_F(KhostTest, MalformedTableAtTheBoundary) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&UnevenTable), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_THAT(Reports(capture), HasSubstr("uneven columns"));
}

TEST_F(KhostTest, KrrThenValidResult) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&KrrThenValue), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_EQ(capture.Count(Check::kKrrThenValue), 1) << Reports(capture);
}

TEST_F(KhostTest, MessageNotInStableStorage) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&UnstableMessage), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_EQ(r.error, "first");
  EXPECT_EQ(capture.Count(Check::kUnstableMessage), 1) << Reports(capture);
}

TEST_F(KhostTest, ReservedMessage) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&Reserved), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_EQ(r.error, "stop");
  EXPECT_EQ(capture.Count(Check::kReservedMessage), 1) << Reports(capture);
}

TEST_F(KhostTest, ExceptionEscapingAPluginFunction) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&Throws), 1));
  ReportCapture capture;
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.error, HasSubstr("boom"));
  EXPECT_EQ(capture.Count(Check::kException), 1) << Reports(capture);
}

TEST_F(KhostTest, KOffTheMainThread) {
  ReportCapture capture;
  std::thread([] { kabi::r0(kabi::k(0, "enlist", kabi::kj(1), static_cast<K>(nullptr))); }).join();
  EXPECT_EQ(capture.Count(Check::kThread), 1) << Reports(capture);
}

TEST_F(KhostTest, R0OnAnotherThreadThanTheAllocator) {
  K x = kabi::kj(1);
  ReportCapture capture;
  std::thread([x] { kabi::r0(x); }).join();
  EXPECT_EQ(capture.Count(Check::kThread), 1) << Reports(capture);
}

TEST_F(KhostTest, InterningOffTheMainThreadNeedsSetm) {
  ReportCapture capture;
  char name[] = "threaded";
  std::thread([&] { kabi::ss(name); }).join();
  EXPECT_EQ(capture.Count(Check::kThread), 1) << Reports(capture);
  const int previous = kabi::setm(1);
  std::thread([&] { kabi::ss(name); }).join();
  EXPECT_EQ(kabi::setm(previous), 1);
  EXPECT_EQ(capture.Count(Check::kThread), 1) << Reports(capture);
}

TEST_F(KhostTest, LeakScopeReportsWhatOutlivesIt) {
  K x = nullptr;
  ReportCapture capture;
  {
    khost::LeakScope scope;
    x = kabi::knk(1, kabi::kj(1));
    EXPECT_EQ(scope.Leaked(), 2);
  }
  EXPECT_EQ(capture.Count(Check::kLeak), 1) << Reports(capture);  // the list, not its item
  kabi::r0(x);
}

// =============================================================================================
// dl, dot, k and host functions
// =============================================================================================

TEST_F(KhostTest, ArgumentShapesFollowQ) {
  KRef type(kabi::dl(reinterpret_cast<void*>(&TypeOf), 1));
  KRef count(kabi::dl(reinterpret_cast<void*>(&CountOf), 1));
  KRef add(kabi::dl(reinterpret_cast<void*>(&Add), 2));
  KRef one(kabi::kj(1)), two(kabi::kj(2));
  EXPECT_EQ(khost::S1(khost::Call(type.get(), {}).value.get()), "101h");  // f[]
  EXPECT_EQ(khost::S1(khost::Call(count.get(), {one.get(), two.get()}).value.get()),
            "2");                                                                         // f(a;b)
  EXPECT_EQ(khost::S1(khost::Call(add.get(), {one.get(), two.get()}).value.get()), "3");  // f[a;b]
  EXPECT_EQ(khost::Call(add.get(), {one.get()}).error, "rank");
  EXPECT_EQ(one->r, 0);
}

TEST_F(KhostTest, ZeroWithoutErrorIsGenericNull) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&ReturnsNothing), 1));
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.value);
  KRef args(kabi::knk(1, kabi::kj(0)));
  KRef viaDot(kabi::dot(f.get(), args.get()));
  EXPECT_EQ(khost::S1(viaDot.get()), "::");
}

TEST_F(KhostTest, ErrorObjectResultsAreErrors) {
  KRef f(kabi::dl(reinterpret_cast<void*>(&ReturnsError), 1));
  ReportCapture capture;  // k of an unknown expression is a warning
  khost::Result r = khost::Call(f.get(), {});
  EXPECT_EQ(r.error, "khost: cannot evaluate 'no such thing'");
  EXPECT_EQ(capture.Count(Check::kCannotEvaluate), 1);
}

TEST_F(KhostTest, DotAppliesHostFunctions) {
  KRef f(khost::Function(
      2, [](const std::vector<K>& args) { return kabi::kj(args[0]->j * args[1]->j); }));
  KRef args(kq::Longs({6, 7}));
  KRef product(kabi::dot(f.get(), args.get()));
  EXPECT_EQ(khost::S1(product.get()), "42");
  EXPECT_EQ(khost::S1(f.get()), "{host function}");
}

TEST_F(KhostTest, HostFunctionErrorsAreDotErrors) {
  KRef f(khost::Function(1, [](const std::vector<K>&) { return kabi::krr("nope"); }));
  KRef args(kabi::knk(1, kabi::kj(1)));
  EXPECT_EQ(kabi::dot(f.get(), args.get()), nullptr);
  KRef e(kabi::ee(nullptr));
  EXPECT_STREQ(e->s, "nope");
}

TEST_F(KhostTest, RankOneHostFunctionTakesAWholeList) {
  std::string seen;
  KRef f(khost::Function(1, [&](const std::vector<K>& args) {
    seen = khost::S1(args[0]);
    return kabi::r1(args[0]);
  }));
  KRef args(kabi::knk(2, kabi::kj(1), kq::Sym("a")));
  KRef result(kabi::dot(f.get(), args.get()));
  EXPECT_EQ(seen, "(1;`a)");
  EXPECT_EQ(khost::S1(result.get()), "(1;`a)");
}

TEST_F(KhostTest, KBuiltins) {
  KRef s1(kabi::k(0, ".Q.s1", kq::Longs({1, 2, 3}), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(s1.get()), "\"1 2 3\"");
  KRef shown(kabi::k(0, "0N!", kq::Sym("a"), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::TakeConsole(), "`a\n");
  EXPECT_EQ(khost::S1(shown.get()), "`a");
  KRef enlisted(kabi::k(0, "enlist", kabi::kj(5), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(enlisted.get()), ",5");
  KRef table(kabi::k(0, "enlist", kq::Parse("`a`b!1 2"), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(table.get()), "+`a`b!(,1;,2)");
  KRef match(kabi::k(0, "~", kq::Parse("1 2"), kq::Longs({1, 2}), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(match.get()), "1b");
  KRef differ(kabi::k(0, "~", kq::Parse("1 2"), kq::Ints({1, 2}), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(differ.get()), "0b");
}

TEST_F(KhostTest, KCasts) {
  auto cast = [](K type, K x) {
    KRef r(kabi::k(0, "$", type, x, static_cast<K>(nullptr)));
    return khost::S1(r.get());
  };
  EXPECT_EQ(cast(kabi::kh(1), kq::Longs({0, 2})), "01b");
  EXPECT_EQ(cast(kq::Sym("float"), kq::Longs({1, 0x7fffffffffffffffLL})), "1 0w");
  EXPECT_EQ(cast(kabi::kc('j'), kq::Floats({2.5, -2.5, NAN})), "3 -3 0N");
  EXPECT_EQ(cast(kabi::kc('i'), kabi::kj(kabi::kNullLong)), "0Ni");
  EXPECT_EQ(cast(kabi::kc('e'), kabi::kj(1)), "1e");
  EXPECT_EQ(cast(kq::Sym(""), kq::Str("abc")), "'type");
  EXPECT_EQ(cast(kabi::kc('s'), kq::Str("abc")), "`abc");
  EXPECT_EQ(cast(kabi::kc('s'), kq::Parse("(\"ab\";\"cd\")")), "`ab`cd");
  EXPECT_EQ(cast(kabi::kc('x'), kq::Str("a")), ",0x61");
  EXPECT_EQ(cast(kabi::kc('j'), kq::Parse("(1.5;2h)")), "2 2");
  EXPECT_EQ(cast(kabi::kc('j'), kq::Parse("(1.5;`a)")), "'type");
  EXPECT_EQ(cast(kabi::kc('q'), kabi::kj(1)), "'type");
}

TEST_F(KhostTest, KWritesFilesUnderATemporaryDirectory) {
  KRef path(
      kabi::k(0, "1:", kq::Sym(":out/file.bin"), kq::Bytes({1, 2, 3}), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(path.get()), "`:out/file.bin");
  std::ifstream in(khost::TempPath(":out/file.bin"), std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, std::string("\x01\x02\x03", 3));
  KRef empty(
      kabi::k(0, "1:", kq::Sym(":empty"), kabi::ktn(kabi::kBoolean, 0), static_cast<K>(nullptr)));
  std::ifstream none(khost::TempPath(":empty"), std::ios::binary | std::ios::ate);
  EXPECT_EQ(none.tellg(), 0);
}

TEST_F(KhostTest, KAppliesFunctionsAndDefinitions) {
  KRef twice(
      khost::Function(1, [](const std::vector<K>& args) { return kabi::kj(2 * args[0]->j); }));
  KRef at(kabi::k(0, "@", kabi::r1(twice.get()), kabi::kj(4), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(at.get()), "8");
  KRef dot(
      kabi::k(0, ".", kabi::r1(twice.get()), kabi::knk(1, kabi::kj(5)), static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(dot.get()), "10");
  khost::Define("{[h;f;s;x] h(f;s;x)}", [](const std::vector<K>& args) {
    return kabi::kj(static_cast<long long>(args.size()));
  });
  KRef hook(kabi::k(0, "{[h;f;s;x] h(f;s;x)}", kabi::kj(1), kabi::kj(2), kabi::kj(3), kabi::kj(4),
                    static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(hook.get()), "4");
  khost::Define("fails", [](const std::vector<K>&) { return kabi::krr("failed"); });
  KRef failed(kabi::k(0, "fails", static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(failed.get()), "'failed");
  khost::Undefine("fails");
  khost::Undefine("{[h;f;s;x] h(f;s;x)}");
  ReportCapture capture;
  KRef gone(kabi::k(0, "fails", static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(gone.get()), "'khost: cannot evaluate 'fails'");
}

TEST_F(KhostTest, KHandles) {
  KRef remote(kabi::k(5, "x", static_cast<K>(nullptr)));
  EXPECT_EQ(khost::S1(remote.get()), "'khost: no connection on handle 5");
  K async = kabi::k(-5, "x", kabi::kj(1), static_cast<K>(nullptr));
  EXPECT_NE(async, nullptr);
  ReportCapture capture;
  kabi::r0(async);
  EXPECT_EQ(capture.Count(Check::kBadPointer), 1) << Reports(capture);
}

// =============================================================================================
// Builders and the one-line renderer
// =============================================================================================

TEST_F(KhostTest, S1OfTheSpecExamples) {
  KRef pointer(kabi::knk(1, kabi::kj(68610912)));
  EXPECT_EQ(khost::S1(pointer.get()), ",68610912");
  KRef pointers(kabi::knk(2, kabi::knk(1, kabi::kj(48128768)), kabi::knk(1, kabi::kj(48129232))));
  EXPECT_EQ(khost::S1(pointers.get()), "(,48128768;,48129232)");
  KRef joined(kabi::knk(2, kabi::kj(48128768), kabi::kj(48129232)));
  EXPECT_EQ(khost::S1(joined.get()), "(48128768;48129232)");
  KRef longs(kq::Longs({48128768, 48129232}));
  EXPECT_EQ(khost::S1(longs.get()), "48128768 48129232");
  KRef reduce(kq::Dict(kq::Syms({"reduce"}), kq::Syms({"mean"})));
  EXPECT_EQ(khost::S1(reduce.get()), "(,`reduce)!,`mean");
  KRef options(kq::Dict(kq::Syms({"weight", "ignore", "smoothing", "reduce"}),
                        kq::List({kq::Null(), kq::Long(-100), kq::Float(0), kq::Sym("mean")})));
  EXPECT_EQ(khost::S1(options.get()), "`weight`ignore`smoothing`reduce!(::;-100;0f;`mean)");
  KRef table(kq::Table({{"a", kq::Longs({1, 2})}, {"b", kq::Longs({3, 4})}}));
  EXPECT_EQ(khost::S1(table.get()), "+`a`b!(1 2;3 4)");
  KRef empty_list(kabi::ktn(kabi::kMixed, 0)), empty_string(kq::Str("")), no_symbols(kq::Syms({})),
      no_longs(kq::Longs({}));
  EXPECT_EQ(khost::S1(empty_list.get()), "()");
  EXPECT_EQ(khost::S1(empty_string.get()), "\"\"");
  EXPECT_EQ(khost::S1(no_symbols.get()), "`symbol$()");
  EXPECT_EQ(khost::S1(no_longs.get()), "`long$()");
  EXPECT_EQ(khost::S1(nullptr), "::");
}

TEST_F(KhostTest, S1OfNumbers) {
  auto s1 = [](K x) { return khost::S1(KRef(x).get()); };
  EXPECT_EQ(s1(kq::Floats({2.0 / 3, 4.0 / 3, 2})), "0.6666667 1.333333 2");
  EXPECT_EQ(s1(kq::Floats({1, 2, 3})), "1 2 3f");
  EXPECT_EQ(s1(kq::Floats({2, 2})), "2 2f");
  EXPECT_EQ(s1(kq::Reals({0, 0, 0})), "0 0 0e");
  EXPECT_EQ(s1(kq::Reals({2.0f / 3, 4.0f / 3, 2})), "0.6666667 1.333333 2e");
  EXPECT_EQ(s1(kq::Real(1.0312063f)), "1.031206e");
  EXPECT_EQ(s1(kq::Float(1)), "1f");
  EXPECT_EQ(s1(kq::Float(1.5)), "1.5");
  EXPECT_EQ(s1(kq::Float(9.223372036854775807e18)), "9.223372e+18");
  EXPECT_EQ(s1(kq::NullOf(kabi::kFloat)), "0n");
  EXPECT_EQ(s1(kq::InfOf(kabi::kFloat)), "0w");
  EXPECT_EQ(s1(kq::Float(-kabi::kInfFloat)), "-0w");
  EXPECT_EQ(s1(kq::Floats({1, NAN})), "1 0n");
  EXPECT_EQ(s1(kq::Long(1)), "1");
  EXPECT_EQ(s1(kq::NullOf(kabi::kLong)), "0N");
  EXPECT_EQ(s1(kq::InfOf(kabi::kLong)), "0W");
  EXPECT_EQ(s1(kq::Long(-kabi::kInfLong)), "-0W");
  EXPECT_EQ(s1(kq::Ints({1, kabi::kNullInt, 3})), "1 0N 3i");
  EXPECT_EQ(s1(kq::Int(7)), "7i");
  EXPECT_EQ(s1(kq::NullOf(kabi::kInt)), "0Ni");
  EXPECT_EQ(s1(kq::Short(1)), "1h");
  EXPECT_EQ(s1(kq::Shorts({kabi::kNullShort, kabi::kNullShort})), "0N 0Nh");
  EXPECT_EQ(s1(kq::Bools({0, 1, 0, 1})), "0101b");
  EXPECT_EQ(s1(kq::Bools({1})), ",1b");
  EXPECT_EQ(s1(kq::Bool(true)), "1b");
  EXPECT_EQ(s1(kq::Byte(0)), "0x00");
  EXPECT_EQ(s1(kq::Bytes({1, 0xab})), "0x01ab");
  EXPECT_EQ(s1(kq::Longs({7})), ",7");
  const int previous = khost::SetPrecision(3);
  EXPECT_EQ(s1(kq::Float(2.0 / 3)), "0.667");
  khost::SetPrecision(0);
  EXPECT_EQ(s1(kq::Float(0.1)), "0.10000000000000001");
  khost::SetPrecision(previous);
}

TEST_F(KhostTest, S1OfTextAndSymbols) {
  auto s1 = [](K x) { return khost::S1(KRef(x).get()); };
  EXPECT_EQ(s1(kq::Str("a\"b\\c\nd\te")), "\"a\\\"b\\\\c\\nd\\te\"");
  EXPECT_EQ(s1(kq::Str(std::string("\x01z", 2))), "\"\\001z\"");
  EXPECT_EQ(s1(kq::Char('x')), "\"x\"");
  EXPECT_EQ(s1(kq::Str("x")), ",\"x\"");
  EXPECT_EQ(s1(kq::NullOf(kabi::kChar)), "\" \"");
  EXPECT_EQ(s1(kq::Sym("a")), "`a");
  EXPECT_EQ(s1(kq::Syms({"a", "", "b"})), "`a``b");
  EXPECT_EQ(s1(kq::Syms({"a"})), ",`a");
  EXPECT_EQ(s1(kq::NullOf(kabi::kSymbol)), "`");
}

TEST_F(KhostTest, S1OfTemporalValues) {
  auto s1 = [](K x) { return khost::S1(KRef(x).get()); };
  EXPECT_EQ(s1(kq::Date(0)), "2000.01.01");
  EXPECT_EQ(s1(kq::Date(8825)), "2024.02.29");
  EXPECT_EQ(s1(kq::Date(-1)), "1999.12.31");
  EXPECT_EQ(s1(kq::Month(1)), "2000.02m");
  EXPECT_EQ(s1(kq::Vector(kabi::kMonth, {0, 13})), "2000.01 2001.02m");
  EXPECT_EQ(s1(kq::Timestamp(1)), "2000.01.01D00:00:00.000000001");
  EXPECT_EQ(s1(kq::Timestamp(-1)), "1999.12.31D23:59:59.999999999");
  EXPECT_EQ(s1(kq::Timespan(90061000000001)), "1D01:01:01.000000001");
  EXPECT_EQ(s1(kq::Timespan(-1000000000)), "-0D00:00:01.000000000");
  EXPECT_EQ(s1(kq::Minute(750)), "12:30");
  EXPECT_EQ(s1(kq::Second(45015)), "12:30:15");
  EXPECT_EQ(s1(kq::Time(45015250)), "12:30:15.250");
  EXPECT_EQ(s1(kq::Datetime(1.5)), "2000.01.02T12:00:00.000");
  EXPECT_EQ(s1(kq::NullOf(kabi::kDate)), "0Nd");
  EXPECT_EQ(s1(kq::NullOf(kabi::kTimestamp)), "0Np");
  EXPECT_EQ(s1(kq::InfOf(kabi::kTime)), "0Wt");
  EXPECT_EQ(s1(kq::NullOf(kabi::kDatetime)), "0Nz");
  EXPECT_EQ(s1(kq::Vector(kabi::kDate, {0, kabi::kNullInt})), "2000.01.01 0N");
  EXPECT_EQ(s1(kq::Vector(kabi::kDate, {kabi::kNullInt, kabi::kNullInt})), "0N 0Nd");
  const std::uint8_t bytes[16] = {0x8c, 0x68, 0x0a, 0x01, 0x5a, 0x49, 0x5a, 0xab,
                                  0x5a, 0x65, 0xd4, 0xbf, 0xdd, 0xb6, 0xa6, 0x61};
  EXPECT_EQ(s1(kq::Guid(bytes)), "8c680a01-5a49-5aab-5a65-d4bfddb6a661");
}

TEST_F(KhostTest, S1ShowsBrokenChildrenAndReportsThem) {
  K list = kabi::ktn(kabi::kMixed, 2);
  kabi::Items(list)[0] = kabi::kj(1);
  ReportCapture capture;
  EXPECT_EQ(khost::S1(list), "(1;<unfilled>)");
  K freed = kabi::kj(2);
  kabi::r0(freed);
  kabi::Items(list)[1] = freed;
  EXPECT_THAT(khost::S1(list), ::testing::MatchesRegex("\\(1;<freed #[0-9]+>\\)"));
  kabi::Items(list)[1] = kabi::kj(2);
  kabi::r0(list);
  EXPECT_EQ(capture.Count(Check::kUnfilledSlot), 1) << Reports(capture);
  EXPECT_EQ(capture.Count(Check::kUseAfterFree), 1) << Reports(capture);
}

TEST_F(KhostTest, BuildersMakeTheRightTypes) {
  KRef e(kq::Enlist(kq::Sym("x")));
  EXPECT_EQ(khost::S1(e.get()), ",`x");
  KRef g(kq::Enlist(kq::Longs({1, 2})));
  EXPECT_EQ(khost::S1(g.get()), ",1 2");
  KRef c(kq::Collapse({kabi::kj(1), kabi::kj(2)}));
  EXPECT_EQ(khost::S1(c.get()), "1 2");
  KRef mixed(kq::Collapse({kabi::kj(1), kq::Null()}));
  EXPECT_EQ(khost::S1(mixed.get()), "(1;::)");
  KRef h(kq::Vector(kabi::kShort, {1, 2}));
  EXPECT_EQ(khost::S1(h.get()), "1 2h");
  KRef n(kq::Null());
  EXPECT_EQ(n->t, kabi::kUnaryPrimitive);
  EXPECT_EQ(n->g, 0);
  KRef inf(kq::InfOf(kabi::kInt));
  EXPECT_EQ(inf->i, kabi::kInfInt);
}

// =============================================================================================
// The console renderer and normalisation
// =============================================================================================

TEST_F(KhostTest, ShowListsOneItemPerLine) {
  KRef nulls(kabi::knk(2, kq::Null(), kq::Null()));
  EXPECT_EQ(khost::Show(nulls.get()), "::\n::");
  KRef rows(kq::Parse("(0 1 2;3 4 5;,6)"));
  EXPECT_EQ(khost::Show(rows.get()), "0 1 2\n3 4 5\n,6");
  KRef null(kq::Null());
  EXPECT_EQ(khost::Show(null.get()), "");
  EXPECT_EQ(khost::Show(nullptr), "");
  KRef real(kq::Real(0.1857143f));
  EXPECT_EQ(khost::Show(real.get()), "0.1857143e");
}

TEST_F(KhostTest, ShowDictionaries) {
  KRef d(kq::Dict(kq::Syms({"self_attn", "linear1", "dropout"}),
                  kq::List({kq::Syms({"in_proj_weight", "in_proj_bias"}),
                            kq::Syms({"weight", "bias"}), kq::Syms({})})));
  EXPECT_EQ(khost::Show(d.get()),
            "self_attn| `in_proj_weight`in_proj_bias\n"
            "linear1  | `weight`bias\n"
            "dropout  | `symbol$()");
  KRef sizes(kq::Parse("`tensor`module`loss!(64 128;2;0)"));
  EXPECT_EQ(khost::Show(sizes.get()), "tensor| 64 128\nmodule| 2\nloss  | 0");
  KRef simple(kq::Parse("`a`bc!0N 1"));
  EXPECT_EQ(khost::Show(simple.get()), "a | \nbc| 1");
}

TEST_F(KhostTest, ShowTables) {
  KRef t(
      kq::Parse("([] name:`x`y`z; dtype:`float`float`float; gradient:`grad`grad`grad; "
                "gradfn:``MulBackward0`MeanBackward0; leaf:100b)"));
  EXPECT_EQ(khost::Show(t.get()),
            "name dtype gradient gradfn        leaf\n"
            "--------------------------------------\n"
            "x    float grad                   1\n"
            "y    float grad     MulBackward0  0\n"
            "z    float grad     MeanBackward0 0");
  KRef keyed(kq::Parse("([a:1 2] b:`x`y)"));
  EXPECT_EQ(khost::Show(keyed.get()), "a| b\n-| -\n1| x\n2| y");
  KRef nested(kq::Parse("([] size:(,3;3 4); s:(\"ab\";\"c\"))"));
  EXPECT_EQ(khost::Show(nested.get()), "size s\n---------\n,3   \"ab\"\n3 4  \"c\"");
}

// Zero matrices of reals, rows x cols, as a general list of rows.
K ZeroMatrix(int rows, int cols) {
  K m = kabi::ktn(kabi::kMixed, rows);
  for (int r = 0; r < rows; ++r) {
    kabi::Items(m)[r] = kabi::ktn(kabi::kReal, cols);
    std::memset(kabi::Reals(kabi::Items(m)[r]), 0, 4 * cols);
  }
  return m;
}

TEST_F(KhostTest, ShowTruncatesToTheConsole) {
  // Seed 004, `grad each(aw;bw)`.
  KRef grads(kabi::knk(2, ZeroMatrix(20, 64), ZeroMatrix(10, 20)));
  EXPECT_EQ(khost::Show(grads.get()),
            "(0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 ..\n"
            "(0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0e;0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0..");
  const khost::ConsoleSize previous = khost::SetConsoleSize({3, 80});
  KRef tall(kq::Parse("(1;`b;3;`d;5)"));
  EXPECT_EQ(khost::Show(tall.get()), "1\n`b\n..");
  khost::SetConsoleSize(previous);
}

TEST_F(KhostTest, NormalizeForSeedComparison) {
  EXPECT_EQ(khost::Normalize("self_attn     | `a\nx  |  1  \n\n"), "self_attn | `a\nx | 1");
  EXPECT_EQ(khost::Normalize("a b\n------\n1 2"), "a b\n-\n1 2");
  khost::NormalizeOptions options;
  options.replace_pointers = true;
  EXPECT_EQ(khost::Normalize("(,48128768;,48129232) 1.5 12", options), "(,<ptr>;,<ptr>) 1.5 12");
  options.replace_pointers = false;
  options.volatile_numbers = {"3", "4"};
  EXPECT_EQ(khost::Normalize("(,3;,4) 34 3.5", options), "(,<ptr>;,<ptr>) 34 3.5");
}

// =============================================================================================
// The literal parser
// =============================================================================================

TEST_F(KhostTest, ParseRoundTripsThroughS1) {
  for (const char* text : {
           "1",
           "-1",
           "1 2 3",
           "1 2 3f",
           "1.5 2",
           "1 2 3e",
           "1e",
           "1.5e",
           "1h",
           "1 2h",
           "1i",
           "0101b",
           ",1b",
           "0x0102",
           "0x01",
           "`a",
           "`a`b",
           "`",
           "`a``b",
           "\"str\"",
           "\"s\"",
           "\"\"",
           "0N",
           "0n",
           "0w",
           "-0w",
           "0W",
           "-0W",
           "0Ni",
           "0Nh",
           "1 0N 3i",
           "0N 0Nh",
           "0Ne",
           "0we",
           "1 0n",
           "::",
           "()",
           "(1;`a)",
           "(,1;,2)",
           "(::;-100;0f;`mean)",
           ",`x",
           ",1 2",
           "`a`b!1 2",
           "(,`reduce)!,`mean",
           "+`a`b!(1 2;3 4)",
           "2000.01.01",
           "2000.01.01 2000.01.02",
           "2000.01m",
           "2000.01 2000.02m",
           "2000.01.01D12:00:00.000000001",
           "2000.01.02T12:00:00.000",
           "1D01:01:01.000000001",
           "12:30",
           "12:30:15",
           "12:30:15.250",
           "0Nd",
           "0Np",
           "1e-05",
           "9.223372e+18",
           "0.6666667 1.333333 2",
           "\"a\\\"b\\\\c\\nd\"",
           "`:path/to/file",
           "`a.b_c",
           "(1 2;3 4)",
           "(`a`b!1 2)!3 4",
       }) {
    KRef x(kq::Parse(text));
    EXPECT_EQ(khost::S1(x.get()), text);
  }
}

TEST_F(KhostTest, ParseResolvesLikeQ) {
  auto s1 = [](const char* text) { return khost::S1(KRef(kq::Parse(text)).get()); };
  EXPECT_EQ(s1("`a`b!(0101b; 1 2 3)"), "`a`b!(0101b;1 2 3)");
  EXPECT_EQ(s1("(1;2;3)"), "1 2 3");
  EXPECT_EQ(s1("(1;2.5)"), "(1;2.5)");
  EXPECT_EQ(s1("enlist 5"), ",5");
  EXPECT_EQ(s1("flip `a`b!(1 2;3 4)"), "+`a`b!(1 2;3 4)");
  EXPECT_EQ(s1("flip `a`b!(1 2;`x)"), "+`a`b!(1 2;`x`x)");
  EXPECT_EQ(s1("([] a:1 2; b:`x`y)"), "+`a`b!(1 2;`x`y)");
  EXPECT_EQ(s1("([k:1 2] v:3 4)"), "(+(,`k)!,1 2)!+(,`v)!,3 4");
  EXPECT_EQ(s1("( 1 ; 2 3 )"), "(1;2 3)");
  EXPECT_EQ(s1("(1;;2)"), "(1;::;2)");
  EXPECT_EQ(s1("()!()"), "()!()");
  EXPECT_EQ(s1("0x"), "`byte$()");
  EXPECT_EQ(s1("\"\\001\""), "\"\\001\"");
  KRef sorted(kq::Parse("`s#1 2 3"));
  EXPECT_EQ(sorted->u, 1);
  KRef reals(kq::Parse("1 2 3e"));
  EXPECT_EQ(reals->t, kabi::kReal);
  KRef timespan(kq::Parse("0D00:00:01.5"));
  EXPECT_EQ(timespan->j, 1500000000);
}

TEST_F(KhostTest, ParseRejectsWhatNeedsEvaluation) {
  for (const char* text :
       {"til 3", "1+2", "x", "f[1]", "(1;2", "\"open", "1 2!3", "`a`b!1", "1 `a"}) {
    EXPECT_THROW(kabi::r0(kq::Parse(text)), std::invalid_argument) << text;
  }
}

// =============================================================================================
// b9 / d9 / okx
// =============================================================================================

TEST_F(KhostTest, B9D9RoundTripsEveryBasicType) {
  for (const char* text : {"1b",
                           "0x01",
                           "1h",
                           "1i",
                           "1",
                           "1e",
                           "1f",
                           "\"c\"",
                           "`s",
                           "2000.01.01D00:00:00.000000001",
                           "2000.01m",
                           "2000.01.01",
                           "2000.01.01T00:00:00.000",
                           "0D00:00:00.000000001",
                           "12:00",
                           "12:00:00",
                           "12:00:00.000",
                           "0101b",
                           "0x0102",
                           "1 2h",
                           "1 2i",
                           "1 2",
                           "1 2e",
                           "1 2f",
                           "\"ab\"",
                           "`a`b",
                           "()",
                           "(1;`a;\"b\")",
                           "`a`b!1 2",
                           "+`a`b!(1 2;`x`y)",
                           "::",
                           "0n",
                           "0N"}) {
    KRef x(kq::Parse(text));
    KRef bytes(kabi::b9(-1, x.get()));
    ASSERT_TRUE(bytes) << text;
    EXPECT_EQ(kabi::okx(bytes.get()), 1) << text;
    KRef back(kabi::d9(bytes.get()));
    ASSERT_TRUE(back) << text;
    EXPECT_TRUE(khost::Match(x.get(), back.get()))
        << text << " came back as " << khost::S1(back.get());
  }
  kabi::krr("gone");
  KRef error(kabi::ee(nullptr));
  KRef bytes(kabi::b9(-1, error.get()));
  KRef back(kabi::d9(bytes.get()));
  EXPECT_EQ(khost::S1(back.get()), "'gone");
}

TEST_F(KhostTest, D9RejectsMalformedBytes) {
  KRef x(kq::Parse("(1 2;`a`b)"));
  KRef bytes(kabi::b9(-1, x.get()));
  K truncated = kabi::ktn(kabi::kByte, bytes->n - 3);
  std::memcpy(kabi::Bytes(truncated), kabi::Bytes(bytes.get()), truncated->n);
  std::uint32_t length = static_cast<std::uint32_t>(truncated->n);
  std::memcpy(kabi::Bytes(truncated) + 4, &length, 4);
  KRef owner(truncated);
  EXPECT_EQ(kabi::okx(truncated), 0);
  EXPECT_EQ(kabi::d9(truncated), nullptr);
  KRef e(kabi::ee(nullptr));
  EXPECT_STREQ(e->s, "badmsg");
  KRef garbage(kq::Bytes({1, 2, 3}));
  EXPECT_EQ(kabi::okx(garbage.get()), 0);
  KRef function(kabi::dl(reinterpret_cast<void*>(&TypeOf), 1));
  EXPECT_EQ(kabi::b9(-1, function.get()), nullptr);
  khost::ClearError();
}

// =============================================================================================
// A real plugin through dlopen
// =============================================================================================

class LibraryTest : public KhostTest {
 protected:
  // Loaded before any test's LeakScope starts: the library's dictionary lives for the process.
  static void SetUpTestSuite() { Lib(); }
  static khost::Library& Lib() {
    static khost::Library* lib = new khost::Library(kscope::testing::kEchoPluginPath);
    return *lib;
  }
};

TEST_F(LibraryTest, LoadsFnsLikeQ) {
  ASSERT_TRUE(Lib().ok()) << Lib().error();
  EXPECT_THAT(Lib().Names(), ElementsAre("echo", "fail", "pair"));
  EXPECT_EQ(Lib().Rank("echo"), 1);
  EXPECT_EQ(Lib().Rank("pair"), 2);
  EXPECT_EQ(Lib().Rank("nothing"), 0);
  EXPECT_EQ(khost::S1(Lib().Dictionary()), "`echo`fail`pair!(code;code;code)");
}

TEST_F(LibraryTest, CallsBorrowArguments) {
  ASSERT_TRUE(Lib().ok()) << Lib().error();
  KRef x(kq::Longs({1, 2, 3}));
  khost::Result r = Lib().Call("echo", x.get());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value.get(), x.get());
  EXPECT_EQ(x->r, 1);
  r.value.reset();
  EXPECT_EQ(x->r, 0);
  KRef a(kabi::kj(1)), b(kq::Sym("b"));
  EXPECT_EQ(khost::S1(Lib().Call("echo", {a.get(), b.get()}).value.get()), "(1;`b)");  // echo(a;b)
  EXPECT_EQ(khost::S1(Lib().Call("echo").value.get()), "::");                          // echo[]
  EXPECT_EQ(khost::S1(Lib().Call("pair", {a.get(), b.get()}).value.get()), "(1;`b)");  // pair[a;b]
  EXPECT_EQ(a->r, 0);
}

TEST_F(LibraryTest, ErrorsComeBackAsText) {
  ASSERT_TRUE(Lib().ok()) << Lib().error();
  KRef x(kabi::kj(1));
  khost::Result r = Lib().Call("fail", x.get());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "fail: bad");
  EXPECT_FALSE(r.value);
  EXPECT_EQ(Lib().Call("nothing", x.get()).error, "khost: no function 'nothing' in the library");
  EXPECT_EQ(Lib().Call("pair", x.get()).error, "rank");
}

TEST_F(LibraryTest, HostFunctionsCanCallBackIntoThePlugin) {
  ASSERT_TRUE(Lib().ok()) << Lib().error();
  // What the plugin's withscope(f; x) does: dot a q function that calls the plugin again.
  KRef f(khost::Function(1, [](const std::vector<K>& args) -> K {
    khost::Result inner = Lib().Call("pair", {args[0], args[0]});
    return inner.ok() ? inner.value.release() : kabi::krr("inner failed");
  }));
  KRef args(kabi::knk(1, kq::Sym("z")));
  KRef result(kabi::dot(f.get(), args.get()));
  EXPECT_EQ(khost::S1(result.get()), "(`z;`z)");
  KRef echo_args(kabi::knk(1, kabi::kj(3)));
  KRef echoed(kabi::dot(Lib().Function("echo"), echo_args.get()));
  EXPECT_EQ(khost::S1(echoed.get()), "3");
}

TEST_F(LibraryTest, MissingLibraryOrSymbol) {
  khost::Library missing("/nonexistent/plugin.so");
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.error(), HasSubstr("dlopen"));
  EXPECT_TRUE(missing.Names().empty());
}

}  // namespace khost_test
