// Bad input at scale (issue 20): every function fns exports, called with each kind of k value —
// atoms, vectors, general lists, dictionaries, tables, nulls, pointers of every class, a stale
// pointer. Each call runs under the k host's checks (no C++ exception escapes, no k object
// leaks, arguments untouched) inside a scope of its own, so whatever it made is freed at the
// scope's end and the fixture sees no pointer left. A call may succeed (tensor 1b makes a
// tensor); one that fails must say so in a text that names the function (kscope's own messages
// begin with it), or pass on libtorch's own message as ktorch does (seed 004: `backward z` ->
// 'Trying to backward through the graph a second time ...; known by the C++ backtrace that
// setting(`stackframe;1b) adds to it), or give one of ktorch's texts that name no function,
// which kscope keeps word for word (docs/compatibility.md).
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_bad_input_test {

// Names left out, each tested on its own elsewhere: `group` waits for its peers until its
// timeout (PluginDistributedTest); `scope` and `endscope` open and close the scope every call
// here runs in (ScopeFnsTest.BadScopeArguments).
const char* const kLeftOut[] = {"group", "scope", "endscope"};

// ktorch's error texts that name no function, which kscope gives word for word (recorded in
// tests/differential/ktorch.tsv): a failure may begin with one of these instead.
const char* const kKtorchTexts[] = {"stale pointer",
                                    "no CUDA device available",
                                    "unable to parse (value;depth): ",
                                    "unrecognized tensor option: ",
                                    "unrecognized module type: ",
                                    "unrecognized loss function: ",
                                    "unrecognized optimizer: ",
                                    "unrecognized configuration setting: "};

// Messages thrown as plain std exceptions by libtorch 1.13 or the C++ library, which carry no
// backtrace to tell them by (reshape's at::infer_size, fft's dimension checks, std::vector).
const char* const kLibraryTexts[] = {"shape '", "ndim must be >= 1",
                                     "cannot create std::vector larger than max_size()"};

// The text of `texts` that `error` begins with, or nullptr.
template <std::size_t N>
const char* PrefixOf(const std::string& error, const char* const (&texts)[N]) {
  for (const char* text : texts) {
    if (absl::StartsWith(error, text)) return text;
  }
  return nullptr;
}

// Functions that run another one, whose errors name the one they run.
const std::map<std::string, std::string>& Runs() {
  static const auto* runs = new std::map<std::string, std::string>{{"kforward", "forward"},
                                                                   {"data", "train"},
                                                                   {"testdata", "test"},
                                                                   {"options", "help"},
                                                                   {"info", "detail"}};
  return *runs;
}

// Whether `error`, given by `name`, begins by naming it (or the function it runs): "name: ..."
// or, in ktorch's words, "name not implemented for ...".
bool NamesTheFunction(const std::string& error, const std::string& name) {
  const auto begins_with = [&](const std::string& fn) {
    return absl::StartsWith(error, fn + ":") || absl::StartsWith(error, fn + " ");
  };
  if (begins_with(name)) return true;
  const auto it = Runs().find(name);
  return it != Runs().end() && begins_with(it->second);
}

class PluginBadInputTest : public PluginTest {
 protected:
  struct Kind {
    std::string name;
    std::function<KRef()> make;
  };

  // The k values every function is given: literals, then pointers made fresh for each call.
  std::vector<Kind> Kinds() {
    std::vector<Kind> kinds;
    for (const char* literal : {"1b",
                                "0x07",
                                "3h",
                                "2i",
                                "5",
                                "1.5e",
                                "2.5",
                                "\"a\"",
                                "`x",
                                "2000.01.02",
                                "2000.01.01D00:00:01",
                                "0D00:00:01",
                                "12:30",
                                "0N",
                                "0n",
                                "0w",
                                "-0W",
                                "0101b",
                                "0x0102",
                                "1 2h",
                                "1 2i",
                                "1 2 3",
                                "1.5 2.5e",
                                "1 2 3f",
                                "\"abc\"",
                                "`a`b",
                                "()",
                                "(1;`a;2.5)",
                                "(1 2;3 4)",
                                "((1 2;3 4);5)",
                                "`a`b!1 2",
                                "`a`b!(1 2;`x)",
                                "([] a:1 2; b:3 4)",
                                "([k:1 2] v:3 4)",
                                "::",
                                "(::;1)"}) {
      kinds.push_back(Kind{literal, [literal] { return Q(literal); }});
    }
    kinds.push_back(Kind{"tensor pointer", [this] { return Call("tensor", "1 2 3e"); }});
    kinds.push_back(Kind{"vector pointer", [this] { return Call("vector", "(1 2e;3 4e)"); }});
    kinds.push_back(Kind{"dictionary pointer", [this] { return Call("dict", "`a`b!(1 2e;3e)"); }});
    kinds.push_back(Kind{"module pointer", [this] { return Call("module", "(`linear;2;3)"); }});
    kinds.push_back(Kind{"loss pointer", [this] { return Call("loss", "`mse"); }});
    kinds.push_back(Kind{"optimizer pointer", [this] { return Call("opt", "`sgd"); }});
    kinds.push_back(Kind{"model pointer", [this] {
                           KRef q = Call("module", "(`linear;2;3)");
                           KRef l = Call("loss", "`mse");
                           KRef o = Call("opt", "`sgd");
                           return Call("model", List({q.share(), l.share(), o.share()}));
                         }});
    kinds.push_back(Kind{"stale pointer", [this] {
                           KRef t = Call("tensor", "0e");
                           Call("free", t);
                           return t;
                         }});
    kinds.push_back(Kind{"two pointers", [this] {
                           KRef a = Call("tensor", "1 2e");
                           KRef b = Call("tensor", "3 4e");
                           return List({a.share(), b.share()});
                         }});
    kinds.push_back(Kind{"pointer and data", [this] {
                           KRef a = Call("tensor", "1 2e");
                           return List({a.share(), kq::Sym("x")});
                         }});
    return kinds;
  }

  bool IsLibtorchsError(const std::string& name, const std::string& error,
                        const std::vector<kabi::K>& args);

 private:
  std::map<std::string, bool> libtorchs_;  // IsLibtorchsError's answer by error text
};

// Whether name(args), which failed with `error`, fails with a c10::Error: with
// setting(`stackframe;1b) its message carries libtorch's backtrace. (A failed call changed
// nothing, so the same arguments serve again.) One call per distinct text: a backtrace costs
// milliseconds.
bool PluginBadInputTest::IsLibtorchsError(const std::string& name, const std::string& error,
                                          const std::vector<kabi::K>& args) {
  if (const auto it = libtorchs_.find(error); it != libtorchs_.end()) return it->second;
  Call("setting", "(`stackframe;1b)");
  const khost::Result again = Plugin().Call(name, args);
  Call("setting", "(`stackframe;0b)");
  const bool libtorchs = again.failed && absl::StrContains(again.error, "Exception raised from");
  libtorchs_.emplace(error, libtorchs);
  return libtorchs;
}

TEST_F(PluginBadInputTest, EveryFunctionWithEveryKindOfValueFailsCleanlyOrWorks) {
  std::vector<std::string> names = Plugin().Names();
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const std::string& n) {
                               return std::find(std::begin(kLeftOut), std::end(kLeftOut), n) !=
                                      std::end(kLeftOut);
                             }),
              names.end());
  const std::vector<Kind> kinds = Kinds();
  int calls = 0, failed = 0, named = 0, libtorchs = 0;
  std::map<std::string, int> fixed_texts;
  for (const std::string& name : names) {
    for (const Kind& kind : kinds) {
      SCOPED_TRACE(absl::StrCat(name, " given ", kind.name));
      KRef scope = Call("scope");
      KRef arg = kind.make();
      const std::vector<kabi::K> args = name == "use" ? std::vector<kabi::K>{arg.get(), arg.get()}
                                                      : std::vector<kabi::K>{arg.get()};
      khost::Result r = Plugin().Call(name, args);
      ++calls;
      if (r.failed) {
        ++failed;
        EXPECT_FALSE(r.error.empty());
        const char* const ktorch_text = PrefixOf(r.error, kKtorchTexts);
        if (ktorch_text != nullptr) {
          ++fixed_texts[ktorch_text];
        } else if (NamesTheFunction(r.error, name)) {
          ++named;
        } else if (PrefixOf(r.error, kLibraryTexts) != nullptr ||
                   IsLibtorchsError(name, r.error, args)) {
          ++libtorchs;
        } else {
          ADD_FAILURE() << "the error names neither " << name << " nor comes from libtorch: '"
                        << r.error;
        }
      }
      r.value.reset();
      EXPECT_EQ(S1(Call("setting", "`scope")), "1") << "the call opened or closed a scope";
      Call("endscope", scope);
    }
  }
  std::string texts;
  for (const auto& [text, count] : fixed_texts) absl::StrAppend(&texts, " '", text, ": ", count);
  std::printf(
      "%d functions x %zu kinds of value: %d calls, %d failed: %d naming the function, %d with "
      "libtorch's message, the rest with ktorch's texts:%s\n",
      static_cast<int>(names.size()), kinds.size(), calls, failed, named, libtorchs, texts.c_str());
  EXPECT_EQ(calls, static_cast<int>(names.size() * kinds.size()));
}

}  // namespace plugin_bad_input_test
}  // namespace kscope::testing
