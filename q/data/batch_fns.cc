// Adapters for batching and shuffling tensors, vectors and dictionaries: batch restore shuffle.
// batch m selects a model's next training batch (api/model/model_data.h); restore m and shuffle m
// reach the model through api/data/batch.h.
#include "api/core/pointer.h"
#include "api/data/batch.h"
#include "api/model/model_data.h"
#include "q/convert/args.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

struct SizeAndDim {
  std::int64_t size;
  std::int64_t dim;
};

// The w or w,dim argument of batch.
SizeAndDim SizeAndDimAt(const Args& a, std::size_t i) {
  const std::vector<std::int64_t> v = a.LongsAt(i);
  if (v.empty() || v.size() > 2)
    Fail("%s: arg[%d] expected batch size or (size;dim), given %d long(s)", a.fn(), i, v.size());
  return {v[0], v.size() == 2 ? v[1] : 0};
}

// batch(p;w) | batch(p;w,dim) -> bool; batch(p;w;i) | batch(p;w,dim;i) -> null
K Batch(K x) {
  return Guard([&] {
    const Args a("batch", x);
    if (a.size() == 1 && a.IsPointerAt(0) && class_(a.PointerAt(0)) == ObjectClass::kModel) {
      return kabi::kb(model_batch(a.PointerAt(0), nn::DataMode::kTrain));
    }
    if (a.size() != 2 && a.size() != 3) a.Unrecognized();
    const Handle h = a.PointerAt(0);
    const SizeAndDim w = SizeAndDimAt(a, 1);
    if (a.size() == 2) return kabi::kb(batch(h, w.size, w.dim));
    batch_at(h, w.size, a.LongAt(2), w.dim);
    return K{nullptr};
  });
}

// The dim of f p | f(p;dim).
std::int64_t DimOf(const Args& a) {
  if (a.size() != 1 && a.size() != 2) a.Unrecognized();
  return a.size() == 2 ? a.LongAt(1) : 0;
}

// restore p | restore(p;dim) -> the full size along dim
K Restore(K x) {
  return Guard([&] {
    const Args a("restore", x);
    const std::int64_t dim = DimOf(a);
    return kabi::kj(restore(a.PointerAt(0), dim));
  });
}

// shuffle p | shuffle(p;dim) -> null
K Shuffle(K x) {
  return Guard([&] {
    const Args a("shuffle", x);
    const std::int64_t dim = DimOf(a);
    shuffle(a.PointerAt(0), dim);
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> BatchExports() {
  return {Unary("batch", Batch), Unary("restore", Restore), Unary("shuffle", Shuffle)};
}

}  // namespace kscope::q
