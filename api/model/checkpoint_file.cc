#include "api/model/checkpoint_file.h"

#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/strings/str_cat.h"
#include "api/core/pickle_file.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

using c10::IValue;

constexpr const char* kFormat = "kscope checkpoint";
constexpr std::int64_t kVersion = 1;

// A file that reads as a pickle but not as a checkpoint (ReadCheckpoint names the file).
[[noreturn]] void Malformed(const std::string& what) { throw std::runtime_error(what); }

// ---- To and from IValues: tuples and lists of IValues, option values tagged by their index
// in nn::OptionValue.

IValue Tuple(std::vector<IValue> items) { return c10::ivalue::Tuple::create(std::move(items)); }

IValue List(std::vector<IValue> items) {
  c10::impl::GenericList list(c10::AnyType::get());
  for (IValue& item : items) list.push_back(std::move(item));
  return list;
}

template <typename T, typename F>
IValue ListOf(const std::vector<T>& values, F item) {
  std::vector<IValue> items;
  for (const T& v : values) items.push_back(item(v));
  return List(std::move(items));
}

IValue Host(const at::Tensor& t) { return t.detach().cpu().contiguous(); }

IValue Named(const NamedList& named) {
  return ListOf(named, [](const auto& item) { return Tuple({item.first, Host(item.second)}); });
}

IValue Encode(const nn::OptionValue& value) {
  const auto payload = std::visit(
      [](const auto& v) -> IValue {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return IValue();
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return ListOf(v, [](const std::string& s) { return IValue(s); });
        } else if constexpr (std::is_same_v<T, nn::NamedTensors>) {
          NamedList named;
          for (std::size_t i = 0; i < v.names.size(); ++i)
            named.emplace_back(v.names[i], v.tensors[i]);
          return Named(named);
        } else if constexpr (std::is_same_v<T, nn::Nested>) {
          // A checkpoint holds optimizer and training options: none takes a definition.
          Fail("checkpoint: an option holding a module definition cannot be saved");
        } else {
          return IValue(v);
        }
      },
      value);
  return Tuple({static_cast<std::int64_t>(value.index()), payload});
}

IValue Options(const nn::NamedValues& values) {
  return ListOf(values, [](const auto& item) { return Tuple({item.first, Encode(item.second)}); });
}

IValue Optimizer(const OptimizerState& s) {
  const OptimizerDescription& d = s.description;
  return Tuple({d.kind, ListOf(d.options, Options),
                ListOf(d.parameters,
                       [](const auto& p) {
                         return Tuple({p.group, p.name, IValue(p.size)});
                       }),
                ListOf(s.buffers, Named)});
}

// The elements of a tuple of n (v keeps the tuple alive).
const c10::ivalue::TupleElements& Items(const IValue& v, std::size_t n) {
  const auto& items = v.toTupleRef().elements();
  if (items.size() != n)
    Malformed(absl::StrCat("a tuple of ", items.size(), " where ", n, " were expected"));
  return items;
}

template <typename F>
auto ListFrom(const IValue& v, F item) {
  std::vector<decltype(item(v))> values;
  for (const IValue& i : v.toListRef()) values.push_back(item(i));
  return values;
}

NamedList NamedFrom(const IValue& v) {
  return ListFrom(v, [](const IValue& i) {
    const auto& items = Items(i, 2);
    return std::make_pair(items[0].toStringRef(), items[1].toTensor());
  });
}

nn::OptionValue Decode(const IValue& v) {
  const auto& items = Items(v, 2);
  const IValue& x = items[1];
  switch (items[0].toInt()) {
    case 0: return std::monostate();
    case 1: return x.toBool();
    case 2: return x.toInt();
    case 3: return x.toDouble();
    case 4: return x.toStringRef();
    case 5: return ListFrom(x, [](const IValue& i) { return i.toInt(); });
    case 6: return ListFrom(x, [](const IValue& i) { return i.toDouble(); });
    case 7: return ListFrom(x, [](const IValue& i) { return i.toStringRef(); });
    case 8: {
      nn::NamedTensors named;
      for (auto& [name, t] : NamedFrom(x)) {
        named.names.push_back(name);
        named.tensors.push_back(t);
      }
      return named;
    }
    default: Malformed(absl::StrCat("an option value of unknown type ", items[0].toInt()));
  }
}

