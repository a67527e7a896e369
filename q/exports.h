// The functions the plugin exports to q, grouped by the file that adapts them. Each adapter is
// a thin `K f(K)` (rank 2 for `use`) that decodes its arguments (q/convert/args.h,
// q/convert/convert.h), calls api/, and encodes the result, all inside Guard (q/guard.h). fns
// (q/fns.cc) returns them all as ktorch's dictionary name -> function.
#ifndef KSCOPE_Q_EXPORTS_H_
#define KSCOPE_Q_EXPORTS_H_

#include <vector>

#include "q/convert/k_abi.h"

namespace kscope::q {

struct Export {
  const char* name;
  void* function;  // K f(K) for rank 1, K f(K, K) for rank 2
  int rank;
};

// A rank-1 export.
inline Export Unary(const char* name, kabi::K (*f)(kabi::K)) {
  return Export{name, reinterpret_cast<void*>(f), 1};
}

std::vector<Export> PointerExports();  // obj free return use mapped ptr class device dtype ...
std::vector<Export> TensorExports();   // tensor vector dict
std::vector<Export> MathExports();     // add sub mul Div ... softmax logsoftmax
std::vector<Export>
MathCatalogueExports();  // group D: Abs add ... (api/math/math_catalogue.h's table)
std::vector<Export>
ShapeExports();  // View reshape expand transpose permute squeeze unsqueeze cat stack narrow index
std::vector<Export> AutogradExports();     // grad backward zerograd nograd detach gradflag
std::vector<Export> MoveExports();         // to copyto
std::vector<Export> StorageEditExports();  // amend reset resize filldiagonal
std::vector<Export> ScopeExports();        // scope endscope withscope
std::vector<Export> SettingExports();      // setting
std::vector<Export>
InfoExports();  // info detail stride dim numel ... options objtype same alias result
std::vector<Export> TreeExports();         // dv tree callbacks resolve (k data only)
std::vector<Export> EnvironmentExports();  // seed cudadevices cudadevice sync config version
std::vector<Export> HelpExports();         // help
std::vector<Export> ModuleExports();       // module seq forward parm...
std::vector<Export>
ModuleParameterExports();            // buffer buffers names modules freeze copyparms avgparms ...
std::vector<Export> StateExports();  // state clone
std::vector<Export> LossExports();   // loss ce mse ...
std::vector<Export>
FunctionalExports();  // relu maxpool2d linear pdist ... (layers' functional forms)
std::vector<Export> OptimizerExports();  // opt step lr
std::vector<Export> ClipExports();       // clip clipv
std::vector<Export> BatchnormExports();  // batchnorm
std::vector<Export> ModelExports();      // model train test
std::vector<Export> BatchExports();      // batch restore shuffle (tensors, vectors, dictionaries)
std::vector<Export>
ComplexSparseExports();  // real imag isreal sparse sparseindex dense indices values coalesce
std::vector<Export> ImageExports();  // png makegrid
std::vector<Export>
InitExports();  // zeros ones fill eye dirac orthogonal knormal ... gain (in place)
std::vector<Export>
DistributedExports();  // group allreduce broadcast allgather barrier distribute (api/distributed/)
std::vector<Export>
MemoryExports();  // devicememory resetpeaks emptycache memorylimit footprint (api/env/memory.h)
std::vector<Export>
PyTorchExports();  // savestatedict loadstatedict savescript (api/nn/state_dict.h, torchscript.h)
std::vector<Export>
RandomExports();  // bernoulli multinomial normal uniform random cauchy ... (fills in place)

}  // namespace kscope::q

#endif  // KSCOPE_Q_EXPORTS_H_
