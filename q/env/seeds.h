// KFromSeeds — each device's random seed as k: device!initial seed, cpu first, then cuda:0 ...
// What seed[] returns and, as in ktorch 2.3, help`device. The result is owned by the caller.
// Thread-safe (reads each generator under its lock).
#ifndef KSCOPE_Q_ENV_SEEDS_H_
#define KSCOPE_Q_ENV_SEEDS_H_

#include "q/convert/k_abi.h"

namespace kscope::q {

kabi::K KFromSeeds();

}  // namespace kscope::q

#endif  // KSCOPE_Q_ENV_SEEDS_H_
