// ktorch_diff — runs a differential case file through one q plugin via the k host and prints
// each case and what it returned, one tab-separated line per case:
//
//   ktorch_diff PLUGIN.so CASES [OUTCOMES]
//
// to standard output, or to the file OUTCOMES (the k host's own reports, such as a plugin's
// misuse of the C API, go to standard output too, so record into a file).
// With the real ktorch's ktorch.so this records the outcomes tests/differential_test.cc compares
// kscope against (tests/differential/README.md says how); with kscope's q/ktorch.so it shows
// kscope's side of the same cases. Exit status: 0 when every case ran (whatever it returned),
// 1 for a bad case file, a plugin that does not load or outcomes that cannot be written.
#include <fstream>
#include <iostream>
#include <sstream>

#include "tests/differential/case_file.h"
#include "tests/differential/case_runner.h"
#include "tests/khost/library.h"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: ktorch_diff PLUGIN.so CASES [OUTCOMES]\n";
    return 1;
  }
  std::ifstream in(argv[2]);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "ktorch_diff: cannot read " << argv[2] << "\n";
    return 1;
  }
  const auto cases = kscope::differential::ParseCases(text.str());
  if (!cases.ok()) {
    std::cerr << "ktorch_diff: " << cases.status().message() << "\n";
    return 1;
  }
  const khost::Library plugin(argv[1]);
  if (!plugin.ok()) {
    std::cerr << "ktorch_diff: " << plugin.error() << "\n";
    return 1;
  }
  const std::vector<std::string> outcomes = kscope::differential::RunCases(plugin, *cases);
  std::ofstream file;
  if (argc == 4) file.open(argv[3]);
  std::ostream& out = argc == 4 ? file : std::cout;
  for (std::size_t i = 0; i < cases->size(); ++i)
    out << (*cases)[i].text << '\t' << outcomes[i] << '\n';
  return out ? 0 : 1;
}
