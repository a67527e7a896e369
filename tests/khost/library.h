// library.h — loading a real plugin .so the way q does, and calling its functions by name.
//
// Library lib(path) dlopens the plugin (RTLD_NOW | RTLD_LOCAL; its undefined k symbols bind to
// the host, which the test executable exports), resolves `fns`, and calls it with `::` as q's
// (`lib 2:(`fns;1))[] does, through the checked call. The dictionary it returns (symbol ->
// type-112 function) is kept; the plugin stays loaded for the life of the process, as in q.
//
//   khost::Library lib(kscope::testing::kEchoPluginPath);
//   ASSERT_TRUE(lib.ok()) << lib.error();
//   khost::Result r = lib.Call("echo", x.get());        // x stays the test's
//   EXPECT_EQ(khost::S1(r.value.get()), "1 2 3");
//
// Every Call goes through khost::Call (apply.h): arguments are borrowed, the k-abi §4.7 checks
// run, and a pending krr becomes Result::error. A plugin that keeps objects it builds in fns
// (caches) is constructed under khost::AllowRetained, or those objects are reported as leaks.
//
// Thread-safety: a Library may be used from several threads once constructed (the plugin's own
// thread-safety permitting).
#ifndef KSCOPE_TESTS_KHOST_LIBRARY_H_
#define KSCOPE_TESTS_KHOST_LIBRARY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"
#include "tests/khost/apply.h"
#include "tests/khost/kref.h"

namespace khost {

class Library {
 public:
  explicit Library(const std::string& path);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // False if loading failed; error() says why (dlopen's text, a missing `fns`, a bad dictionary).
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // The exported names, in the order fns listed them.
  std::vector<std::string> Names() const;
  // The rank of `name` (0 if unknown).
  int Rank(absl::string_view name) const;
  // The type-112 object of `name`, borrowed from the dictionary (nullptr if unknown).
  kabi::K Function(absl::string_view name) const;
  // The dictionary fns returned (borrowed).
  kabi::K Dictionary() const { return dictionary_.get(); }

  // name[] — a rank-1 function receives `::`.
  Result Call(absl::string_view name) const;
  // name x — x is borrowed.
  Result Call(absl::string_view name, kabi::K arg) const;
  // name[a;b;...] for a rank-n function, or name(a;b;...) (one list) for a rank-1 function.
  Result Call(absl::string_view name, const std::vector<kabi::K>& args) const;

 private:
  std::string error_;
  KRef dictionary_;
  absl::flat_hash_map<std::string, kabi::K> functions_;  // borrowed from dictionary_
};

}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_LIBRARY_H_
