#include "api/nn/torchscript.h"

#include <c10/util/Exception.h>

#include "api/core/file_access.h"
#include "api/model/model_object.h"
#include "api/nn/kinds/torchscript.h"
#include "api/nn/module.h"
#include "runtime/errors.h"

namespace kscope {

Handle torchscript(const std::string& path) {
  return module(ModuleDefinition{"torchscript", "", {path}, {}, {}});
}

void save_torchscript(Handle q, const std::string& path) {
  constexpr char kFn[] = "savescript";
  const auto m = nn::ModuleOrModelsModule(kFn, q);
  torch::jit::Module* script = nn::ScriptModuleOf(m->module());
  if (script == nullptr)
    Fail("%s: expected a torchscript module, given %s", kFn, m->spec().kind->name);
  WriteFileAtomically(kFn, path, [&](const std::string& temporary) {
    try {
      script->save(temporary);
    } catch (const c10::Error& e) {
      Fail("%s: cannot write %s: %s", kFn, path, e.what_without_backtrace());
    }
  });
}

}  // namespace kscope
