// The k-api shape layers (ktorch-api.md §2.1 "k-api layers"): cat (`dim 0), mul and matmul, each
// of two inputs; expand, reshape and permute (`size req); transpose (`dim0 -2, `dim1 -1);
// squeeze (`dim null: every dimension of size 1, `inplace 0b); unsqueeze (`dim req, `inplace
// 0b); select (`dim, `ind req: one index) and indexselect (`dim, `ind req: a long list, kept as
// the buffer `ind so that it moves with the module).
#include <algorithm>
#include <cstdint>
#include <set>

#include <ATen/ops/cat.h>
#include <ATen/ops/tensor.h>

#include "api/nn/ktorch_layers.h"

namespace kscope::nn {
namespace {

using X = const at::Tensor&;

class IndexSelectImpl : public KLayer<IndexSelectImpl> {
 public:
  IndexSelectImpl(std::string text, std::int64_t dim, std::vector<std::int64_t> ind)
      : KLayer(std::move(text)), dim_(dim), ind_values_(std::move(ind)) {
    reset();
  }
  void reset() override { ind_ = register_buffer("ind", at::tensor(ind_values_, at::kLong)); }
  // The index is long again if the module was converted to another dtype (to converts buffers).
  at::Tensor forward(X x) { return x.index_select(dim_, ind_.to(at::kLong)); }

 private:
  std::int64_t dim_;
  std::vector<std::int64_t> ind_values_;
  at::Tensor ind_;
};

OptionSpec Size() { return Required("size", OptionType::kLongs); }

// expand and reshape's `size: -1 (keep, or infer) or a size.
const std::vector<std::int64_t>& Sizes(const OptionSet& o) {
  AtLeast(o, "size", -1);
  return o.Longs("size");
}

std::vector<std::int64_t> ReshapeSizes(const OptionSet& o) {
  const std::vector<std::int64_t>& size = Sizes(o);
  const auto inferred = std::count(size.begin(), size.end(), -1);
  Check(inferred <= 1, o, "option `size may infer one dimension (-1), given %d", inferred);
  return size;
}

std::vector<std::int64_t> PermuteDims(const OptionSet& o) {
  const std::vector<std::int64_t>& dims = o.Longs("size");
  std::set<std::int64_t> seen;
  for (std::int64_t d : dims)
    Check(seen.insert(d).second, o, "option `size repeats dimension %d", d);
  return dims;
}

ModuleKind Squeeze() {
  return FunctionKind<UnaryImpl>("squeeze", {{"dim", OptionType::kLongOrNull, {}}, Inplace()},
                                 [](const OptionSet& o) {
                                   return [dim = Optional<std::int64_t>(o, "dim"),
                                           inplace = o.Bool("inplace")](X x) -> at::Tensor {
                                     if (dim) return inplace ? x.squeeze_(*dim) : x.squeeze(*dim);
                                     return inplace ? x.squeeze_() : x.squeeze();
                                   };
                                 });
}

ModuleKind Unsqueeze() {
  return FunctionKind<UnaryImpl>(
      "unsqueeze", {Required("dim", OptionType::kLong), Inplace()}, [](const OptionSet& o) {
        return [dim = o.Long("dim"), inplace = o.Bool("inplace")](X x) -> at::Tensor {
          return inplace ? x.unsqueeze_(dim) : x.unsqueeze(dim);
        };
      });
}

ModuleKind IndexSelect() {
  return LeafKind<IndexSelectImpl>(
      "indexselect", {Required("dim", OptionType::kLong), Required("ind", OptionType::kLongs)},
      [](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
        AtLeast(o, "ind", 0);
        return std::make_shared<IndexSelectImpl>(KLayerText(o), o.Long("dim"), o.Longs("ind"));
      });
}

}  // namespace

std::vector<ModuleKind> KShapeKinds() {
  return {
      FunctionKind<BinaryImpl>("cat", {{"dim", OptionType::kLong, std::int64_t{0}}},
                               [](const OptionSet& o) {
                                 return [dim = o.Long("dim")](X x, X y) {
                                   return at::cat({x, y}, dim);
                                 };
                               }),
      FunctionKind<BinaryImpl>("mul", {},
                               [](const OptionSet&) { return [](X x, X y) { return x.mul(y); }; }),
      FunctionKind<BinaryImpl>(
          "matmul", {}, [](const OptionSet&) { return [](X x, X y) { return x.matmul(y); }; }),
      FunctionKind<UnaryImpl>(
          "expand", {Size()},
          [](const OptionSet& o) { return [size = Sizes(o)](X x) { return x.expand(size); }; }),
      FunctionKind<UnaryImpl>("reshape", {Size()},
                              [](const OptionSet& o) {
                                return [size = ReshapeSizes(o)](X x) { return x.reshape(size); };
                              }),
      FunctionKind<UnaryImpl>("permute", {Size()},
                              [](const OptionSet& o) {
                                return [dims = PermuteDims(o)](X x) { return x.permute(dims); };
                              }),
      FunctionKind<UnaryImpl>("transpose",
                              {{"dim0", OptionType::kLong, std::int64_t{-2}},
                               {"dim1", OptionType::kLong, std::int64_t{-1}}},
                              [](const OptionSet& o) {
                                return [dim0 = o.Long("dim0"), dim1 = o.Long("dim1")](X x) {
                                  return x.transpose(dim0, dim1);
                                };
                              }),
      Squeeze(),
      Unsqueeze(),
      FunctionKind<UnaryImpl>(
          "select", {Required("dim", OptionType::kLong), Required("ind", OptionType::kLong)},
          [](const OptionSet& o) {
            return [dim = o.Long("dim"), ind = o.Long("ind")](X x) { return x.select(dim, ind); };
          }),
      IndexSelect(),
  };
}

}  // namespace kscope::nn
