#include "q/convert/k_optimizer_state.h"

#include <string>

#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

K EmptyDictionary() { return kabi::xD(kabi::ktn(kabi::kSymbol, 0), kabi::ktn(kabi::kMixed, 0)); }

K KFromBuffers(const OptimizerBuffers& buffers) {
  if (buffers.empty()) return EmptyDictionary();
  return KDictionary(buffers, KFromTensor);
}

// Options of each group: a general list of dictionaries, a table, or one dictionary.
std::vector<nn::NamedValues> GroupOptionsFromK(K x) {
  std::vector<nn::NamedValues> groups;
  if (x->t == kabi::kDictionary) {
    groups.push_back(OptionsFromDictionary("opt", x));
  } else if (x->t == kabi::kMixed) {
    for (long long i = 0; i < x->n; ++i) {
      K d = kabi::Items(x)[i];
      if (d->t != kabi::kDictionary)
        Fail("opt: optimizer options expected dictionary per group, given %s", KName(d));
      groups.push_back(OptionsFromDictionary("opt", d));
    }
  } else if (x->t == kabi::kTable) {
    K columns = kabi::TableDict(x), names = kabi::DictKeys(columns),
      values = kabi::DictValues(columns);
    const long long rows = names->n ? kabi::Items(values)[0]->n : 0;
    for (long long r = 0; r < rows; ++r) {
      nn::NamedValues row;
      for (long long c = 0; c < names->n; ++c)
        row.emplace_back(kabi::Symbols(names)[c],
                         OptionFromListAt("opt", kabi::Items(values)[c], r));
      groups.push_back(std::move(row));
    }
  } else {
    Fail("opt: optimizer options expected dictionaries or a table, given %s", KName(x));
  }
  return groups;
}

// The value under symbol `key` in a dictionary whose values are a general list (null if none).
K Entry(K d, const char* key) {
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  if (keys->t != kabi::kSymbol || values->t != kabi::kMixed) return nullptr;
  for (long long i = 0; i < keys->n; ++i) {
    if (std::string(kabi::Symbols(keys)[i]) == key) return kabi::Items(values)[i];
  }
  return nullptr;
}

OptimizerBuffers BuffersFromK(K d) {
  if (d->t != kabi::kDictionary || kabi::DictKeys(d)->t != kabi::kSymbol) {
    Fail("opt: buffers expected a dictionary of symbols to arrays, given %s", KName(d));
  }
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  const at::Tensor all = values->t == kabi::kMixed ? at::Tensor() : TensorFromK("opt", values);
  OptimizerBuffers out;
  for (long long i = 0; i < keys->n; ++i) {
    out.emplace_back(kabi::Symbols(keys)[i], all.defined()
                                                 ? all.select(0, i).clone()
                                                 : TensorFromK("opt", kabi::Items(values)[i]));
  }
  return out;
}

std::vector<std::int64_t> LongsOf(K x) {
  if (x->t == kabi::kLong) return std::vector<std::int64_t>(kabi::Longs(x), kabi::Longs(x) + x->n);
  if (x->t == kabi::kInt) return std::vector<std::int64_t>(kabi::Ints(x), kabi::Ints(x) + x->n);
  Fail("opt: expected long list, given %s", KName(x));
}

// The parms table's rows (without pointers or module kinds) and, if it has them, buffers.
void ParmsFromK(K table, OptimizerState* s) {
  if (table->t != kabi::kTable) Fail("opt: parms expected a table, given %s", KName(table));
  K columns = kabi::TableDict(table);
  K group = Entry(columns, "parmgroup"), name = Entry(columns, "name"),
    size = Entry(columns, "size");
  K buffers = Entry(columns, "buffers");
  if (group == nullptr || name == nullptr || size == nullptr)
    Fail("opt: parms table needs columns parmgroup, name and size");
  if (name->t != kabi::kSymbol)
    Fail("opt: parms name column expected symbols, given %s", KName(name));
  const std::vector<std::int64_t> groups = LongsOf(group);
  for (long long r = 0; r < name->n; ++r) {
    K shape = size->t == kabi::kMixed ? kabi::Items(size)[r] : nullptr;
    std::vector<std::int64_t> dims =
        shape != nullptr ? LongsOf(shape) : std::vector<std::int64_t>{kabi::Longs(size)[r]};
    s->description.parameters.push_back(
        OptimizerParameter{groups[r], 0, "", kabi::Symbols(name)[r], std::move(dims)});
    if (buffers != nullptr) {
      if (buffers->t != kabi::kMixed)
        Fail("opt: parms buffers column expected dictionaries, given %s", KName(buffers));
      s->buffers.push_back(BuffersFromK(kabi::Items(buffers)[r]));
    }
  }
}

}  // namespace

