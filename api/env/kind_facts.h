// KindFacts — what ktorch's `help` says of a module or loss kind besides its options: the PyTorch
// class (or function) the kind stands for, whether it has a plain forward (ktorch's flag: false
// for containers whose forward is templated or absent), the kind of result its forward gives
// (tensor, tuple, nested, vector), how many inputs forward requires and the types of those it
// takes, and ktorch's sample option values where they differ from the kind's defaults (required
// options have none in kscope; ktorch shows a sample: linear's in 784, out 10).
//
// Facts recorded from ktorch 1.13's help (tests/differential/ktorch.tsv compares every kind's
// help with kscope's). Read-only static data: thread-safe.
#ifndef KSCOPE_API_ENV_KIND_FACTS_H_
#define KSCOPE_API_ENV_KIND_FACTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "api/nn/options.h"

namespace kscope {

struct KindFacts {
  std::string kind;
  std::string pytorch;            // "torch.nn.Linear", "knn.Residual" (ktorch's own), ...
  bool forward;                   // ktorch's "has a non-templatized forward"
  std::string result;             // tensor tuple nested vector
  std::int64_t required;          // inputs forward requires (ktorch's n)
  std::vector<std::string> args;  // the types of the inputs it takes (tensor, tuple, ...)
  nn::NamedValues example;        // sample values that replace the kind's defaults in help
};

// The facts of the module or loss kind `kind` (a few names are both, with the same facts); null
// for any other name.
const KindFacts* FindKindFacts(const std::string& kind);

// Every kind with facts, by name.
const std::vector<KindFacts>& AllKindFacts();

}  // namespace kscope

#endif  // KSCOPE_API_ENV_KIND_FACTS_H_
