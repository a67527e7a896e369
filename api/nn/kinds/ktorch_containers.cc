// ktorch's own containers (ktorch-api.md §2.1, "Containers"), each a KContainerImpl:
//   seqnest      children in a chain: the first takes the 1-3 inputs, each next the previous
//                output; nestable (unlike libtorch's sequential)
//   seqlist      a chain whose first input flows through the children while the extra inputs
//   seqdict      (up to 7) are passed along to every child that takes them; seqdict the same
//   seqjoin      join(qx(x), qy(y)), children qx [qy] join; without qy, join(qx(x), y); y
//                defaults to x
//   fork         the vector (qa(x); qb(x)), children qa [qb]; without qb, (qa(x); x)
//   residual     q1(x) + q2(x), or q1(x) + x without q2, then the activation `a if present;
//                unnamed children are q1 q2 a in turn, so an activation without q2 must be
//                named `a
//   transform    the `train child in training mode, the `eval child (or the identity) otherwise
//   recur        a recurrent child's (lstm gru rnn) (output; hidden state..) with the state
//                detached when option `detach is set (the default); an optional child before it
//                transforms the input, one after it the output; unnamed children are named in,
//                lstm/gru/rnn (by kind) and out, as in ktorch
//   nbeats       N-BEATS: each block returns (backcast; forecast); the input loses each
//                backcast in turn and the forecasts are summed
//   moduledict   holders of modules without a forward of their own
//   modulelist
//   parmdict     a holder of parameters (and buffers), given as its `parms (`buffers) option
#include <algorithm>

#include "api/nn/ktorch_container.h"
#include "api/nn/module_families.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

using torch::nn::Module;

class SeqNestImpl : public KContainerImpl {
 public:
  SeqNestImpl() : KContainerImpl("seqnest", 0) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    RequireChildren(1);
    ModuleOutput out = RunChild(0, x);
    for (std::size_t i = 1; i < entries().size(); ++i) out = RunChild(i, Tensors(std::move(out)));
    return out;
  }
};

class SeqListImpl : public KContainerImpl {
 public:
  explicit SeqListImpl(std::string kind) : KContainerImpl(std::move(kind), 0) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    RequireChildren(1);
    ModuleOutput out = x[0];
    for (std::size_t i = 0; i < entries().size(); ++i) {
      std::vector<at::Tensor> in = Tensors(std::move(out));
      in.insert(in.end(), x.begin() + 1, x.end());
      in.resize(std::min(in.size(), entries()[i].kind->max_inputs));
      out = RunChild(i, in);
    }
    return out;
  }
};

class SeqJoinImpl : public KContainerImpl {
 public:
  SeqJoinImpl() : KContainerImpl("seqjoin", 3) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    RequireChildren(2);
    const bool has_y = entries().size() == 3;
    const at::Tensor& y = x.size() > 1 ? x[1] : x[0];
    at::Tensor qx = SingleOutput("seqjoin", RunChild(0, {x[0]}));
    at::Tensor qy = has_y ? SingleOutput("seqjoin", RunChild(1, {y})) : y;
    return RunChild(entries().size() - 1, {qx, qy});
  }

 protected:
  std::string DefaultName(std::size_t position, const ModuleKind&) const override {
    static const char* const kNames[] = {"qx", "qy", "join"};
    return kNames[position];
  }
};

class ForkImpl : public KContainerImpl {
 public:
  ForkImpl() : KContainerImpl("fork", 2) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    RequireChildren(1);
    at::Tensor b = entries().size() == 2 ? SingleOutput("fork", RunChild(1, x)) : x[0];
    return std::vector<at::Tensor>{SingleOutput("fork", RunChild(0, x)), b};
  }

 protected:
  std::string DefaultName(std::size_t position, const ModuleKind&) const override {
    return position == 0 ? "qa" : "qb";
  }
};

class ResidualImpl : public KContainerImpl {
 public:
  ResidualImpl() : KContainerImpl("residual", 3) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    RequireChildren(1);
    const std::size_t q2 = Find("q2"), a = Find("a");
    at::Tensor y = SingleOutput("residual", RunChild(0, x));
    y = y + (q2 < entries().size() ? SingleOutput("residual", RunChild(q2, x)) : x[0]);
    return a < entries().size() ? RunChild(a, {y}) : ModuleOutput(y);
  }

 protected:
  std::string DefaultName(std::size_t position, const ModuleKind&) const override {
    static const char* const kNames[] = {"q1", "q2", "a"};
    return kNames[position];
  }

 private:
  std::size_t Find(const char* name) const {
    std::size_t i = 1;
    while (i < entries().size() && entries()[i].name != name) ++i;
    return i;
  }
};

class TransformImpl : public KContainerImpl {
 public:
  TransformImpl() : KContainerImpl("transform", 2) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    RequireChildren(1);
    if (is_training()) return RunChild(0, x);
    return entries().size() == 2 ? RunChild(1, x) : ModuleOutput(x[0]);
  }

 protected:
  std::string DefaultName(std::size_t position, const ModuleKind&) const override {
    return position == 0 ? "train" : "eval";
  }
};

bool IsRecurrent(const ModuleKind& kind) {
  return kind.name == "lstm" || kind.name == "gru" || kind.name == "rnn";
}

