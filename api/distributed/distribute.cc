#include "api/distributed/distribute.h"

#include <cstdint>
#include <utility>

#include "api/distributed/group_object.h"
#include "api/distributed/model_sync.h"
#include "api/model/model_object.h"

namespace kscope {

void distribute(Handle m, Handle g) {
  nn::Model& model = nn::ModelOf("distribute", m)->model();
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
}

void undistribute(Handle m) { nn::ModelOf("undistribute", m)->model().group.reset(); }

bool is_distributed(Handle m) { return nn::ModelOf("is_distributed", m)->model().group != nullptr; }

}  // namespace kscope
