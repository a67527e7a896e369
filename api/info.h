// info(h) — ktorch's `info t`: the attributes of one tensor as a struct. Throws kscope::Error
// ("info: expected tensor, given <class>", "stale pointer"). Thread-safe.
#ifndef KSCOPE_API_INFO_H_
#define KSCOPE_API_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/handle.h"

namespace kscope {

struct TensorInfo {
  bool defined;
  std::string device;
  std::string dtype;
  std::string layout;    // strided, sparse, ...
  std::string gradient;  // grad or nograd
  std::string gradfn;    // e.g. MulBackward0; empty for none
  bool leaf;
  std::int64_t dim;
  std::int64_t elements;
  std::int64_t itemsize;
  std::int64_t bytes;
  std::vector<std::int64_t> size;
  std::vector<std::int64_t> stride;
  std::int64_t numel;
  std::int64_t offset;
  std::int64_t ptr;
  std::int64_t ref;  // exact reference count, the handle's own included
};

TensorInfo info(Handle h);

}  // namespace kscope

#endif  // KSCOPE_API_INFO_H_