K KFromGroupOptions(const std::vector<nn::NamedValues>& groups) {
  bool same_names = !groups.empty();
  for (const nn::NamedValues& g : groups) {
    same_names = same_names && g.size() == groups[0].size();
    for (std::size_t j = 0; same_names && j < g.size(); ++j)
      same_names = g[j].first == groups[0][j].first;
  }
  if (!same_names) {
    K list = kabi::ktn(kabi::kMixed, static_cast<long long>(groups.size()));
    for (std::size_t g = 0; g < groups.size(); ++g) kabi::Items(list)[g] = KFromOptions(groups[g]);
    return list;
  }
  std::vector<std::string> names;
  K columns = kabi::ktn(kabi::kMixed, static_cast<long long>(groups[0].size()));
  for (std::size_t j = 0; j < groups[0].size(); ++j) {
    names.push_back(groups[0][j].first);
    K column = kabi::ktn(kabi::kMixed, static_cast<long long>(groups.size()));
    for (std::size_t g = 0; g < groups.size(); ++g)
      kabi::Items(column)[g] = KFromOption(groups[g][j].second);
    kabi::Items(columns)[j] = CollapseAtoms(column);
  }
  return kabi::xT(kabi::xD(Symbols(names), columns));
}

K KFromOptimizerDescription(const OptimizerDescription& d,
                            const std::vector<OptimizerBuffers>* buffers) {
  K options = KFromGroupOptions(d.options);
  const auto n = static_cast<long long>(d.parameters.size());
  K group = kabi::ktn(kabi::kLong, n), pointer = kabi::ktn(kabi::kLong, n),
    size = kabi::ktn(kabi::kMixed, n);
  std::vector<std::string> modules, names;
  for (long long i = 0; i < n; ++i) {
    const OptimizerParameter& p = d.parameters[i];
    kabi::Longs(group)[i] = p.group;
    kabi::Longs(pointer)[i] = p.pointer;
    kabi::Items(size)[i] = KFromLongs(p.size);
    modules.push_back(p.module);
    names.push_back(p.name);
  }
  std::vector<std::string> columns = {"parmgroup", "pointer", "module", "name", "size"};
  K values = kabi::knk(5, group, pointer, Symbols(modules), Symbols(names), size);
  if (buffers != nullptr) {
    columns.push_back("buffers");
    K cells = kabi::ktn(kabi::kMixed, n);
    for (long long i = 0; i < n; ++i) kabi::Items(cells)[i] = KFromBuffers((*buffers)[i]);
    kabi::jk(&values, cells);
  }
  K parms = kabi::xT(kabi::xD(Symbols(columns), values));
  return kabi::xD(Symbols({"optimizer", "options", "parms"}),
                  kabi::knk(3, Symbol(d.kind), options, parms));
}

K KFromOptimizerState(Handle o, bool all_options) {
  const OptimizerState s = opt_state(o, all_options);
  return KFromOptimizerDescription(s.description, &s.buffers);
}

OptimizerState OptimizerStateFromK(K x) {
  if (x->t != kabi::kDictionary) Fail("opt: expected optimizer dictionary, given %s", KName(x));
  K kind = Entry(x, "optimizer"), options = Entry(x, "options"), parms = Entry(x, "parms");
  if (kind == nullptr || !IsSymbol(kind))
    Fail("opt: optimizer dictionary needs `optimizer, a symbol");
  OptimizerState s;
  s.description.kind = SymbolText(kind);
  if (options != nullptr) s.description.options = GroupOptionsFromK(options);
  if (parms != nullptr) ParmsFromK(parms, &s);
  return s;
}

}  // namespace kscope::q
