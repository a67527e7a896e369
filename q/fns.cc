// fns — the plugin's only exported symbol. q loads it with (`ktorch 2:`fns,1) and calls it
// with `::`; it returns the dictionary of every function name -> q function (made with dl),
// and makes q the runner of callback modules' functions.
#include "q/callback.h"
#include "q/exports.h"
#include "q/guard.h"

namespace {

using kabi::K;

void Append(K* names, K* functions, const std::vector<kscope::q::Export>& exports) {
  for (const auto& e : exports) {
    kabi::js(names, kabi::ss(const_cast<char*>(e.name)));
    kabi::jk(functions, kabi::dl(e.function, e.rank));
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) K fns(K) {
  return kscope::q::Guard([] {
    kscope::q::InstallCallbackFallback();
    K names = kabi::ktn(kabi::kSymbol, 0);
    K functions = kabi::ktn(kabi::kMixed, 0);
    for (const auto& group : {kscope::q::PointerExports(), kscope::q::TensorExports(),
                              kscope::q::MathExports(), kscope::q::MathCatalogueExports(), kscope::q::ShapeExports(),
                              kscope::q::AutogradExports(), kscope::q::MoveExports(), kscope::q::StorageEditExports(),
                              kscope::q::ScopeExports(), kscope::q::SettingExports(),
                              kscope::q::InfoExports(), kscope::q::EnvironmentExports(), kscope::q::HelpExports(),
                              kscope::q::ModuleExports(), kscope::q::LossExports(),
                              kscope::q::FunctionalExports(),
                              kscope::q::ModuleParameterExports(), kscope::q::StateExports(),
                              kscope::q::OptimizerExports(), kscope::q::ClipExports(), kscope::q::BatchnormExports(),
                              kscope::q::BatchExports(), kscope::q::ModelExports(), kscope::q::InitExports(), kscope::q::RandomExports(),
                              kscope::q::ComplexSparseExports(), kscope::q::ImageExports(), kscope::q::DistributedExports()}) {
      Append(&names, &functions, group);
    }
    return kabi::xD(names, functions);
  });
}
