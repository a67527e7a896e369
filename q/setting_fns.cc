// setting[] -> dictionary of every setting; setting`name -> its value; setting(`name;value)
// sets a writable one (q/settings.h). One table row per setting.
#include <atomic>
#include <string>

#include "q/args.h"
#include "q/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "q/settings.h"
#include "runtime/errors.h"
#include "scope/scope_stack.h"

namespace kscope::q {
namespace {

using kabi::K;

std::atomic<bool> all_options{true};

struct SettingEntry {
  const char* name;
  K (*get)();
  void (*set)(const Args& a);  // null: read-only
  const char* read_only_reason;
};

constexpr SettingEntry kSettings[] = {
    {"strict", [] { return kabi::kb(Strict()); }, [](const Args& a) { SetStrict(a.BoolAt(1)); }, nullptr},
    {"scope", [] { return kabi::kj(ScopeDepth()); }, nullptr, "it is the depth of the open scopes"},
    {"alloptions", [] { return kabi::kb(AllOptions()); }, [](const Args& a) { SetAllOptions(a.BoolAt(1)); },
     nullptr},
};

const SettingEntry& Find(const std::string& name) {
  for (const SettingEntry& e : kSettings) {
    if (name == e.name) return e;
  }
  Fail("setting: unrecognized setting `%s", name);
}

K Setting(K x) {
  return Guard([&] {
    const Args a("setting", x);
    if (a.empty()) {
      std::vector<std::string> names;
      K values = kabi::ktn(kabi::kMixed, 0);
      for (const SettingEntry& e : kSettings) {
        names.push_back(e.name);
        kabi::jk(&values, e.get());
      }
      return kabi::xD(Symbols(names), values);
    }
    const SettingEntry& e = Find(a.SymbolAt(0));
    if (a.size() == 1) return e.get();
    if (a.size() != 2) a.Unrecognized();
    if (e.set == nullptr) Fail("setting: `%s is read-only, %s", e.name, e.read_only_reason);
    e.set(a);
    return K{nullptr};
  });
}

}  // namespace

bool AllOptions() { return all_options.load(std::memory_order_relaxed); }
void SetAllOptions(bool all) { all_options.store(all, std::memory_order_relaxed); }

std::vector<Export> SettingExports() { return {Unary("setting", Setting)}; }

}  // namespace kscope::q
