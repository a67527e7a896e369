#include "q/convert/k_module_state.h"

#include <cstring>
#include <optional>

#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

constexpr char kFn[] = "module";

// One value of a description: item i of a k list, general or simple (a table's column, or a
// dictionary's values).
struct Cell {
  K list;
  long long i;
};

// The item of a general list (nullptr for a simple list).
K ItemOf(Cell c) { return c.list->t == kabi::kMixed ? kabi::Items(c.list)[c.i] : nullptr; }

[[noreturn]] void Expected(const char* field, const char* what, Cell c) {
  Fail("%s: `%s expects %s, given %s", kFn, field, what,
       ItemOf(c) ? KName(ItemOf(c)) : KName(c.list) + " item");
}

// Field `name` of row `row`: a dictionary's value or an item of a table's column.
std::optional<Cell> FieldOf(K x, const char* name, long long row) {
  const bool table = x->t == kabi::kTable;
  K d = table ? kabi::TableDict(x) : x;
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  for (long long j = 0; j < keys->n; ++j) {
    if (std::strcmp(kabi::Symbols(keys)[j], name) == 0)
      return table ? Cell{kabi::Items(values)[j], row} : Cell{values, j};
  }
  return std::nullopt;
}

std::string SymbolOf(const char* field, Cell c) {
  if (c.list->t == kabi::kSymbol) return kabi::Symbols(c.list)[c.i];
  K item = ItemOf(c);
  if (item == nullptr || !IsSymbol(item)) Expected(field, "a symbol", c);
  return SymbolText(item);
}

std::int64_t LongOf(const char* field, Cell c) {
  switch (c.list->t) {
    case kabi::kLong: return kabi::Longs(c.list)[c.i];
    case kabi::kInt: return kabi::Ints(c.list)[c.i];
    case kabi::kShort: return kabi::Shorts(c.list)[c.i];
    case kabi::kMixed: {
      K item = ItemOf(c);
      if (item->t == -kabi::kLong) return item->j;
      if (item->t == -kabi::kInt) return item->i;
      [[fallthrough]];
    }
    default: Expected(field, "a long", c);
  }
}

// A dictionary with symbol keys, or nullptr for none (`::` or an empty list).
K DictOf(const char* field, Cell c) {
  K item = ItemOf(c);
  if (item == nullptr) Expected(field, "a dictionary", c);
  if (IsNull(item) || (item->t == kabi::kMixed && item->n == 0)) return nullptr;
  if (item->t != kabi::kDictionary || kabi::DictKeys(item)->t != kabi::kSymbol) {
    Expected(field, "a dictionary with symbol keys", c);
  }
  return item;
}

nn::NamedValues OptionsOf(const std::string& kind, Cell c) {
  if (K d = DictOf("options", c)) return ModuleOptionsFromDictionary(kind, d);
  return {};
}

// parms or buffers: name -> array (a simple list of values: one scalar each).
TensorDict TensorsOf(const char* field, Cell c) {
  TensorDict out;
  if (K d = DictOf(field, c)) {
    K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
    const at::Tensor scalars = values->t == kabi::kMixed ? at::Tensor() : TensorFromK(kFn, values);
    for (long long j = 0; j < keys->n; ++j) {
      out.insert(kabi::Symbols(keys)[j],
                 scalars.defined() ? scalars[j].clone() : TensorFromK(kFn, kabi::Items(values)[j]));
    }
  }
  return out;
}

ModuleStateRow RowOf(K x, long long row) {
  ModuleStateRow r;
  const std::optional<Cell> kind = FieldOf(x, "module", row);
  if (!kind) Fail("%s: a module description needs a `module field (the kind)", kFn);
  r.module.kind = SymbolOf("module", *kind);
  const std::optional<Cell> depth = FieldOf(x, "depth", row), name = FieldOf(x, "name", row),
                            options = FieldOf(x, "options", row), parms = FieldOf(x, "parms", row),
                            buffers = FieldOf(x, "buffers", row);
  r.module.depth = depth ? static_cast<int>(LongOf("depth", *depth)) : 0;
  if (name) r.module.name = SymbolOf("name", *name);
  if (options) r.module.options = OptionsOf(r.module.kind, *options);
  if (parms) r.parms = TensorsOf("parms", *parms);
  if (buffers) r.buffers = TensorsOf("buffers", *buffers);
  return r;
}

