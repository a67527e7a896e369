// The differential cases (tests/differential/cases.txt) through kscope's plugin, against what
// the real ktorch of the plugin's libtorch line returned for the same lines (recorded with
// ktorch_diff; tests/differential/README.md): ktorch 1.13's (ktorch.tsv) for libtorch 1.x, ktorch
// 2.3's (ktorch23.tsv) for 2.x. Every case agrees, or its line is listed with a reason in that
// line's deviations (deviations.tsv, deviations23.tsv), and every listed line still differs (a
// fixed one leaves the list). Cases marked % are compared only where there is no CUDA device. Every
// exported name has cases. The cases free what they make, so the fixture's leak checks hold.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/build_paths.h"
#include "tests/differential/case_file.h"
#include "tests/differential/case_runner.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace {

using DifferentialTest = PluginTest;

std::string ReadFile(const std::string& name) {
  const std::string path = std::string(kDifferentialDir) + "/" + name;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(in.good() || in.eof()) << "cannot read " << path;
  return text.str();
}

// The tab-separated pairs of a .tsv file: case text, then the outcome or the reason; lines
// starting with # and blank lines are skipped.
std::vector<std::pair<std::string, std::string>> ReadPairs(const std::string& name) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (absl::string_view line : absl::StrSplit(ReadFile(name), '\n')) {
    if (line.empty() || line.front() == '#') continue;
    std::pair<std::string, std::string> pair = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

// The recorded outcomes and the deviations of a libtorch line.
struct Oracle {
  std::string outcomes, deviations;
};

TEST_F(DifferentialTest, EveryCaseAgreesWithKtorchOrIsAListedDeviation) {
  const auto cases = differential::ParseCases(ReadFile("cases.txt"));
  ASSERT_TRUE(cases.ok()) << cases.status();
  const Oracle oracle = Call("version")->f >= 2 ? Oracle{"ktorch23.tsv", "deviations23.tsv"}
                                                : Oracle{"ktorch.tsv", "deviations.tsv"};
  const auto ktorch = ReadPairs(oracle.outcomes);
  ASSERT_EQ(ktorch.size(), cases->size())
      << oracle.outcomes << " is not a recording of cases.txt: record it again";
  absl::flat_hash_map<std::string, std::string> deviations;
  for (auto& [text, reason] : ReadPairs(oracle.deviations)) deviations[text] = reason;

  const bool cuda = Call("cudadevices")->j > 0;
  const std::vector<std::string> kscope = differential::RunCases(Plugin(), *cases);
  absl::flat_hash_set<std::string> deviating;  // listed lines seen differing (at least once)
  int agreed = 0;
  for (std::size_t i = 0; i < cases->size(); ++i) {
    const differential::Case& c = (*cases)[i];
    ASSERT_EQ(ktorch[i].first, c.text)
        << oracle.outcomes << " is not a recording of cases.txt: record it again";
    if (c.without_cuda_only && cuda) {  // ktorch's outcome here was recorded without CUDA
      deviating.insert(c.text);         // not compared, so not checked as fixed either
      continue;
    }
    if (kscope[i] == ktorch[i].second) {
      ++agreed;
    } else if (deviations.contains(c.text)) {
      deviating.insert(c.text);
    } else {
      ADD_FAILURE() << "cases.txt:" << c.line << ": " << c.text << " (" << oracle.outcomes << ")"
                    << "\n  ktorch: " << ktorch[i].second << "\n  kscope: " << kscope[i];
    }
  }
  for (const auto& [text, reason] : deviations) {
    EXPECT_TRUE(deviating.contains(text))
        << oracle.deviations << " lists a line that no longer differs from ktorch, or that "
        << "cases.txt does not have: remove it: " << text;
  }
  RecordProperty("agreed", agreed);
  RecordProperty("deviations", static_cast<int>(deviating.size()));
}

// Every name fns exports (ktorch's, then kscope's own) is called by at least one case; the
// count of cases per name is printed, in fns order.
TEST_F(DifferentialTest, EveryExportedNameHasCases) {
  const auto cases = differential::ParseCases(ReadFile("cases.txt"));
  ASSERT_TRUE(cases.ok()) << cases.status();
  absl::flat_hash_map<std::string, int> count;
  for (const differential::Case& c : *cases) ++count[c.function];
  kabi::K names = kabi::DictKeys(Plugin().Dictionary());
  std::string table;
  std::vector<std::string> missing;
  for (long long i = 0; i < names->n; ++i) {
    const std::string name = kabi::Symbols(names)[i];
    absl::StrAppend(&table, absl::StrFormat("%-13s%4d", name, count[name]),
                    i % 6 == 5 ? "\n" : "   ");
    if (count[name] == 0) missing.push_back(name);
  }
  std::cout << "differential cases per exported name (" << names->n << " names, " << cases->size()
            << " cases):\n"
            << table << "\n";
  EXPECT_TRUE(missing.empty()) << "names without a case in cases.txt: "
                               << absl::StrJoin(missing, " ");
}

}  // namespace
}  // namespace kscope::testing
