// Models through the plugin: the model sessions of seed 002 (define, consume, addref, replace,
// describe, recreate from the description and from the state, retrieve the parts) and the
// train/test option sessions of seed 004.
#include "tests/plugin_fixture.h"
#include "tests/temp_directory.h"

namespace kscope::testing {
namespace plugin_model_test {

using PluginModelTest = PluginTest;

std::string Keys(const KRef& d) { return S1(KRef(kabi::r1(kabi::DictKeys(d.get())))); }

TEST_F(PluginModelTest, ModelConsumesItsPartsSeed002) {
  KRef q = Call("module", "((0;`sequential);(1;(`linear;64;10));(1;`relu))");
  KRef l = Call("loss", "`ce");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share()}));
  EXPECT_EQ(S1(Each("mapped", {&q, &l, &o})), "111b");
  KRef m = Call("model", List({q.share(), l.share(), o.share()}));
  EXPECT_EQ(S1(Call("class", m)), "`model");
  EXPECT_EQ(Error("class", q), "stale pointer");
  EXPECT_EQ(S1(Each("mapped", {&q, &l, &o})), "000b");
  // q)q:module m  l:loss m  o:opt m  mapped each(q;l;o) -> 111b
  KRef q2 = Call("module", m), l2 = Call("loss", m), o2 = Call("opt", m);
  EXPECT_EQ(S1(Each("class", {&q2, &l2, &o2})), "`module`loss`optimizer");
  EXPECT_EQ(S1(Call("ref", q2)), "3");  // q2, the model and the optimizer
  Call("free", List({m.share(), q2.share(), l2.share(), o2.share()}));
}

TEST_F(PluginModelTest, AddrefKeepsAPartSeed002) {
  // q)m:model(addref q;l;o)  class q -> `module
  KRef q = Call("module", "((0;`sequential);(1;(`linear;64;10));(1;`relu))");
  KRef l = Call("loss", "`ce");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share()}));
  KRef m = Call("model", List({Call("addref", q).share(), l.share(), o.share()}));
  EXPECT_EQ(S1(Call("class", q)), "`module");
  Call("free", List({m.share(), q.share()}));
}

TEST_F(PluginModelTest, MissingPartsLeaveTheArgumentsAlive) {
  KRef q = Call("module", "enlist(`linear;2;1)");
  KRef l = Call("loss", "`mse");
  KRef t = Call("tensor", "1 2 3");
  EXPECT_EQ(Error("model", List({q.share(), l.share()})), "model: optimizer not specified");
  EXPECT_EQ(Error("model", List({l.share(), t.share()})), "model: arg[1] unrecognized: tensor");
  EXPECT_EQ(Error("model", List({l.share(), kq::Long(3)})),
            "model not implemented for general list");
  EXPECT_EQ(S1(Each("class", {&q, &l, &t})), "`module`loss`tensor");
  Call("free", List({q.share(), l.share(), t.share()}));
}

TEST_F(PluginModelTest, ReplacingTheLossSeed002) {
  // q)m:model(module`relu; loss`ce; opt`sgd)   model[m]`loss
  KRef m = Call("model", List({Call("module", "`relu").share(), Call("loss", "`ce").share(),
                               Call("opt", "`sgd").share()}));
  KRef d = Call("model", m);
  EXPECT_EQ(Keys(d), "`module`loss`optimizer`train`test");
  EXPECT_EQ(S1(At(d, "loss")),
            "`module`options!(`ce;`weight`ignore`smoothing`reduce!(::;-100;0f;`mean))");
  // q)model(m;loss`mse)  model[m]`loss -> module|`mse options|(,`reduce)!,`mean
  EXPECT_EQ(S1(Call("model", List({m.share(), Call("loss", "`mse").share()}))), "::");
  EXPECT_EQ(S1(At(Call("model", m), "loss")), "`module`options!(`mse;(,`reduce)!,`mean)");
  Call("free", m);
}

