#include "api/distributed/distribute.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "api/distributed/gradient_reducer.h"
#include "api/distributed/group_object.h"
#include "api/distributed/model_sync.h"
#include "api/model/model_object.h"
#include "runtime/errors.h"

namespace kscope {

void distribute(Handle m, Handle g, const DistributeOptions& options) {
  nn::Model& model = nn::ModelOf("distribute", m)->model();
  if (options.first_bucket_bytes <= 0 || options.bucket_bytes <= 0) {
    Fail(
        "distribute: bucket sizes must be positive, given %d bytes for the first and %d for "
        "the others",
        options.first_bucket_bytes, options.bucket_bytes);
  }
  std::shared_ptr<distributed::GroupObject> group = distributed::GroupOf("distribute", g);
  const nn::NamedValues tasks = {{"task", std::int64_t{group->rank()}},
                                 {"tasks", std::int64_t{group->world()}}};
  nn::ModelOptions train = model.train, test = model.test;
  train.Set(tasks);  // validated before anything is sent or changed
  test.Set(tasks);
  distributed::BroadcastModel("distribute", *group, model);
  model.train = std::move(train);
  model.test = std::move(test);
  model.group =
      std::static_pointer_cast<distributed::GroupObject>(group->share());  // `ref g` counts it
  model.distribution = options;
  model.reducer.reset();
  const std::vector<at::Tensor> parameters = model.optimizer->parameters();
  if (options.overlap && distributed::GradientReducer::Applies(parameters)) {
    model.reducer = std::make_shared<distributed::GradientReducer>(
        model.group, parameters, options.first_bucket_bytes, options.bucket_bytes);
  }
}

void undistribute(Handle m) {
  nn::Model& model = nn::ModelOf("undistribute", m)->model();
  model.reducer.reset();
  model.group.reset();
}

bool is_distributed(Handle m) { return nn::ModelOf("is_distributed", m)->model().group != nullptr; }

std::optional<Distribution> distribution(Handle m, const char* fn) {
  const nn::Model& model = nn::ModelOf(fn, m)->model();
  if (model.group == nullptr) return std::nullopt;
  return Distribution{model.group->options(), model.distribution,
                      model.reducer == nullptr ? 0 : model.reducer->bucket_count()};
}

}  // namespace kscope
