// The recurrent family (ktorch-api.md §2.1): rnn, gru and lstm with ktorch's options `in and
// `hidden (required), `layers 1, `fn `tanh (rnn only; or `relu), `bias 1b, `batchfirst 0b,
// `dropout 0, `bi 0b.
//
// A forward takes the input and, optionally, the state to start from: rnn and gru (input; h),
// lstm (input; h; c). As in ktorch, whose forward turns libtorch's tuples into a vector of
// tensors, it returns every part of the result whatever the inputs: (output; h) for rnn and
// gru, (output; h; c) for lstm. Each can be added to a sequential, as in libtorch, but the
// sequential's forward then fails on the several outputs (ktorch's `recur wraps them instead).
#include <torch/nn/modules/rnn.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

using torch::nn::Module;

// The options of the three kinds, in ktorch's order; rnn's `fn comes after `layers.
std::vector<OptionSpec> Specs(bool with_fn) {
  std::vector<OptionSpec> specs{Required("in", OptionType::kLong),
                                Required("hidden", OptionType::kLong),
                                {"layers", OptionType::kLong, std::int64_t{1}}};
  if (with_fn) specs.push_back({"fn", OptionType::kSymbol, std::string("tanh")});
  specs.insert(specs.end(), {{"bias", OptionType::kBool, true},
                             {"batchfirst", OptionType::kBool, false},
                             {"dropout", OptionType::kDouble, 0.0},
                             {"bi", OptionType::kBool, false}});
  return specs;
}

// libtorch's RNNOptions, GRUOptions or LSTMOptions (they share these setters), checked.
template <typename Options>
Options Common(const OptionSet& o) {
  for (const char* positive : {"in", "hidden", "layers"}) AtLeast(o, positive, 1);
  const double dropout = o.Double("dropout");
  Check(dropout >= 0 && dropout <= 1, o, "option `dropout must be between 0 and 1, given %g",
        dropout);
  return Options(o.Long("in"), o.Long("hidden"))
      .num_layers(o.Long("layers"))
      .bias(o.Bool("bias"))
      .batch_first(o.Bool("batchfirst"))
      .dropout(dropout)
      .bidirectional(o.Bool("bi"));
}

torch::nn::RNNOptions::nonlinearity_t Nonlinearity(const OptionSet& o) {
  const std::string& fn = o.Symbol("fn");
  if (fn == "tanh") return torch::kTanh;
  if (fn == "relu") return torch::kReLU;
  Fail("%s: unrecognized fn `%s, expecting tanh or relu", o.kind(), fn);
}

// rnn and gru: input [; h] -> (output; h).
template <typename Impl>
ModuleOutput HiddenForward(Module& m, const std::vector<at::Tensor>& x) {
  auto [y, h] = dynamic_cast<Impl&>(m).forward(x[0], x.size() > 1 ? x[1] : at::Tensor());
  return std::vector<at::Tensor>{y, h};
}

// lstm: input [; h; c] -> (output; h; c).
ModuleOutput CellForward(Module& m, const std::vector<at::Tensor>& x) {
  if (x.size() == 2)
    Fail("lstm: expects the input, or the input, hidden state and cell state, given 2 inputs");
  c10::optional<std::tuple<at::Tensor, at::Tensor>> state;
  if (x.size() == 3) state = std::make_tuple(x[1], x[2]);
  auto [y, hc] = dynamic_cast<torch::nn::LSTMImpl&>(m).forward(x[0], state);
  return std::vector<at::Tensor>{y, std::get<0>(hc), std::get<1>(hc)};
}

// A leaf kind made as Impl(options(o)), whose forward is `forward`, taking the input and up to
// `states` state tensors.
template <typename Impl, typename MakeOptions>
ModuleKind Recurrent(std::string name, bool with_fn, std::size_t states,
                     ModuleKind::Forward forward, MakeOptions options) {
  return ModuleKind{std::move(name),
                    Specs(with_fn),
                    [options](const OptionSet& o) -> std::shared_ptr<Module> {
                      return std::make_shared<Impl>(options(o));
                    },
                    std::move(forward),
                    1,
                    1 + states,
                    [](const std::shared_ptr<Module>& m) {
                      return torch::nn::AnyModule(std::dynamic_pointer_cast<Impl>(m));
                    },
                    nullptr};
}

}  // namespace

std::vector<ModuleKind> RecurrentKinds() {
  namespace tnn = torch::nn;
  return {Recurrent<tnn::RNNImpl>("rnn", true, 1, HiddenForward<tnn::RNNImpl>,
                                  [](const OptionSet& o) {
                                    return Common<tnn::RNNOptions>(o).nonlinearity(Nonlinearity(o));
                                  }),
          Recurrent<tnn::GRUImpl>("gru", false, 1, HiddenForward<tnn::GRUImpl>,
                                  Common<tnn::GRUOptions>),
          Recurrent<tnn::LSTMImpl>("lstm", false, 2, CellForward, Common<tnn::LSTMOptions>)};
}

}  // namespace kscope::nn
