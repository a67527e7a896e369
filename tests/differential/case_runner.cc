#include "tests/differential/case_runner.h"

#include <exception>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "tests/khost/format.h"
#include "tests/khost/kref.h"
#include "tests/khost/parse.h"

namespace kscope::differential {
namespace {

using kabi::K;
using khost::KRef;

// @name becomes this symbol before parsing, then the bound value after.
constexpr absl::string_view kMarker = "differential.binding.";

using Bindings = absl::flat_hash_map<std::string, KRef>;

// The value a marker symbol stands for (borrowed), or nullptr for any other symbol.
K BoundTo(const char* symbol, const Bindings& bindings) {
  const absl::string_view s(symbol);
  if (!absl::StartsWith(s, kMarker)) return nullptr;
  auto it = bindings.find(s.substr(kMarker.size()));
  return it == bindings.end() ? nullptr : it->second.get();
}

// x (taken over) with every marker symbol replaced by its bound value; a symbol vector holding
// one becomes a general list.
K Substitute(K x, const Bindings& bindings) {
  if (x == nullptr) return x;
  if (x->t == -kabi::kSymbol) {
    K bound = BoundTo(x->s, bindings);
    if (bound == nullptr) return x;
    kabi::r0(x);
    return kabi::r1(bound);
  }
  if (x->t == kabi::kSymbol) {
    bool any = false;
    for (long long i = 0; i < x->n; ++i)
      any = any || BoundTo(kabi::Symbols(x)[i], bindings) != nullptr;
    if (!any) return x;
    K list = kabi::ktn(kabi::kMixed, x->n);
    for (long long i = 0; i < x->n; ++i) {
      K bound = BoundTo(kabi::Symbols(x)[i], bindings);
      kabi::Items(list)[i] = bound != nullptr ? kabi::r1(bound) : kabi::ks(kabi::Symbols(x)[i]);
    }
    kabi::r0(x);
    return list;
  }
  if (x->t == kabi::kMixed || x->t == kabi::kDictionary) {
    for (long long i = 0; i < x->n; ++i)
      kabi::Items(x)[i] = Substitute(kabi::Items(x)[i], bindings);
  } else if (x->t == kabi::kTable) {
    x->k = Substitute(x->k, bindings);
  }
  return x;
}

bool IsPointer(K x) {
  return x->t == kabi::kMixed && x->n == 1 && kabi::Items(x)[0]->t == -kabi::kLong;
}

bool HoldsPointer(K x) {
  if (x == nullptr) return false;
  if (IsPointer(x)) return true;
  if (x->t == kabi::kMixed || x->t == kabi::kDictionary) {
    for (long long i = 0; i < x->n; ++i) {
      if (HoldsPointer(kabi::Items(x)[i])) return true;
    }
  }
  return x->t == kabi::kTable && HoldsPointer(x->k);
}

std::string Shape(K x) {
  if (x == nullptr || (x->t == kabi::kUnaryPrimitive && x->g == 0))
    return "::";  // q sees both as ::
  if (IsPointer(x)) return "<ptr>";
  if (x->t < 0) return absl::StrCat(x->t, "h");
  if (x->t == kabi::kDictionary)
    return absl::StrCat(Shape(kabi::DictKeys(x)), "!", Shape(kabi::DictValues(x)));
  if (x->t == kabi::kTable) return absl::StrCat("+", Shape(x->k));
  if (x->t == kabi::kMixed) {
    std::vector<std::string> items;
    for (long long i = 0; i < x->n; ++i) items.push_back(Shape(kabi::Items(x)[i]));
    return absl::StrCat("(", absl::StrJoin(items, ";"), ")");
  }
  if (x->t >= 100) return absl::StrCat(x->t, "h");
  return absl::StrCat(x->t, "h#", x->n);
}

// The arguments of case c, parsed and with bindings substituted; the error text if one fails.
absl::StatusOr<std::vector<KRef>> Arguments(const Case& c, const Bindings& bindings) {
  std::vector<KRef> out;
  for (const std::string& literal : c.arguments) {
    for (const std::string& name : ReferencedNames(literal)) {
      if (!bindings.contains(name)) return absl::FailedPreconditionError("unbound @" + name);
    }
    const std::string text = absl::StrReplaceAll(literal, {{"@", absl::StrCat("`", kMarker)}});
    try {
      out.emplace_back(Substitute(kq::Parse(text), bindings));
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("parse: ", e.what()));
    }
  }
  return out;
}

}  // namespace

std::string Outcome(K x, bool shape_only) {
  if (shape_only) return Shape(x);
  if (x == nullptr) return "::";
  if (!HoldsPointer(x)) return khost::S1(x);
  if (IsPointer(x)) return "<ptr>";
  if (x->t == kabi::kDictionary) {
    return absl::StrCat(Outcome(kabi::DictKeys(x), false), "!",
                        Outcome(kabi::DictValues(x), false));
  }
  if (x->t == kabi::kTable) return absl::StrCat("+", Outcome(x->k, false));
  std::vector<std::string> items;
  for (long long i = 0; i < x->n; ++i) items.push_back(Outcome(kabi::Items(x)[i], false));
  return absl::StrCat("(", absl::StrJoin(items, ";"), ")");
}

std::vector<std::string> RunCases(const khost::Library& plugin, const std::vector<Case>& cases) {
  std::vector<std::string> outcomes;
  Bindings bindings;
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<KRef>> arguments = Arguments(c, bindings);
    if (!arguments.ok()) {
      outcomes.push_back(absl::StrCat("!", arguments.status().message()));
      bindings.erase(c.binding);
      continue;
    }
    khost::Result r;
    if (c.function == "fns") {  // the loader itself: what the plugin gave when it was loaded
      r.value = KRef(kabi::r1(plugin.Dictionary()));
    } else if (!c.bracketed) {
      r = plugin.Call(c.function, (*arguments)[0].get());
    } else if (arguments->empty()) {
      r = plugin.Call(c.function);
    } else {
      std::vector<K> borrowed;
      for (const KRef& a : *arguments) borrowed.push_back(a.get());
      r = plugin.Call(c.function, borrowed);
    }
    if (r.failed) {
      outcomes.push_back(absl::StrCat("'", r.error));
      bindings.erase(c.binding);  // a later @name must not reach an earlier value
      continue;
    }
    outcomes.push_back(Outcome(r.value.get(), c.shape_only));
    if (!c.binding.empty()) bindings[c.binding] = std::move(r.value);
  }
  return outcomes;
}

}  // namespace kscope::differential