// ktorch's recur: an optional input child, the recurrent child (lstm gru rnn), an optional output
// child, in that order.
class RecurImpl : public KContainerImpl {
 public:
  explicit RecurImpl(bool detach) : KContainerImpl("recur", 3), detach_(detach) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    const std::size_t r = Recurrent();
    std::vector<at::Tensor> in = x;
    if (r == 1) in[0] = SingleOutput("recur", RunChild(0, {x[0]}));
    std::vector<at::Tensor> out = Tensors(RunChild(r, in));
    if (detach_) {
      for (std::size_t i = 1; i < out.size(); ++i) out[i] = out[i].detach();
    }
    if (entries().size() > r + 1) out[0] = SingleOutput("recur", RunChild(r + 1, {out[0]}));
    return out;
  }

 protected:
  // As ktorch names them: the recurrent child by its kind, a child added before it in, after it
  // out (children are only ever appended, so "before" means no recurrent child yet).
  std::string DefaultName(std::size_t, const ModuleKind& kind) const override {
    if (IsRecurrent(kind)) return kind.name;
    const bool after = std::any_of(entries().begin(), entries().end(),
                                   [](const Child& c) { return IsRecurrent(*c.kind); });
    return after ? "out" : "in";
  }

 private:
  // The position of the recurrent child (0, or 1 after an input child); fails without one.
  std::size_t Recurrent() const {
    for (std::size_t i = 0; i < entries().size() && i < 2; ++i) {
      if (IsRecurrent(*entries()[i].kind)) return i;
    }
    Fail("recur: no recurrent lstm, gru or rnn module defined");
  }

  bool detach_;
};

class NBeatsImpl : public KContainerImpl {
 public:
  NBeatsImpl() : KContainerImpl("nbeats", 0) {}
  ModuleOutput Run(const std::vector<at::Tensor>& x) override {
    RequireChildren(1);
    at::Tensor input = x[0], forecast;
    for (std::size_t i = 0; i < entries().size(); ++i) {
      std::vector<at::Tensor> block = Tensors(RunChild(i, {input}));
      if (block.size() != 2) {
        Fail("nbeats: block `%s returned %d tensors, expecting (backcast; forecast)",
             entries()[i].name, block.size());
      }
      input = input - block[0];
      forecast = forecast.defined() ? forecast + block[1] : block[1];
    }
    return forecast;
  }
};

class HolderImpl : public KContainerImpl {
 public:
  explicit HolderImpl(std::string kind) : KContainerImpl(std::move(kind), 0) {}
  // parmdict: no children, the tensors of its `parms and `buffers options.
  explicit HolderImpl(const OptionSet& o) : KContainerImpl(o.kind(), 0) {
    RegisterNamedTensors(*this, o);
  }
  ModuleOutput Run(const std::vector<at::Tensor>&) override {
    Fail("%s: no forward calculation, it holds modules for other uses", kind());
  }
};

// A container kind of class Impl, made by `make`, whose forward takes `inputs` to `max_inputs`
// tensors.
ModuleKind Container(std::string name, std::vector<OptionSpec> specs, ModuleKind::Make make,
                     std::size_t inputs, std::size_t max_inputs) {
  return ModuleKind{std::move(name),
                    std::move(specs),
                    std::move(make),
                    [](Module& m, const std::vector<at::Tensor>& x) {
                      return dynamic_cast<KContainerImpl&>(m).Run(x);
                    },
                    inputs,
                    max_inputs,
                    [](const std::shared_ptr<Module>& m) {
                      return torch::nn::AnyModule(std::dynamic_pointer_cast<KContainerImpl>(m));
                    },
                    [](Module& parent, const std::string& name, const ModuleKind& kind,
                       const std::shared_ptr<Module>& child) {
                      return dynamic_cast<KContainerImpl&>(parent).Add(name, kind, child);
                    }};
}

// A container without options, made as Impl(args...).
template <typename Impl, typename... Args>
ModuleKind Optionless(std::string name, std::size_t inputs, std::size_t max_inputs, Args... args) {
  return Container(
      std::move(name), {},
      [args...](const OptionSet&) -> std::shared_ptr<Module> {
        return std::make_shared<Impl>(args...);
      },
      inputs, max_inputs);
}

}  // namespace

std::vector<ModuleKind> ContainerKinds() {
  std::vector<ModuleKind> kinds;
  kinds.push_back(Optionless<SeqNestImpl>("seqnest", 1, 3));
  kinds.push_back(Optionless<SeqListImpl>("seqlist", 1, 8, std::string("seqlist")));
  kinds.push_back(Optionless<SeqListImpl>("seqdict", 1, 8, std::string("seqdict")));
  kinds.push_back(Optionless<SeqJoinImpl>("seqjoin", 1, 2));
  kinds.push_back(Optionless<ForkImpl>("fork", 1, 1));
  kinds.push_back(Optionless<ResidualImpl>("residual", 1, 1));
  kinds.push_back(Optionless<TransformImpl>("transform", 1, 1));
  kinds.push_back(Container(
      "recur", {{"detach", OptionType::kBool, true}},
      [](const OptionSet& o) -> std::shared_ptr<Module> {
        return std::make_shared<RecurImpl>(o.Bool("detach"));
      },
      1, 3));
  kinds.push_back(Optionless<NBeatsImpl>("nbeats", 1, 1));
  kinds.push_back(Optionless<HolderImpl>("moduledict", 0, 0, std::string("moduledict")));
  kinds.push_back(Optionless<HolderImpl>("modulelist", 0, 0, std::string("modulelist")));
  ModuleKind parmdict = Container(
      "parmdict", NamedTensorOptions(),
      [](const OptionSet& o) -> std::shared_ptr<Module> { return std::make_shared<HolderImpl>(o); },
      0, 0);
  parmdict.add_child = nullptr;  // tensors only
  kinds.push_back(std::move(parmdict));
  return kinds;
}

}  // namespace kscope::nn
