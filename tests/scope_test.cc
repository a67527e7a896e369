// scope/: the per-thread scope stack, the Scope guard, with_scope, strict mode, grad policy,
// and the OCaml refcount-scope cases (scope-rules.md 4.4).
#include <ATen/ops/empty.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#include <gtest/gtest-spi.h>

#include <array>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "tests/test_fixture.h"

namespace kscope {
namespace scope_test {

using ::testing::HasSubstr;
using testing::LeakCheckTest;

using ScopeTest = LeakCheckTest;

std::int64_t RefOf(Handle h) { return ref(h).single(); }

TEST_F(ScopeTest, HandlesCreatedInAScopeDieAtItsExit) {
  Handle t;
  std::optional<c10::weak_intrusive_ptr<c10::TensorImpl>> observed;
  {
    auto scope = Scope::Open();
    EXPECT_EQ(ScopeDepth(), 1);
    t = zeros({1});
    EXPECT_EQ(RefOf(t), 1);  // OCaml: a fresh tensor reports 1
    EXPECT_EQ(obj().back().scope, 1);
    observed.emplace(TensorOf("test", t).getIntrusivePtr());
  }
  EXPECT_TRUE(observed->expired());  // the tensor itself is gone, not just the handle
  EXPECT_EQ(ScopeDepth(), 0);
  EXPECT_FALSE(mapped(t));
  EXPECT_THROW(ref(t), Error);
}

TEST_F(ScopeTest, ViewsKeepTheirBaseAliveUntilScopeExit) {
  // A view created after its base is released first; the base's storage stays alive until the
  // view goes, and both are gone after the exit.
  at::Tensor observed;
  {
    auto scope = Scope::Open();
    Handle base = arange(0, 6);
    Handle view = narrow(base, 0, 1, 2);
    observed = TensorOf("test", base);
    EXPECT_EQ(observed.use_count(), 3u);  // observed, the base handle, the view's base ref
    (void)view;
  }
  EXPECT_EQ(observed.use_count(), 1u);
}

TEST_F(ScopeTest, ReturnedThroughTwoLevelsSurvivesWithRefOne) {
  // E2: inner creates t and a temporary, returns t; middle creates a temporary, returns t.
  auto outer = Scope::Open();
  Handle u_seen, w_seen;
  Handle t = with_scope([&] {
    Handle mid = with_scope([&] {
      Handle inner = zeros({1});
      u_seen = mul(inner, 2.0);
      EXPECT_EQ(RefOf(inner), 1);
      return inner;
    });
    EXPECT_FALSE(mapped(u_seen));
    EXPECT_EQ(RefOf(mid), 1);
    w_seen = add(mid, 1.0);
    return mid;
  });
  EXPECT_FALSE(mapped(w_seen));
  EXPECT_EQ(RefOf(t), 1);
  EXPECT_EQ(obj().back().scope, outer.depth());
  EXPECT_EQ(live_handles(), 1u);
}

TEST_F(ScopeTest, ReturningAnOuterHandleIsANoOp) {
  auto outer = Scope::Open();
  Handle t = zeros({2});
  Handle back = with_scope([&] { return t; });
  EXPECT_EQ(back, t);
  EXPECT_EQ(RefOf(t), 1);
  EXPECT_EQ(live_handles(), 1u);
}

TEST_F(ScopeTest, WithScopeHandsOffVectorsAndTuples) {
  auto outer = Scope::Open();
  std::vector<Handle> two = with_scope([] {
    Handle temp = ones({1});
    (void)temp;
    return std::vector<Handle>{zeros({1}), ones({2})};
  });
  auto [a, n, b] = with_scope([] { return std::make_tuple(zeros({3}), 42, ones({4})); });
  EXPECT_EQ(n, 42);
  EXPECT_EQ(live_handles(), 4u);
  for (Handle h : {two[0], two[1], a, b}) EXPECT_TRUE(mapped(h));
  int plain = with_scope([] {
    Handle dies = zeros({1});
    (void)dies;
    return 7;
  });
  EXPECT_EQ(plain, 7);
  EXPECT_EQ(live_handles(), 4u);
}

TEST_F(ScopeTest, WithScopeHandsOffPairsOptionalsMapsAndArrays) {
  auto outer = Scope::Open();
  const auto [first, second] = with_scope([] { return std::make_pair(zeros({1}), ones({2})); });
  const std::optional<Handle> maybe = with_scope([] { return std::optional<Handle>(ones({3})); });
  const std::optional<Handle> none = with_scope([] {
    static_cast<void>(ones({3}));
    return std::optional<Handle>();
  });
  const std::map<std::string, std::vector<Handle>> named = with_scope([] {
    return std::map<std::string, std::vector<Handle>>{{"x", {zeros({1})}}, {"y", {}}};
  });
  const std::array<Handle, 2> pair_of = with_scope([] {
    return std::array<Handle, 2>{zeros({1}), ones({1})};
  });
  const at::Tensor data = with_scope([] { return at::ones({2}); });
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(data.numel(), 2);
  EXPECT_EQ(live_handles(), 6u);
  for (Handle h : {first, second, *maybe, named.at("x").at(0), pair_of[0], pair_of[1]}) {
    EXPECT_TRUE(mapped(h));
  }
}

TEST_F(ScopeTest, ExceptionsReleaseEverythingAndHandOffNothing) {
  // E3(a): an extra reference held outside; after the catch it is back at 1.
  auto outer = Scope::Open();
  Handle held = zeros({3});
  Handle created;
  EXPECT_THROW(with_scope([&] {
                 created = addref(held);
                 EXPECT_EQ(RefOf(held), 2);
                 Handle r = add(created, 1.0);
                 (void)r;
                 throw std::runtime_error("boom");
                 return created;
               }),
               std::runtime_error);
  EXPECT_FALSE(mapped(created));
  EXPECT_EQ(RefOf(held), 1);
  EXPECT_EQ(ScopeDepth(), outer.depth());
  // The Scope guard form with keep(): nothing is handed off either.
  try {
    auto scope = Scope::Open();
    created = scope.keep(ones({1}));
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(mapped(created));
  EXPECT_EQ(live_handles(), 1u);
}

TEST_F(ScopeTest, ExceptionAfterAnInnerHandOffReleasesTheHandle) {
  // E3(b): I hands t to M, then M throws: t goes with M's unwinding.
  Handle t;
  EXPECT_THROW(with_scope([&] {
                 t = with_scope([] { return zeros({1}); });
                 EXPECT_TRUE(mapped(t));
                 throw std::runtime_error("after hand-off");
               }),
               std::runtime_error);
  EXPECT_FALSE(mapped(t));
}

TEST_F(ScopeTest, LibtorchErrorsUnwindTheScope) {
  Handle a;
  try {
    with_scope([&] {
      a = zeros({2});
      return add(a, zeros({3}));
    });
    FAIL() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("must match the size"));
  }
  EXPECT_FALSE(mapped(a));
  EXPECT_EQ(ScopeDepth(), 0);
}

TEST_F(ScopeTest, GradPolicyIsRestoredOnEveryExitPath) {
  // E3(c).
  ASSERT_TRUE(c10::GradMode::is_enabled());
  {
    auto scope = Scope::Open(GradPolicy::kNoGrad);
    EXPECT_FALSE(c10::GradMode::is_enabled());
  }
  EXPECT_TRUE(c10::GradMode::is_enabled());
  EXPECT_THROW(with_scope(
                   [] {
                     EXPECT_TRUE(c10::InferenceMode::is_enabled());
                     throw std::runtime_error("x");
                   },
                   GradPolicy::kInference),
               std::runtime_error);
  EXPECT_FALSE(c10::InferenceMode::is_enabled());
  EXPECT_TRUE(c10::GradMode::is_enabled());
}

TEST_F(ScopeTest, NoGradScopeBuildsNoGraph) {
  auto outer = Scope::Open();
  Options grad;
  grad.grad = true;
  Handle x = tensor(std::vector<double>{1, 2, 3}, {}, grad);
  Handle y = with_scope([&] { return mul(x, x); }, GradPolicy::kNoGrad);
  EXPECT_EQ(info(y).gradient, "nograd");
  Handle z = mul(x, x);
  EXPECT_EQ(info(z).gradfn, "MulBackward0");
}

TEST_F(ScopeTest, StrictModeRefusesCreationAtTheRoot) {
  SetStrict(true);
  try {
    zeros({1});
    FAIL() << "created at the root in strict mode";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "zeros: no open scope (strict setting): wrap tensor code in a scope");
  }
  EXPECT_EQ(live_handles(), 0u);
  with_scope([] {
    Handle fine = zeros({1});
    EXPECT_TRUE(mapped(fine));
  });
  // A hand-off from the outermost scope lands in the root: allowed, the handle was created
  // inside a scope.
  Handle kept = with_scope([] { return zeros({1}); });
  EXPECT_EQ(obj().back().scope, 0);
  SetStrict(false);
  kscope::free(kept);
}

TEST_F(ScopeTest, KeepValidatesBeforeAnythingIsCommitted) {
  auto outer = Scope::Open();
  Handle stale = zeros({1});
  kscope::free(stale);
  {
    auto scope = Scope::Open();
    EXPECT_THROW(scope.keep(stale), Error);
    Handle inner_owned;
    {
      auto inner = Scope::Open();
      inner_owned = zeros({1});
      try {
        scope.keep(inner_owned);
        FAIL() << "kept a handle of an inner open scope";
      } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("owned by an inner scope"));
      }
    }
    EXPECT_FALSE(mapped(inner_owned));
  }
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(ScopeTest, CloseScopeChecksTheInnermostScope) {
  ScopeId a = OpenScope();
  ScopeId b = OpenScope();
  try {
    CloseScope(a);
    FAIL() << "closed a scope that is not innermost";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("is not the innermost open scope"));
  }
  EXPECT_EQ(ScopeDepth(), 2);
  CloseScope(b);
  CloseScope(a);
  EXPECT_THROW(CloseScope(a), Error);
}

