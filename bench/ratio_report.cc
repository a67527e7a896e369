// ratio_report.cc — the recording console reporter and the ratios table.
#include "bench/ratio_report.h"

#include <unistd.h>

#include <map>
#include <optional>

#include <benchmark/benchmark.h>

#include "absl/strings/str_format.h"

namespace kscope::bench {
namespace {

// The console reporter, also recording each benchmark's real time per iteration: the mean over
// its repetitions (Google Benchmark's own mean aggregate when it reports one).
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.iterations == 0) continue;
      const double seconds =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      if (run.run_type == Run::RT_Iteration) {
        Timing& timing = timings_[NameOf(run)];
        timing.total_seconds += seconds;
        ++timing.runs;
      } else if (run.aggregate_name == "mean") {
        // The same mean; the only record left under --benchmark_report_aggregates_only.
        timings_[NameOf(run)] = Timing{seconds, 1};
      }
    }
  }

  // Mean seconds per iteration of `name` (e.g. "BM_KscopeScope/16"); nullopt if it did not run.
  std::optional<double> Seconds(const std::string& name) const {
    auto it = timings_.find(name);
    if (it == timings_.end()) return std::nullopt;
    return it->second.total_seconds / it->second.runs;
  }

 private:
  struct Timing {
    double total_seconds = 0;
    int runs = 0;
  };

  static std::string NameOf(const Run& run) {
    const benchmark::BenchmarkName& name = run.run_name;
    return name.args.empty() ? name.function_name : name.function_name + "/" + name.args;
  }

  std::map<std::string, Timing> timings_;
};

std::string FormatTime(double seconds) {
  const double ns = seconds * 1e9;
  return ns >= 1000 ? absl::StrFormat("%.2f us", ns / 1000) : absl::StrFormat("%.1f ns", ns);
}

void PrintComparison(const RecordingReporter& reporter, const Comparison& c) {
  const std::optional<double> subject = reporter.Seconds(c.subject);
  if (!subject) return;  // filtered out
  const double subject_time = *subject / c.per;
  if (c.baseline.empty()) {
    absl::PrintF("%-32s %s %s (no %s equivalent)\n", c.label + ":", c.subject_name,
                 FormatTime(subject_time), c.baseline_name);
    return;
  }
  const std::optional<double> baseline = reporter.Seconds(c.baseline);
  if (!baseline) return;
  const double baseline_time = *baseline / c.per;
  absl::PrintF("%-32s %s %s, %s %s, ratio %.2f", c.label + ":", c.subject_name,
               FormatTime(subject_time), c.baseline_name, FormatTime(baseline_time),
               subject_time / baseline_time);
  if (c.target > 0) absl::PrintF(" (target <= %.2f)", c.target);
  absl::PrintF("\n");
}

}  // namespace

int RunWithRatios(int argc, char** argv, const std::string& title,
                  const std::vector<Comparison>& table) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  RecordingReporter reporter(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                   : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  absl::PrintF("\n%s\n", title);
  for (const Comparison& c : table) PrintComparison(reporter, c);
  return 0;
}

}  // namespace kscope::bench
