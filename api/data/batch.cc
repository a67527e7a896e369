#include "api/data/batch.h"

#include <vector>

#include <ATen/core/Tensor.h>

#include "api/core/pointer.h"
#include "api/data/batch_window.h"
#include "api/data/shuffle.h"
#include "api/model/model_data.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope {
namespace {

// The tensors of a tensor, vector or dictionary handle (sharing the handle's TensorImpls, so
// windows and reorderings show through the handle); error for any other object.
std::vector<at::Tensor> BatchTensorsOf(const char* fn, Handle h) {
  Object o = HandleTable::Global().Get(h);
  if (o.composite() != nullptr) {
    Fail("%s: expected tensor, vector or dictionary, given %s", fn, ClassName(o.object_class()));
  }
  return o.tensors();
}

}  // namespace

bool batch(Handle h, std::int64_t size, std::int64_t dim) {
  return NextBatch("batch", BatchTensorsOf("batch", h), size, dim);
}

void batch_at(Handle h, std::int64_t size, std::int64_t index, std::int64_t dim) {
  SelectBatch("batch", BatchTensorsOf("batch", h), size, index, dim);
}

std::int64_t restore(Handle h, std::int64_t dim) {
  if (dim == 0 && class_(h) == ObjectClass::kModel) return model_restore(h, nn::DataMode::kTrain);
  return RestoreFull("restore", BatchTensorsOf("restore", h), dim);
}

void shuffle(Handle h, std::int64_t dim) {
  if (dim == 0 && class_(h) == ObjectClass::kModel) return model_shuffle(h);
  Shuffle("shuffle", BatchTensorsOf("shuffle", h), dim);
}

}  // namespace kscope