TEST_F(PluginModelTest, RecreatedFromTheDescriptionAndTheStateSeed002) {
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;64;10);`relu)"));
  KRef m = Call("model", List({q.share(), Call("loss", "`ce").share(),
                               Call("opt", List({kq::Sym("sgd"), q.share()})).share()}));
  // q)d:model m  q:module d`module  l:loss d`loss  o:opt(d`optimizer;q)  m2:model(q;l;o)
  KRef d = Call("model", m);
  KRef q2 = Call("module", At(d, "module"));
  KRef l2 = Call("loss", At(d, "loss"));
  KRef o2 = Call("opt", List({At(d, "optimizer").share(), q2.share()}));
  KRef m2 = Call("model", List({q2.share(), l2.share(), o2.share()}));
  KRef d2 = Call("model", m2);
  for (const char* key : {"module", "loss", "train", "test"})
    EXPECT_EQ(S1(At(d, key)), S1(At(d2, key))) << key;
  EXPECT_EQ(S1(At(At(d, "optimizer"), "options")), S1(At(At(d2, "optimizer"), "options")));
  // q)s:state m  key s   cols s`module -> `depth`module`name`options`parms`buffers
  KRef s = Call("state", m);
  EXPECT_EQ(Keys(s), "`module`loss`optimizer`train`test");
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::TableDict(At(s, "module").get()))))),
            "`depth`module`name`options`parms`buffers");
  // The model made back from its state has the very same parameters; from `model d`, new ones.
  KRef m3 = Call("model", s);
  KRef m4 = Call("model", d);
  auto weight = [&](const KRef& model) {
    KRef part = Call("module", model);
    KRef w = Call("parm", List({part.share(), kq::Sym("0.weight")}));
    std::string shown = S1(Call("tensor", w));
    Call("free", List({part.share(), w.share()}));
    return shown;
  };
  EXPECT_EQ(weight(m3), weight(m));
  EXPECT_NE(weight(m4), weight(m));
  EXPECT_EQ(S1(At(At(Call("state", m3), "optimizer"), "options")),
            S1(At(At(s, "optimizer"), "options")));
  Call("free", List({m.share(), m2.share(), m3.share(), m4.share()}));
}

TEST_F(PluginModelTest, TrainOptionsSeed004) {
  KRef m = Call("model", List({Call("module", "`sequential").share(), Call("loss", "`ce").share(),
                               Call("opt", "`sgd").share()}));
  KRef all = Call("train", m);
  EXPECT_EQ(Keys(all),
            "`batchsize`task`tasks`droplast`hidden`shuffle`shufflecuda`shuffleseed`sync`clipgroup`"
            "clipnorm`clipvalue`tensor`dictionary`metrics`amp`graph");
  // q)train(m;`clipnorm`batchsize`metrics) -> clipnorm|:: batchsize|32 metrics|,`loss
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Syms({"clipnorm", "batchsize", "metrics"})}))),
            "`clipnorm`batchsize`metrics!(::;32;,`loss)");
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Sym("shuffle")}))), "0b");
  // q)train(m;k!100,1b)  train(m;k) -> 100 1b
  Call("train", List({m.share(), Q("`batchsize`shuffle!(100;1b)").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Syms({"batchsize", "shuffle"})}))),
            "`batchsize`shuffle!(100;1b)");
  Call("train", List({m.share(), kq::Syms({"batchsize", "shuffle"}), Q("(256;0b)").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Syms({"batchsize", "shuffle"})}))),
            "`batchsize`shuffle!(256;0b)");
  // q)train(m;`metrics;`output`accuracy`loss)
  Call("train", List({m.share(), kq::Sym("metrics"), kq::Syms({"output", "accuracy", "loss"})}));
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Sym("metrics")}))), "`output`accuracy`loss");
  // q)train(m;`amp;`bf16) -> kscope's mixed precision; `none by default, bf16 or fp16 only
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Sym("amp")}))), "`none");
  Call("train", List({m.share(), kq::Sym("amp"), kq::Sym("bf16")}));
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Sym("amp")}))), "`bf16");
  EXPECT_EQ(Error("train", List({m.share(), kq::Sym("amp"), kq::Sym("fp8")})),
            "train: amp expects none, bf16 or fp16, given `fp8");
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Sym("amp")}))), "`bf16");
  Call("train", List({m.share(), kq::Sym("amp"), kq::Sym("none")}));
  // q)train(m;`graph;1b) -> kscope's CUDA graph capture: refused off a CUDA device, unchanged
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Sym("graph")}))), "0b");
  const std::string graph_error =
      Error("train", List({m.share(), kq::Sym("graph"), kq::Bool(true)}));
  EXPECT_EQ(graph_error.rfind("train: graph captures training steps on a CUDA device", 0), 0)
      << graph_error;
  EXPECT_NE(graph_error.find("the model is on no device (no parameters)"), std::string::npos);
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Sym("graph")}))), "0b");
  // q)train(m; `clipgroup`clipnorm; (0b;2)) -> clipnorm 2 2f; (1b;2); (0b;()) -> ::
  const KRef clip(kq::Syms({"clipgroup", "clipnorm"}));
  Call("train", List({m.share(), clip.share(), Q("(0b;2)").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), clip.share()}))), "`clipgroup`clipnorm!(0b;2 2f)");
  Call("train", List({m.share(), clip.share(), Q("(1b;2)").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), clip.share()}))), "`clipgroup`clipnorm!(1b;2 2f)");
  Call("train", List({m.share(), clip.share(), Q("(0b;())").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), clip.share()}))), "`clipgroup`clipnorm!(0b;::)");
  // Non-default options only, and the batch size and metrics of seed 004's MNIST example.
  Call("train",
       List({m.share(), kq::Syms({"batchsize", "metrics"}), Q("(1000;`batchloss)").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Bool(false)}))),
            "`batchsize`metrics!(1000;,`batchloss)");
  Call("free", m);
}