nn::NamedValues OptionsFrom(const IValue& v) {
  return ListFrom(v, [](const IValue& i) {
    const auto& items = Items(i, 2);
    return std::make_pair(items[0].toStringRef(), Decode(items[1]));
  });
}

OptimizerState OptimizerFrom(const IValue& v) {
  const auto& items = Items(v, 4);
  OptimizerState s;
  s.description.kind = items[0].toStringRef();
  s.description.options = ListFrom(items[1], OptionsFrom);
  s.description.parameters = ListFrom(items[2], [](const IValue& i) {
    const auto& row = Items(i, 3);
    return OptimizerParameter{row[0].toInt(), 0, "", row[1].toStringRef(), row[2].toIntVector()};
  });
  s.buffers = ListFrom(items[3], NamedFrom);
  return s;
}

IValue Encode(const CheckpointFile& s) {
  c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
  d.insert("format", kFormat);
  d.insert("version", kVersion);
  d.insert("epoch", s.epoch);
  d.insert("parameters", Named(s.parameters));
  d.insert("buffers", Named(s.buffers));
  d.insert("optimizer", Optimizer(s.optimizer));
  d.insert("permutation", s.permutation.defined() ? Host(s.permutation) : IValue());
  d.insert("shuffle generator", s.shuffle_on ? Tuple({*s.shuffle_on, s.shuffle_state}) : IValue());
  d.insert("cpu generator", s.cpu_state);
  d.insert("cuda generators", ListOf(s.cuda_states, [](const at::Tensor& t) { return IValue(t); }));
  d.insert("loss scale", Tuple({s.loss_scale.scale, s.loss_scale.good_steps}));
  return d;
}

CheckpointFile Decode(const IValue& v, const std::string& path) {
  const auto d = v.toGenericDict();
  if (!d.contains("format") || !d.at("format").isString() ||
      d.at("format").toStringRef() != kFormat) {
    Fail("resume: %s is not a kscope checkpoint", path);
  }
  const std::int64_t version = d.at("version").toInt();
  if (version != kVersion) {
    Fail("resume: %s is a kscope checkpoint of version %d, this kscope reads version %d", path,
         version, kVersion);
  }
  CheckpointFile s;
  s.epoch = d.at("epoch").toInt();
  s.parameters = NamedFrom(d.at("parameters"));
  s.buffers = NamedFrom(d.at("buffers"));
  s.optimizer = OptimizerFrom(d.at("optimizer"));
  if (!d.at("permutation").isNone()) {
    s.permutation = d.at("permutation").toTensor();
    if (s.permutation.dim() != 1 || s.permutation.scalar_type() != at::kLong)
      Malformed("the data's order is not a vector of longs");
  }
  if (!d.at("shuffle generator").isNone()) {
    const auto& g = Items(d.at("shuffle generator"), 2);
    s.shuffle_on = g[0].toStringRef();
    s.shuffle_state = g[1].toTensor();
  }
  s.cpu_state = d.at("cpu generator").toTensor();
  if (d.contains("cuda generators")) {
    s.cuda_states = ListFrom(d.at("cuda generators"), [](const IValue& i) { return i.toTensor(); });
  }
  if (d.contains("loss scale")) {
    const auto& scale = Items(d.at("loss scale"), 2);
    s.loss_scale.scale = scale[0].toDouble();
    s.loss_scale.good_steps = scale[1].toInt();
  }
  return s;
}

}  // namespace

CheckpointFile ReadCheckpoint(const std::string& path) {
  CheckpointFile file;
  ReadPickleFile("resume", path, "a kscope checkpoint",
                 [&](const IValue& value) { file = Decode(value, path); });
  return file;
}

void WriteCheckpoint(const std::string& path, const CheckpointFile& contents) {
  WritePickleFile("checkpoint", path, Encode(contents));
}

}  // namespace kscope