K KFromDict(const TensorDict& d) { return KFromValue(Value(d)); }

}  // namespace

K KFromModuleState(const ModuleState& state) {
  if (state.size() == 1) {
    const ModuleStateRow& r = state[0];
    return kabi::xD(
        Symbols({"depth", "module", "name", "options", "parms", "buffers"}),
        kabi::knk(6, kabi::kj(r.module.depth), Symbol(r.module.kind), Symbol(r.module.name),
                  KFromOptions(r.module.options), KFromDict(r.parms), KFromDict(r.buffers)));
  }
  const auto n = static_cast<long long>(state.size());
  std::vector<std::int64_t> depth;
  std::vector<std::string> kind, name;
  K options = kabi::ktn(kabi::kMixed, n), parms = kabi::ktn(kabi::kMixed, n),
    buffers = kabi::ktn(kabi::kMixed, n);
  for (long long i = 0; i < n; ++i) {
    const ModuleStateRow& r = state[i];
    depth.push_back(r.module.depth);
    kind.push_back(r.module.kind);
    name.push_back(r.module.name);
    kabi::Items(options)[i] = KFromOptions(r.module.options);
    kabi::Items(parms)[i] = KFromDict(r.parms);
    kabi::Items(buffers)[i] = KFromDict(r.buffers);
  }
  return kabi::xT(kabi::xD(
      Symbols({"depth", "module", "name", "options", "parms", "buffers"}),
      kabi::knk(6, KFromLongs(depth), Symbols(kind), Symbols(name), options, parms, buffers)));
}

bool IsModuleTable(K x) {
  return x != nullptr && (x->t == kabi::kTable ||
                          (x->t == kabi::kDictionary && kabi::DictKeys(x)->t == kabi::kSymbol));
}

Handle ModuleFromK(K x) {
  if (!IsModuleTable(x))
    Fail("%s: expecting a module description or state (dictionary or table), given %s", kFn,
         KName(x));
  const long long rows =
      x->t == kabi::kTable ? kabi::Items(kabi::DictValues(kabi::TableDict(x)))[0]->n : 1;
  ModuleState state;
  for (long long i = 0; i < rows; ++i) state.push_back(RowOf(x, i));
  if (FieldOf(x, "parms", 0) || FieldOf(x, "buffers", 0)) return module(state);
  std::vector<ModuleRow> definition_rows;
  for (ModuleStateRow& r : state) definition_rows.push_back(std::move(r.module));
  return module(definition(definition_rows));
}

// module q: a dictionary `depth`module`name`options for a single module, a table of those
// columns for a container.
K KFromModuleRows(const std::vector<ModuleRow>& rows) {
  if (rows.size() == 1) {
    return kabi::xD(Symbols({"depth", "module", "name", "options"}),
                    kabi::knk(4, kabi::kj(rows[0].depth), Symbol(rows[0].kind),
                              Symbol(rows[0].name), KFromOptions(rows[0].options)));
  }
  std::vector<std::int64_t> depth;
  std::vector<std::string> kind, name;
  K options = kabi::ktn(kabi::kMixed, static_cast<long long>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    depth.push_back(rows[i].depth);
    kind.push_back(rows[i].kind);
    name.push_back(rows[i].name);
    kabi::Items(options)[i] = KFromOptions(rows[i].options);
  }
  return kabi::xT(kabi::xD(Symbols({"depth", "module", "name", "options"}),
                           kabi::knk(4, KFromLongs(depth), Symbols(kind), Symbols(name), options)));
}

}  // namespace kscope::q
