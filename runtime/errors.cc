#include "runtime/errors.h"

namespace kscope {

void Fail(std::string message) { throw Error(message); }

}  // namespace kscope
