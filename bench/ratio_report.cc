// ratio_report.cc — the recording console reporter and the ratios table.
#include "bench/ratio_report.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include <benchmark/benchmark.h>

#include "absl/strings/str_format.h"

namespace kscope::bench {
namespace {

// The console reporter, also recording each benchmark's real time per iteration: the median
// over its repetitions (Google Benchmark's own median aggregate when it reports one).
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
        samples_[NameOf(run)].push_back(seconds);
      } else if (run.aggregate_name == "median") {
        // The only record left under --benchmark_report_aggregates_only.
        medians_[NameOf(run)] = seconds;
      }
    }
  }

  // Median seconds per iteration of `name` (e.g. "BM_KscopeScope/16"); nullopt if it did not
  // run.
  std::optional<double> Seconds(const std::string& name) const {
    if (auto it = medians_.find(name); it != medians_.end()) return it->second;
    auto it = samples_.find(name);
    if (it == samples_.end()) return std::nullopt;
    std::vector<double> sorted = it->second;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

 private:
  static std::string NameOf(const Run& run) {
    const benchmark::BenchmarkName& name = run.run_name;
    return name.args.empty() ? name.function_name : name.function_name + "/" + name.args;
  }

  std::map<std::string, std::vector<double>> samples_;
  std::map<std::string, double> medians_;
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
  absl::PrintF("%-32s %s %s, %s %s, ", c.label + ":", c.subject_name, FormatTime(subject_time),
               c.baseline_name, FormatTime(baseline_time));
  if (c.floor.empty()) {
    absl::PrintF("ratio %.2f", subject_time / baseline_time);
  } else {
    double floor_time = 0;
    for (const std::string& part : c.floor) {
      const std::optional<double> seconds = reporter.Seconds(part);
      if (!seconds) {
        absl::PrintF("(%s did not run)\n", part);
        return;
      }
      floor_time += *seconds / c.per;
    }
    absl::PrintF("%s %s, overhead ratio %.2f", c.floor_name, FormatTime(floor_time),
                 (subject_time - floor_time) / (baseline_time - floor_time));
  }
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
