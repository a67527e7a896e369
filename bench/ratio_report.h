// ratio_report — a benchmark main that prints, after Google Benchmark's usual table, the ratio
// of pairs of benchmarks timed in the same run.
//
// Contract of RunWithRatios(argc, argv, title, table):
//   - it is the part of main between the program's own setup (thread counts, loading what the
//     benchmarks use) and its teardown: it calls benchmark::Initialize on argc/argv (any Google
//     Benchmark flag works), runs the selected benchmarks with the console reporter (coloured
//     on a terminal), calls benchmark::Shutdown, then prints `title` and one line per row;
//   - it returns main's exit code: 1 if an argument was not recognized (nothing is run or
//     printed then), else 0;
//   - times are real time per iteration: the median over --benchmark_repetitions (Google
//     Benchmark's own median aggregate under --benchmark_report_aggregates_only), divided by
//     the row's `per`; a row whose benchmark did not run (filtered out, or skipped with an
//     error) is left out. On a noisy machine, repetitions with
//     --benchmark_enable_random_interleaving=true give the steadiest ratios.
// A row prints as "<label:, padded to 32> <subject_name> <time>, <baseline_name> <time>, ratio
// <subject time / baseline time>", with " (target <= T)" appended when target > 0; a row
// without a baseline prints only the subject's time. A row with a `floor` compares overheads:
// the floor's time (the same work done directly, possibly plus a share both sides pay alike) is
// subtracted from both sides first, and the line ends "<floor_name> <time>, overhead ratio
// <(subject - floor) / (baseline - floor)>".
//
// Thread-safety: call it once, from main.
#ifndef KSCOPE_BENCH_RATIO_REPORT_H_
#define KSCOPE_BENCH_RATIO_REPORT_H_

#include <string>
#include <utility>
#include <vector>

namespace kscope::bench {

// One line of the ratios table: `subject`'s time over `baseline`'s. Benchmarks are named as
// Google Benchmark reports them: "BM_KscopeAdd", "BM_KscopeScope/16".
struct Comparison {
  Comparison(std::string label, std::string subject, std::string baseline, double per = 1,
             double target = 0, std::string subject_name = "kscope",
             std::string baseline_name = "raw")
      : label(std::move(label)),
        subject(std::move(subject)),
        baseline(std::move(baseline)),
        per(per),
        target(target),
        subject_name(std::move(subject_name)),
        baseline_name(std::move(baseline_name)) {}

  std::string label;
  std::string subject;
  std::string baseline;                 // empty: no baseline, only the subject's time is printed
  double per = 1;                       // both times are divided by this (e.g. per handle)
  double target = 0;                    // ratio target to print (not enforced); 0: none
  std::string subject_name = "kscope";  // how the line names the two sides
  std::string baseline_name = "raw";
  // Set: the ratio is of the two sides' overheads over these benchmarks' summed times (the same
  // work done directly, plus any share both sides pay alike, such as a host's allocations).
  std::vector<std::string> floor;
  std::string floor_name = "raw";
};

int RunWithRatios(int argc, char** argv, const std::string& title,
                  const std::vector<Comparison>& table);

}  // namespace kscope::bench

#endif  // KSCOPE_BENCH_RATIO_REPORT_H_
