// side_timing — how train_bench times the sides of a case (kscope's C++, libtorch written
// directly, the q plugin) against each other in one process: turn by turn, each repetition
// starting at the next side, ratios taken between samples measured back to back.
//
// Time() calls each side once and prints a "check" line with their first losses (a warning when
// they differ by more than 1e-5 relative: the sides would not do the same work), runs one
// untimed sample of each (warm-up), then `repetitions` samples of `per` calls of each side.
// Sides: [0] kscope's, [1] libtorch's, [2] the plugin's if there. Pure functions of the clock;
// not thread-safe only in that the sides' calls are the caller's.
#ifndef KSCOPE_BENCH_SIDE_TIMING_H_
#define KSCOPE_BENCH_SIDE_TIMING_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kscope::bench {

struct Summary {
  double median, min, max;  // milliseconds per call
};

// One side of a case: its name (the "result" lines') and one call's work, returning its loss.
struct Side {
  std::string name;
  std::function<double()> call;
};

struct CaseTiming {
  std::vector<std::pair<std::string, Summary>> sides;  // in the order given
  // The medians over repetitions of the paired ratios: kscope's sample time / libtorch's next to
  // it, and the plugin's / kscope's (none without a plugin side).
  double ratio;
  std::optional<double> plugin_ratio;
};

CaseTiming Time(const std::string& name, const std::vector<Side>& sides, int repetitions, int per);

}  // namespace kscope::bench

#endif  // KSCOPE_BENCH_SIDE_TIMING_H_