TEST_F(ScopeTest, FreeInsideAScopeThenExit) {
  // E1.
  auto outer = Scope::Open();
  at::Tensor observed;
  {
    auto scope = Scope::Open();
    Handle h = zeros({1});
    Handle h2 = addref(h);
    EXPECT_EQ(RefOf(h), 2);
    kscope::free(h);
    EXPECT_EQ(RefOf(h2), 1);
    try {
      kscope::free(h);
      FAIL() << "double free";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "stale pointer");
    }
    EXPECT_EQ(live_handles(), 1u);
    observed = TensorOf("test", h2);
  }
  EXPECT_EQ(observed.use_count(), 1u);  // exactly one release per handle
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(ScopeTest, UseInALoopKeepsTheLiveCountConstant) {
  // E4(b): the per-iteration scope with use[] replacing the loop-carried value.
  auto outer = Scope::Open();
  Handle acc = zeros({2});
  const std::size_t live = live_handles();
  for (int i = 0; i < 50; ++i) {
    with_scope([&] {
      Handle next = add(acc, 1.0);
      use(acc, next);
    });
    EXPECT_EQ(live_handles(), live);
  }
  EXPECT_EQ(values<float>(acc), (std::vector<float>{50, 50}));
  EXPECT_EQ(RefOf(acc), 1);
}

