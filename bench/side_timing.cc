// side_timing.cc — the samples, their summaries and the paired ratios.
#include "bench/side_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/str_format.h"

namespace kscope::bench {
namespace {

// Wall-clock milliseconds of `calls` calls of `f`.
double Milliseconds(const std::function<double()>& f, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The median, fastest and slowest of `samples` (each of `per` calls), per call.
Summary Summarize(std::vector<double> samples, int per) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  const double median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return {median / per, samples.front() / per, samples.back() / per};
}

}  // namespace

CaseTiming Time(const std::string& name, const std::vector<Side>& sides, int repetitions, int per) {
  std::vector<double> losses;
  for (const Side& side : sides) losses.push_back(side.call());
  const double reference = losses[1];
  bool same = true;
  std::string check;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    same = same && std::abs(losses[i] - reference) <= 1e-5 * std::max(1.0, std::abs(reference));
    absl::StrAppendFormat(&check, "%s%s %.6f", i == 0 ? "" : ", ", sides[i].name, losses[i]);
  }
  absl::PrintF("check %-8s first loss: %s%s\n", name, check,
               same ? "" : "  WARNING: the sides differ");
  for (const Side& side : sides) Milliseconds(side.call, per);
  const std::size_t n = sides.size();
  std::vector<std::vector<double>> ms(n);
  std::vector<double> ratios, plugin_ratios;
  for (int i = 0; i < repetitions; ++i) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t s = (i + k) % n;
      ms[s].push_back(Milliseconds(sides[s].call, per));
    }
    ratios.push_back(ms[0].back() / ms[1].back());
    if (n > 2) plugin_ratios.push_back(ms[2].back() / ms[0].back());
  }
  CaseTiming timing{{}, Summarize(ratios, 1).median, std::nullopt};
  for (std::size_t s = 0; s < n; ++s)
    timing.sides.emplace_back(sides[s].name, Summarize(ms[s], per));
  if (n > 2) timing.plugin_ratio = Summarize(plugin_ratios, 1).median;
  return timing;
}

}  // namespace kscope::bench
