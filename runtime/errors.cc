#include "runtime/errors.h"

#include <utility>

namespace kscope {

void Fail(std::string message) { throw Error(std::move(message)); }

}  // namespace kscope