TEST_F(ScopeTest, UseMovesAnOuterObjectDown) {
  // E4(c): a inner, b outer: b becomes stale and its object now dies with the inner scope.
  auto outer = Scope::Open();
  Handle b = ones({2});
  at::Tensor observed = TensorOf("test", b);
  {
    auto inner = Scope::Open();
    Handle a = zeros({1});
    use(a, b);
    EXPECT_FALSE(mapped(b));
    EXPECT_EQ(observed.use_count(), 2u);
  }
  EXPECT_EQ(observed.use_count(), 1u);
}

TEST_F(ScopeTest, InPlaceMutationOfAnOuterHandleKeepsRefOne) {
  // E8: out= writes return nothing and register nothing.
  auto outer = Scope::Open();
  Handle t = zeros({3});
  with_scope([&] {
    Result r = add(t, 2.0, t);
    EXPECT_TRUE(r.is_none());
    EXPECT_EQ(RefOf(t), 1);
  });
  EXPECT_EQ(values<float>(t), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(live_handles(), 1u);
}

TEST_F(ScopeTest, BaseFreedWhileAViewSurvives) {
  // E9.
  auto outer = Scope::Open();
  Handle base = arange(0, 10);
  Handle view = narrow(base, 0, 2, 3);
  at::Tensor observed = TensorOf("test", base);
  kscope::free(base);
  EXPECT_EQ(observed.use_count(), 2u);  // observed and the view's base reference
  EXPECT_EQ(values<std::int64_t>(view), (std::vector<std::int64_t>{2, 3, 4}));
}

TEST_F(ScopeTest, ThreadsOwnTheirHandlesInTheirOwnScopes) {
  // E7.
  auto outer = Scope::Open();
  Handle mine = zeros({1});
  Handle theirs_kept;
  std::size_t theirs_seen = 0;
  bool their_grad = false;
  {
    auto no_grad = Scope::Open(GradPolicy::kNoGrad);
    std::thread worker([&] {
      their_grad = c10::GradMode::is_enabled();  // grad mode is per thread
      auto scope = Scope::Open();
      Handle local = ones({2});
      theirs_seen = values<float>(mine).size();  // reading another thread's handle is fine
      kscope::free(addref(mine));
      theirs_kept = addref(local);
      try {
        CloseScope(outer.id());
        ADD_FAILURE() << "closed another thread's scope";
      } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("is not open on this thread"));
      }
      // theirs_kept and local die with the worker's scope.
    });
    worker.join();
  }
  EXPECT_TRUE(their_grad);
  EXPECT_EQ(theirs_seen, 1u);
  EXPECT_FALSE(mapped(theirs_kept));
  EXPECT_TRUE(mapped(mine));
  EXPECT_EQ(live_handles(), 1u);
}

