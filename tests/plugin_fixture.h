// PluginTest — the fixture for tests that drive ktorch.so through the k host, as q would.
//
// The plugin is loaded once per process with dlopen (khost::Library). Before each test the
// fixture notes the highest pointer id the plugin has issued and starts a khost::LeakScope;
// after it, the test fails if a pointer created during the test is still live (the plugin's own
// obj[] rows are printed, then freed), if a scope was left open, or if a k object allocated
// during the test was not released. The plugin links its own copy of kscope, so these checks
// ask the plugin, never kscope directly.
#ifndef KSCOPE_TESTS_PLUGIN_FIXTURE_H_
#define KSCOPE_TESTS_PLUGIN_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/string_view.h"
#include "tests/khost/khost.h"

namespace kscope::testing {

using khost::KRef;

// The loaded plugin (fails the calling test if it cannot be loaded).
const khost::Library& Plugin();

// A q literal (kq::Parse), owned.
KRef Q(absl::string_view literal);
// A general list of owned items; use x.share() to put a KRef's object in.
KRef List(std::initializer_list<kabi::K> items);
// q's argument list from owned items (ownership passes to the result): the one item itself,
// as in f x, else a general list of them, as in f[x;y].
KRef ArgList(const std::vector<kabi::K>& items);
// q's one-line display of x.
std::string S1(const KRef& x);
// Every number of a real array (a real vector, or general lists of them), in row-major order;
// a test failure for anything else.
std::vector<float> Reals(const KRef& x);
// The id inside a pointer.
std::int64_t PointerId(const KRef& pointer);
// The value under `key` of k dictionary d (a new reference); a test failure and null if none.
KRef At(kabi::K d, const char* key);
inline KRef At(const KRef& d, const char* key) { return At(d.get(), key); }

// Seed 004's spirals: k classes of n points each, as q's "e"$raze spiral[n]'[til k;.2*z] with
// spiral:{x:til[x]%x-1; flip x*/:(sin;cos)@\:z+sum 4*(x;y)} for the noise z (k rows of n floats,
// k data); and their classes, q's til[k]where k#n.
KRef SpiralPoints(const KRef& noise, int n, int k);
KRef SpiralClasses(int n, int k);

class PluginTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // name arg (arg borrowed): expects success, returns the result (null for `::`).
  KRef Call(absl::string_view name, const KRef& arg);
  KRef Call(absl::string_view name, absl::string_view literal) { return Call(name, Q(literal)); }
  KRef Call(absl::string_view name) { return Call(name, KRef()); }
  // use[a;b], the one rank-2 function.
  KRef Use(const KRef& a, const KRef& b);
  // name arg: expects failure, returns q's error text.
  std::string Error(absl::string_view name, const KRef& arg);
  std::string Error(absl::string_view name, absl::string_view literal) {
    return Error(name, Q(literal));
  }
  // name each x, collected into a general list (as q's each does for non-uniform results).
  KRef Each(absl::string_view name, const std::vector<const KRef*>& items);
  // Whether the plugin's libtorch is 2.x, where kscope follows ktorch 2.3 (version[] >= 2): run's
  // loss metrics are reals (floats in 1.13), zerograd of an optimizer or a model sets the
  // gradients to none (zeroes them in 1.13).
  bool FollowsKtorch23() { return Call("version")->f >= 2; }
  // The k type of run's and testrun's loss metrics: real atoms on 2.x, float atoms on 1.13.
  int LossAtomType() { return FollowsKtorch23() ? -kabi::kReal : -kabi::kFloat; }

 private:
  std::int64_t first_id_ = 0;
  std::unique_ptr<khost::LeakScope> k_objects_;
};

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_PLUGIN_FIXTURE_H_
