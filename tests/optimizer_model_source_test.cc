// api/nn/optimizer.h with a model as the parameter source (ktorch's opt(`sgd;m),
// opt(`adam;0;(m;`2)), opt(o;1;m)): the model's module's parameters, whole or by child, shared and
// kept alive as a module's are; the errors for other classes.
#include <ATen/ATen.h>

#include "api/model/model.h"
#include "api/model/model_run.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace optimizer_model_source_test {

using testing::ErrorOf;
using testing::LeakCheckTest;
using testing::Sequential;

using OptimizerModelSourceTest = LeakCheckTest;

// group, name, ptr of each parameter of o.
struct Row {
  std::int64_t group;
  std::string name;
  std::int64_t pointer;
  bool operator==(const Row& r) const {
    return group == r.group && name == r.name && pointer == r.pointer;
  }
};
std::vector<Row> Rows(Handle o) {
  std::vector<Row> rows;
  for (const OptimizerParameter& p : describe_opt(o).parameters)
    rows.push_back(Row{p.group, p.name, p.pointer});
  return rows;
}
Row RowOf(std::int64_t group, Handle q, const std::string& name) {
  return Row{group, name, ptr(parm(q, name)).single()};
}

TEST_F(OptimizerModelSourceTest, AModelGivesItsModulesParameters) {
  auto scope = Scope::Open();
  Handle q = Sequential(4, 5, 2);
  Handle module_handle = addref(q);
  Handle m = model({q, loss("mse"), opt("sgd")});
  const std::int64_t refs = ref(module_handle).single();
  // q)o:opt(`adam;m): every parameter of the model's module, shared
  Handle o = opt("adam", m);
  EXPECT_EQ(Rows(o), (std::vector<Row>{
                         RowOf(0, module_handle, "0.weight"), RowOf(0, module_handle, "0.bias"),
                         RowOf(0, module_handle, "2.weight"), RowOf(0, module_handle, "2.bias")}));
  EXPECT_EQ(describe_opt(o).parameters.front().module, "linear");
  EXPECT_EQ(ref(module_handle).single(), refs + 1);  // the optimizer holds the module
  // q)o2:opt(`sgd;1;(m;`2)); opt(o2;0;(m;0)): children by name or index, groups as for a module
  Handle o2 = opt_group("sgd", 1, {m, {"2"}, {}});
  opt_edit(o2, 0, {m, {}, {0}});
  EXPECT_EQ(Rows(o2), (std::vector<Row>{
                          RowOf(0, module_handle, "0.weight"), RowOf(0, module_handle, "0.bias"),
                          RowOf(1, module_handle, "2.weight"), RowOf(1, module_handle, "2.bias")}));
  EXPECT_EQ(ErrorOf([&] {
              opt_edit(o2, 1, {m, {"x"}, {}});
            }),
            "opt: no parameter or child module `x in sequential module");
  EXPECT_EQ(ErrorOf([&] { opt_edit(o2, 1, {m}); }),
            "opt: parameter `0.weight is already optimized");
  EXPECT_EQ(describe_opt(o2).parameters.size(), 4u);  // the failed edits added nothing
  // A step of the new optimizer moves the model's parameters.
  const at::Tensor before = tensor(parm(module_handle, "2.bias")).clone();
  model_backward(m, at::randn({3, 4}), at::randn({3, 2}));
  step(o);
  EXPECT_FALSE(at::equal(tensor(parm(module_handle, "2.bias")), before));
  kscope::free(o);
  EXPECT_EQ(ref(module_handle).single(), refs + 1);  // o2 still holds it
}

TEST_F(OptimizerModelSourceTest, OtherClassesAreRefused) {
  auto scope = Scope::Open();
  Handle l = loss("mse");
  const std::size_t live = live_handles();
  EXPECT_EQ(ErrorOf([&] { opt("sgd", l); }), "opt: expected module or model, given loss");
  EXPECT_EQ(ErrorOf([&] { opt_group("sgd", 0, {l}); }),
            "opt: expected module, model, tensor, vector or dictionary, given loss");
  EXPECT_EQ(live_handles(), live);  // no optimizer made
}

}  // namespace optimizer_model_source_test
}  // namespace kscope