TEST_F(ScopeTest, FreeingAnotherThreadsHandleIsSkippedAtItsExit) {
  Handle shared;
  std::mutex mu;
  std::condition_variable cv;
  bool created = false, freed = false;
  std::thread worker([&] {
    auto scope = Scope::Open();
    Handle h = zeros({1});
    {
      std::lock_guard<std::mutex> lock(mu);
      shared = h;
      created = true;
    }
    cv.notify_all();
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return freed; });
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return created; });
    kscope::free(shared);
    freed = true;
  }
  cv.notify_all();
  worker.join();
  EXPECT_FALSE(mapped(shared));
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(ScopeTest, AThreadExitingWithOpenScopesReleasesThem) {
  Handle leaked;
  std::thread worker([&] {
    OpenScope();
    leaked = zeros({1});
  });
  worker.join();
  EXPECT_FALSE(mapped(leaked));
}

TEST_F(ScopeTest, HandOffFromAnotherThreadsScopeIsRefused) {
  Handle theirs;
  std::thread worker([&] { theirs = ones({1}); });  // no scope: owned by the root
  worker.join();
  // Root-owned: returning it is a no-op, not an error.
  Handle back = with_scope([&] { return theirs; });
  EXPECT_EQ(back, theirs);
  kscope::free(theirs);
}

}  // namespace scope_test
}  // namespace kscope

namespace kscope {
namespace scope_test {

using LeakCheckKitTest = testing::LeakCheckTest;

TEST_F(LeakCheckKitTest, ReportsHandlesCreatedSinceTheCheckpointWithTheirRows) {
  const LeakCheck check;
  EXPECT_TRUE(check.Clean());
  EXPECT_EQ(check.Report(), "");
  Handle leaked = zeros({2, 3});
  ASSERT_EQ(check.Leaks().size(), 1u);
  EXPECT_EQ(check.Leaks()[0].ptr, leaked);
  EXPECT_EQ(check.Leaks()[0].origin, "zeros");
  EXPECT_THAT(check.Report(),
              ::testing::MatchesRegex(absl::StrFormat(
                  "1 handle\\(s\\) created since the checkpoint still alive:\n"
                  "ptr +class +device +dtype +size +elements +bytes +scope +origin\n-+\n"
                  "%d +tensor +cpu +float +2 3 +6 +24 +0 +zeros\n"
                  "  ptr %d \\(from zeros\\) owned by the root scope\n"
                  "bytes left: cpu 24\n",
                  leaked.id(), leaked.id())));
  kscope::free(leaked);
  EXPECT_TRUE(check.Clean());
}

TEST_F(LeakCheckKitTest, NamesTheOwningScopeAndReleasesScopesLeftOpen) {
  LeakCheck check;
  const ScopeId inner = OpenScope();
  const Handle h = ones({1});
  EXPECT_EQ(check.ScopesLeftOpen(), 1);
  EXPECT_THAT(check.Report(),
              ::testing::HasSubstr("1 scope(s) opened since the checkpoint still open\n"));
  EXPECT_THAT(check.Report(),
              ::testing::HasSubstr(absl::StrFormat(
                  "ptr %d (from ones) owned by scope %d of this thread", h.id(), inner)));
  EXPECT_EQ(LeakCheck::After(check.checkpoint_id()).ScopesLeftOpen(), 0);
  EXPECT_EQ(check.Release(), 1u);
  EXPECT_EQ(ScopeDepth(), 0);
  EXPECT_FALSE(mapped(h));
  EXPECT_TRUE(check.Clean());
}

TEST_F(LeakCheckKitTest, AfterAnIdSeesOnlyLaterHandles) {
  const Handle earlier = ones({1});
  LeakCheck check = LeakCheck::After(earlier.id());
  EXPECT_TRUE(check.Leaks().empty());
  const Handle later = ones({1});
  ASSERT_EQ(check.Leaks().size(), 1u);
  EXPECT_EQ(check.Leaks()[0].ptr, later);
  EXPECT_EQ(check.Release(), 1u);
  EXPECT_TRUE(mapped(earlier));
  kscope::free(earlier);
}

// The GoogleTest side of the kit: a test that leaks gets a failure naming the row, and the
// handles and scopes it left are cleaned up.
TEST_F(LeakCheckKitTest, TestCheckFailsALeakingTestAndCleansUp) {
  testing::TestLeakCheck test_check;
  test_check.Begin();
  const Handle leaked = randn({3});
  static_cast<void>(OpenScope());
  EXPECT_NONFATAL_FAILURE(test_check.End(), "randn");
  EXPECT_FALSE(mapped(leaked));
  EXPECT_EQ(ScopeDepth(), 0);
  test_check.Begin();
  EXPECT_NO_FATAL_FAILURE(test_check.End());
}

}  // namespace scope_test
}  // namespace kscope