TEST_F(PluginModelTest, BadOptionsAreRolledBack) {
  KRef m = Call("model", List({Call("module", "`identity").share(), Call("loss", "`mse").share(),
                               Call("opt", "`sgd").share()}));
  // q)test(m;`batchsize;5)  test(m;`batchsize) -> 5
  Call("test", List({m.share(), kq::Sym("batchsize"), kq::Long(5)}));
  EXPECT_EQ(S1(Call("test", List({m.share(), kq::Sym("batchsize")}))), "5");
  EXPECT_EQ(Keys(Call("test", m)),
            "`batchsize`task`tasks`droplast`hidden`tensor`dictionary`metrics`amp");
  EXPECT_EQ(Error("test", List({m.share(), kq::Sym("shuffle"), kq::Bool(true)})),
            "unrecognized test setting: shuffle");
  EXPECT_EQ(
      Error("train", List({m.share(), kq::Syms({"batchsize", "shuffle"}), Q("(3;`x)").share()})),
      "train: option `shuffle expects boolean, given symbol");
  EXPECT_EQ(Error("train", List({m.share(), Q("`task`tasks!2 2").share()})),
            "train: task 2 must be less than tasks(2)");
  EXPECT_EQ(Error("train", List({m.share(), kq::Sym("metrics"), kq::Sym("foo")})),
            "train: unrecognized metric `foo");
  EXPECT_EQ(S1(Call("train", List({m.share(), kq::Syms({"batchsize", "task", "metrics"})}))),
            "`batchsize`task`metrics!(32;0;,`loss)");
  EXPECT_EQ(
      Error("train", List({m.share(), kq::Syms({"batchsize", "shuffle"}), Q("1 2 3").share()})),
      "train: 2 setting names given with long list");
  Call("free", m);
}

// kscope's checkpoints (api/model/checkpoint.h) from q:
// q)checkpoint(m;`:/dir/m.ckpt;3)   resume(m2;`:/dir/m.ckpt) -> 3
TEST_F(PluginModelTest, CheckpointAndResume) {
  const TempDirectory dir("plugin_model_test");
  const std::string file = dir.Join("m.ckpt");
  auto made = [&] {
    KRef q = Call("module", Call("seq", "(`sequential;(`linear;4;8);`relu;(`linear;8;3))"));
    return Call("model", List({q.share(), Call("loss", "`ce").share(),
                               Call("opt", List({kq::Sym("adam"), q.share()})).share()}));
  };
  KRef m = made(), m2 = made();
  auto values = [&](const KRef& model) { return S1(At(Call("state", model), "module")); };
  EXPECT_NE(values(m), values(m2));
  EXPECT_EQ(S1(Call("checkpoint", List({m.share(), kq::Sym(":" + file), kq::Long(3)}))), "::");
  EXPECT_EQ(S1(Call("resume", List({m2.share(), kq::Sym(file)}))), "3");
  EXPECT_EQ(values(m), values(m2));
  EXPECT_EQ(Error("resume", List({m2.share(), kq::Sym(dir.Join("none"))})),
            "resume: cannot read " + dir.Join("none") + ": No such file or directory");
  KRef l = Call("loss", "`ce");
  EXPECT_EQ(Error("resume", List({l.share(), kq::Sym(file)})),
            "resume: expected model, given loss");
  Call("free", List({m.share(), m2.share(), l.share()}));
}

// q)train(m;`amp;`fp16); s:state m -> kscope's `lossscale key after ktorch's; model s resumes it.
TEST_F(PluginModelTest, AnFp16ModelsStateHoldsItsLossScale) {
  auto made = [&] {
    KRef q = Call("module", Call("seq", "(`sequential;(`linear;4;3))"));
    return Call("model", List({q.share(), Call("loss", "`ce").share(),
                               Call("opt", List({kq::Sym("sgd"), q.share()})).share()}));
  };
  KRef plain = made(), scaled = made();
  EXPECT_EQ(Keys(Call("state", plain)), "`module`loss`optimizer`train`test");
  Call("train", List({scaled.share(), kq::Sym("amp"), kq::Sym("fp16")}));
  KRef s = Call("state", scaled);
  EXPECT_EQ(Keys(s), "`module`loss`optimizer`train`test`lossscale");
  EXPECT_EQ(S1(At(s, "lossscale")), "`scale`goodsteps!(65536f;0)");
  KRef resumed = Call("model", s);
  EXPECT_EQ(S1(At(Call("state", resumed), "lossscale")), "`scale`goodsteps!(65536f;0)");
  const KRef bad(
      kabi::xD(Q("`module`loss`optimizer`train`test`lossscale").share(),
               List({At(s, "module").share(), At(s, "loss").share(), At(s, "optimizer").share(),
                     At(s, "train").share(), At(s, "test").share(), kq::Long(2)})
                   .share()));
  EXPECT_EQ(Error("model", bad),
            "model: lossscale expects `scale`goodsteps!(float;long), given long scalar");
  Call("free", List({plain.share(), scaled.share(), resumed.share()}));
}

}  // namespace plugin_model_test
}  // namespace kscope::testing
