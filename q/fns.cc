// fns — the plugin's only exported symbol. q loads it with (`ktorch 2:`fns,1) and calls it
// with `::`; it returns the dictionary of every function name -> q function (made with dl):
// ktorch's names in ktorch's order (q/ktorch_names.h), then kscope's own. It also makes q the
// runner of callback modules' functions, asks libtorch for C++ backtraces only while the
// `stackframe setting is on (q/env/settings.h), and has the C heap keep the memory training
// frees (kscope::keep_freed_memory, api/env/freed_memory.h; KSCOPE_KEEP_FREED_MEMORY=0 in q's
// environment turns it off).
#include <cstddef>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "api/env/freed_memory.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "q/ktorch_names.h"
#include "q/nn/q_callback.h"

namespace {

using kabi::K;
using kscope::q::Export;

// Every export, in the order of ktorch's names, then the rest in the order given.
std::vector<Export> InKtorchOrder(const std::vector<Export>& exports) {
  absl::flat_hash_map<absl::string_view, std::size_t> position;
  for (std::size_t i = 0; i < exports.size(); ++i) position.emplace(exports[i].name, i);
  std::vector<Export> ordered;
  std::vector<bool> placed(exports.size(), false);
  for (const char* name : kscope::q::KtorchNames()) {
    auto it = position.find(name);
    if (it == position.end()) continue;  // DifferentialTest's fns[] line names any gap
    ordered.push_back(exports[it->second]);
    placed[it->second] = true;
  }
  for (std::size_t i = 0; i < exports.size(); ++i) {
    if (!placed[i]) ordered.push_back(exports[i]);
  }
  return ordered;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) K fns(K) {
  return kscope::q::Guard([] {
    kscope::q::InstallCallbackFallback();
    kscope::q::InstallBacktraceFetcher();
    kscope::keep_freed_memory();
    std::vector<Export> all;
    for (const auto& group :
         {kscope::q::PointerExports(),       kscope::q::TensorExports(),
          kscope::q::MathExports(),          kscope::q::MathCatalogueExports(),
          kscope::q::ShapeExports(),         kscope::q::AutogradExports(),
          kscope::q::MoveExports(),          kscope::q::StorageEditExports(),
          kscope::q::ScopeExports(),         kscope::q::SettingExports(),
          kscope::q::InfoExports(),          kscope::q::EnvironmentExports(),
          kscope::q::HelpExports(),          kscope::q::TreeExports(),
          kscope::q::ModuleExports(),        kscope::q::LossExports(),
          kscope::q::FunctionalExports(),    kscope::q::ModuleParameterExports(),
          kscope::q::StateExports(),         kscope::q::OptimizerExports(),
          kscope::q::ClipExports(),          kscope::q::BatchnormExports(),
          kscope::q::BatchExports(),         kscope::q::ModelExports(),
          kscope::q::InitExports(),          kscope::q::RandomExports(),
          kscope::q::ComplexSparseExports(), kscope::q::ImageExports(),
          kscope::q::DistributedExports(),   kscope::q::MemoryExports(),
          kscope::q::PyTorchExports()}) {
      all.insert(all.end(), group.begin(), group.end());
    }
    K names = kabi::ktn(kabi::kSymbol, 0);
    K functions = kabi::ktn(kabi::kMixed, 0);
    for (const Export& e : InKtorchOrder(all)) {
      kabi::js(&names, kabi::ss(const_cast<char*>(e.name)));
      kabi::jk(&functions, kabi::dl(e.function, e.rank));
    }
    return kabi::xD(names, functions);
  });
}
