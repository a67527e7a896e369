#include "api/distributed/collectives.h"

#include <utility>
#include <vector>

#include "api/distributed/buckets.h"
#include "api/distributed/group_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"

namespace kscope {
namespace {

using distributed::Buckets;
using distributed::GroupObject;
using distributed::GroupOf;

// The tensors of a tensor, vector or dictionary handle (sharing their storage).
std::vector<at::Tensor> TensorsOf(const char* fn, Handle x) {
  const ObjectClass c = HandleTable::Global().Info(x).object_class;
  if (c != ObjectClass::kTensor && c != ObjectClass::kVector && c != ObjectClass::kDictionary) {
    Fail("%s: expected tensor, vector or dictionary, given %s", fn, ClassName(c));
  }
  return HandleTable::Global().Get(x).tensors();
}

std::vector<at::Tensor> TensorsOf(const Value& x) {
  if (const auto* t = std::get_if<at::Tensor>(&x)) return {*t};
  if (const auto* v = std::get_if<TensorVector>(&x)) return *v;
  std::vector<at::Tensor> tensors;
  for (const auto& item : std::get<TensorDict>(x)) tensors.push_back(item.value());
  return tensors;
}

// Data shaped as `like`, each tensor's values taken from the buckets.
Value Unpacked(const Value& like, const Buckets& buckets) {
  if (std::holds_alternative<at::Tensor>(like)) return buckets.Unpacked(0);
  if (const auto* v = std::get_if<TensorVector>(&like)) {
    TensorVector out;
    for (std::size_t i = 0; i < v->size(); ++i) out.push_back(buckets.Unpacked(i));
    return out;
  }
  TensorDict out;
  std::size_t i = 0;
  for (const auto& item : std::get<TensorDict>(like)) out.insert(item.key(), buckets.Unpacked(i++));
  return out;
}

void CheckMean(const char* fn, const std::vector<at::Tensor>& tensors, Reduction op) {
  if (op != Reduction::kMean) return;
  for (const at::Tensor& t : tensors) {
    if (!at::isFloatingType(t.scalar_type()) && !at::isComplexType(t.scalar_type())) {
      Fail("%s: mean needs floating-point tensors, given %s", fn, DtypeName(t.scalar_type()));
    }
  }
}

// Runs `collective` on every bucket of the tensors; the tensors themselves are not touched.
template <typename F>
Buckets Collect(const std::vector<at::Tensor>& tensors, F collective) {
  Buckets buckets(tensors);
  for (at::Tensor& flat : buckets.flat()) collective(flat);
  return buckets;
}

void CheckRoot(const char* fn, const GroupObject& g, int root) {
  if (root < 0 || root >= g.world())
    Fail("%s: root must be a rank 0..%d, given %d", fn, g.world() - 1, root);
}

}  // namespace

Reduction ReductionFromName(const char* fn, const std::string& name) {
  if (name == "sum") return Reduction::kSum;
  if (name == "mean") return Reduction::kMean;
  if (name == "max") return Reduction::kMax;
  if (name == "min") return Reduction::kMin;
  Fail("%s: unrecognized reduction `%s, expected `sum, `mean, `max or `min", fn, name);
}

void allreduce(Handle x, Reduction op, Handle group) {
  const auto g = GroupOf("allreduce", group);
  const std::vector<at::Tensor> tensors = TensorsOf("allreduce", x);
  CheckMean("allreduce", tensors, op);
  Collect(tensors, [&](at::Tensor& flat) {
    g->AllReduce("allreduce", flat, op);
  }).CopyBack(tensors);
}

Value allreduce(Value x, Reduction op, Handle group) {
  const auto g = GroupOf("allreduce", group);
  const std::vector<at::Tensor> tensors = TensorsOf(x);
  CheckMean("allreduce", tensors, op);
  return Unpacked(x,
                  Collect(tensors, [&](at::Tensor& flat) { g->AllReduce("allreduce", flat, op); }));
}

void broadcast(Handle x, int root, Handle group) {
  const auto g = GroupOf("broadcast", group);
  CheckRoot("broadcast", *g, root);
  const std::vector<at::Tensor> tensors = TensorsOf("broadcast", x);
  Collect(tensors, [&](at::Tensor& flat) {
    g->Broadcast("broadcast", flat, root);
  }).CopyBack(tensors);
}

Value broadcast(Value x, int root, Handle group) {
  const auto g = GroupOf("broadcast", group);
  CheckRoot("broadcast", *g, root);
  return Unpacked(
      x, Collect(TensorsOf(x), [&](at::Tensor& flat) { g->Broadcast("broadcast", flat, root); }));
}

Result allgather(const Operand& x, Handle group) {
  const auto g = GroupOf("allgather", group);
  const at::Tensor t = x.is_handle() ? TensorOf("allgather", x.handle()) : x.data();
  return EmitVector("allgather", g->AllGather("allgather", t.detach().contiguous()), x.is_handle());
}

void barrier(Handle group) { GroupOf("barrier", group)->Barrier("barrier"); }

}  // namespace kscope
