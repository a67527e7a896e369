// Process groups through the plugin (q/distributed/distributed_fns.cc), with a group of one rank in
// this process: group's argument forms and the dictionary of what a group was made from,
// allreduce/broadcast in place on pointers and data in -> data out, allgather, barrier, the
// default group, a model bound with distribute (its tasks, run and testrun with the group
// metrics, the group kept by the model, unbinding, its options), and bad arguments naming the
// function.
// Several ranks in several processes: tests/distributed_test.cc.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/free_port.h"
#include "tests/plugin_fixture.h"
#include "tests/scoped_variables.h"

namespace kscope::testing {
namespace plugin_distributed_test {

using PluginDistributedTest = PluginTest;

TEST_F(PluginDistributedTest, OneRankGroupRunsEveryCollective) {
  const std::string rendezvous = ":" + TcpRendezvous();
  KRef g =
      Call("group",
           List({kq::Long(0), kq::Long(1), kq::Sym(rendezvous), kq::Sym("gloo"), kq::Long(10)}));
  EXPECT_EQ(S1(Call("class", g)), "`group");
  EXPECT_EQ(S1(Call("str", g)),
            "\"gloo process group: rank 0 of 1 at " + rendezvous.substr(1) + "\"");

  KRef x = Call("tensor", "1 2 3f");
  EXPECT_EQ(S1(Call("allreduce", List({x.share(), kq::Sym("mean")}))), "::");
  EXPECT_EQ(S1(Call("allreduce", List({x.share(), kq::Sym("max"), g.share()}))), "::");
  EXPECT_EQ(S1(Call("broadcast", List({x.share(), kq::Long(0)}))), "::");
  EXPECT_EQ(S1(Call("tensor", x)), "1 2 3f");
  EXPECT_EQ(S1(Call("allreduce", "1 2 3f")), "1 2 3f");
  EXPECT_EQ(S1(Call("allreduce", "(`a`b!(1 2f;3 4);`sum)")), "`a`b!(1 2f;3 4)");
  EXPECT_EQ(S1(Call("broadcast",
                    List({List({Q("1 2f").share(), Q("3 4").share()}).share(), kq::Long(0)}))),
            "(1 2f;3 4)");

  KRef v = Call("allgather", x);
  EXPECT_EQ(S1(Call("class", v)), "`vector");
  EXPECT_EQ(S1(Call("vector", v)), ",1 2 3f");
  EXPECT_EQ(S1(Call("allgather", List({Q("5 6").share(), g.share()}))), ",5 6");
  EXPECT_EQ(S1(Call("barrier", g)), "::");
  EXPECT_EQ(S1(Call("barrier")), "::");
  Call("free", List({x.share(), v.share(), g.share()}));
}

TEST_F(PluginDistributedTest, BadArgumentsNameTheFunction) {
  EXPECT_EQ(Error("barrier", "::"), "barrier: no process group, make one with group");
  EXPECT_EQ(Error("group", "(0;1)"), "group: unrecognized arg(s) - long list");
  EXPECT_EQ(Error("group", "(1;1;`:tcp://127.0.0.1:1)"),
            "group: rank must be 0..world-1 for a world of at least 1, given rank 1 of 1");
  EXPECT_EQ(Error("group", "(0;1;`:tcp://127.0.0.1:1;`mpi)"),
            "group: unrecognized backend `mpi, expected `gloo or `nccl");
  KRef g =
      Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(TcpRendezvous()), kq::Float(2.5)}));
  KRef x = Call("tensor", "1 2");
  EXPECT_EQ(Error("allreduce", List({x.share(), kq::Sym("prod")})),
            "allreduce: unrecognized reduction `prod, expected `sum, `mean, `max or `min");
  EXPECT_EQ(Error("allreduce", List({x.share(), kq::Sym("mean")})),
            "allreduce: mean needs floating-point tensors, given long");
  EXPECT_EQ(Error("allreduce", List({x.share(), kq::Sym("sum"), x.share()})),
            "allreduce: expected group, given tensor");
  EXPECT_EQ(Error("broadcast", List({x.share(), kq::Long(1)})),
            "broadcast: root must be a rank 0..0, given 1");
  EXPECT_EQ(Error("allgather", g), "allgather: expected tensor, given group");
  EXPECT_EQ(S1(Call("tensor", x)), "1 2");
  Call("free", List({x.share(), g.share()}));
}

TEST_F(PluginDistributedTest, GroupDictionaryIsWhatTheGroupWasMadeFrom) {
  EXPECT_EQ(Error("barrier", "::"), "barrier: no process group, make one with group");
  const std::string first = TcpRendezvous(), second = TcpRendezvous();
  KRef g = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(":" + first), kq::Float(2.5)}));
  KRef h = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(second), kq::Sym("gloo")}));
  KRef d = Call("group", g);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(d.get())))),
            "`rank`world`rendezvous`backend`timeout`localrank");
  EXPECT_EQ(At(d, "rank")->t, -kabi::kLong);
  EXPECT_EQ(S1(At(d, "rank")), "0");
  EXPECT_EQ(At(d, "world")->t, -kabi::kLong);
  EXPECT_EQ(S1(At(d, "world")), "1");
  EXPECT_EQ(S1(At(d, "rendezvous")), "`" + first);  // without q's leading colon
  EXPECT_EQ(S1(At(d, "backend")), "`gloo");
  EXPECT_EQ(At(d, "timeout")->t, -kabi::kTimespan);
  EXPECT_EQ(At(d, "timeout")->j, 2500000000);
  EXPECT_EQ(S1(At(d, "timeout")), "0D00:00:02.500000000");
  EXPECT_EQ(S1(At(d, "localrank")), "0N");  // made by hand: no launcher gave one
  // The default timeout is 300 seconds.
  EXPECT_EQ(S1(Call("group", h)), "`rank`world`rendezvous`backend`timeout`localrank!(0;1;`" +
                                      second + ";`gloo;0D00:05:00.000000000;0N)");

  KRef t = Call("tensor", "1 2");
  EXPECT_EQ(Error("group", t), "group: expected group, given tensor");
  EXPECT_EQ(Error("group", List({g.share(), h.share()})),
            "group: unrecognized arg(s) - general list");
  Call("free", List({t.share(), h.share()}));
  EXPECT_EQ(Error("barrier", "::"),
            "barrier: no process group, make one with group");  // h was the default
  EXPECT_EQ(S1(Call("group", g)), S1(d));
  Call("free", g);
}

// group[], group backend, group([backend;]timeout): the rank's place from its launcher's variables
// (api/distributed/launch_environment.h), here torchrun's for a group of one.
TEST_F(PluginDistributedTest, GroupFromTheLaunchersEnvironment) {
  {
    const testing::ScopedVariables none({{"RANK", ""},
                                         {"SLURM_PROCID", ""},
                                         {"OMPI_COMM_WORLD_RANK", ""},
                                         {"PMI_RANK", ""},
                                         {"KSCOPE_RANK", ""}});
    EXPECT_THAT(Error("group", "::"), ::testing::StartsWith("group: no launcher's environment: set "
                                                            "RANK and WORLD_SIZE (torchrun)"));
  }
  const std::string port = absl::StrCat(testing::FreePort());
  const testing::ScopedVariables torchrun({{"RANK", "0"},
                                           {"WORLD_SIZE", "1"},
                                           {"LOCAL_RANK", "0"},
                                           {"MASTER_ADDR", "127.0.0.1"},
                                           {"MASTER_PORT", port},
                                           {"TORCHELASTIC_USE_AGENT_STORE", ""}});
  KRef g = Call("group", "::");
  EXPECT_EQ(S1(Call("group", g)),
            "`rank`world`rendezvous`backend`timeout`localrank!(0;1;`tcp://"
            "127.0.0.1:" +
                port + ";`gloo;0D00:05:00.000000000;0)");
  Call("free", g);
  g = Call("group", List({kq::Sym("gloo"), kq::Long(20)}));
  EXPECT_EQ(S1(At(KRef(Call("group", g)), "timeout")), "0D00:00:20.000000000");
  Call("free", g);
  EXPECT_EQ(Error("group", "`mpi"), "group: unrecognized backend `mpi, expected `gloo or `nccl");
  EXPECT_EQ(Error("group", List({kq::Long(0), kq::Long(1)})),
            "group: unrecognized arg(s) - general list");  // neither place nor options
}

class PluginDistributeTest : public PluginTest {
 protected:
  // q)q:module(`linear;2;2); eye parm(q;`weight); zeros parm(q;`bias)   (output = input)
  // q)m:model(q; loss`ce; opt(`sgd;q)) with every metric, as a dictionary, for train and test,
  //   4 rows of logits 1 0 with targets 0 1 0 0 in one batch of each.
  KRef IdentityLinearModel() {
    KRef q = Call("module", "(`linear;2;2)");
    KRef w = Call("parm", List({q.share(), kq::Sym("weight")}));
    KRef b = Call("parm", List({q.share(), kq::Sym("bias")}));
    Call("eye", w);
    Call("zeros", b);
    KRef m = Call("model", List({q.share(), Call("loss", "`ce").share(),
                                 Call("opt", List({kq::Sym("sgd"), q.share()})).share()}));
    for (const char* mode : {"train", "test"}) {
      Call(mode,
           List({m.share(), kq::Syms({"batchsize", "dictionary", "metrics"}),
                 Q("(4;1b;`loss`accuracy`grouploss`groupaccuracy`matches`groupmatches)").share()}));
      Call(mode, List({m.share(), Q("(1 0e;1 0e;1 0e;1 0e)").share(), Q("0 1 0 0").share()}));
    }
    Call("free", List({w.share(), b.share()}));  // the model took over q
    return m;
  }
  std::string Tasks(const KRef& m, const char* mode) {
    return S1(Call(mode, List({m.share(), kq::Syms({"task", "tasks"})})));
  }
  // The metrics of run m or testrun m before any step: in a world of one the group metrics are
  // the task's, and both are ce of logits 1 0: log(1+e^-1) for the 3 rows of class 0, log(1+e)
  // for the one of class 1; argmax 0 matches 3 of 4.
  void ExpectOneBatchMetrics(const KRef& r) {
    EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(r.get())))),
              "`loss`accuracy`grouploss`groupaccuracy`matches`groupmatches");
    const double loss = (3 * std::log1p(std::exp(-1.0)) + std::log1p(std::exp(1.0))) / 4;
    ASSERT_EQ(At(r, "loss")->t, LossAtomType());
    ASSERT_EQ(At(r, "grouploss")->t, LossAtomType());
    auto number = [](const KRef& x) { return x->t == -kabi::kReal ? double{x->e} : x->f; };
    EXPECT_NEAR(number(At(r, "loss")), loss, 1e-6);
    EXPECT_EQ(number(At(r, "grouploss")), number(At(r, "loss")));
    EXPECT_EQ(S1(At(r, "accuracy")), S1(At(r, "groupaccuracy")));
    EXPECT_EQ(S1(At(r, "accuracy")), "75e");
    EXPECT_EQ(S1(At(r, "matches")), "3 4");
    EXPECT_EQ(S1(At(r, "groupmatches")), "3 4");
  }
};

TEST_F(PluginDistributeTest, ModelBoundToAGroupOfOneTrainsWithGroupMetrics) {
  KRef m = IdentityLinearModel();
  // A model given tasks by hand is made task 0 of 1 by binding.
  Call("train", List({m.share(), kq::Syms({"task", "tasks"}), Q("1 2").share()}));
  EXPECT_EQ(Tasks(m, "train"), "`task`tasks!1 2");
  KRef g = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(TcpRendezvous())}));
  EXPECT_EQ(S1(Call("distribute", List({m.share(), g.share()}))), "::");
  EXPECT_EQ(Tasks(m, "train"), "`task`tasks!0 1");
  EXPECT_EQ(Tasks(m, "test"), "`task`tasks!0 1");
  EXPECT_EQ(S1(Call("ref", g)), "2");  // the model holds the group
  EXPECT_EQ(S1(Call("distribute", List({m.share(), kq::Null()}))), "::");
  EXPECT_EQ(S1(Call("ref", g)), "1");
  EXPECT_EQ(Tasks(m, "train"), "`task`tasks!0 1");  // the options stay as they are

  // Bound to the default group, the model keeps the group after its handle is freed.
  EXPECT_EQ(S1(Call("distribute", m)), "::");
  Call("free", g);
  EXPECT_EQ(Error("barrier", "::"), "barrier: no process group, make one with group");
  ExpectOneBatchMetrics(Call("testrun", m));
  ExpectOneBatchMetrics(Call("run", m));  // the loss of the one batch, before its step
  KRef after = Call("testrun", m);
  EXPECT_EQ(At(after, "grouploss")->f, At(after, "loss")->f);
  const double stepped = At(after, "loss")->f;
  EXPECT_LT(stepped,
            (3 * std::log1p(std::exp(-1.0)) + std::log1p(std::exp(1.0))) / 4);  // the step trained

  // Unbound, training is local: the group metrics are still the task's own.
  EXPECT_EQ(S1(Call("distribute", List({m.share(), kq::Null()}))), "::");
  KRef r = Call("run", m);
  EXPECT_EQ(At(r, "grouploss")->f, At(r, "loss")->f);
  EXPECT_NEAR(At(r, "loss")->f, stepped, 1e-6);
  Call("free", m);
}

TEST_F(PluginDistributeTest, BadArgumentsNameDistributeAndChangeNothing) {
  KRef m = IdentityLinearModel();
  Call("train", List({m.share(), kq::Syms({"task", "tasks"}), Q("1 2").share()}));
  KRef t = Call("tensor", "1 2");
  EXPECT_EQ(Error("distribute", m), "distribute: no process group, make one with group");
  KRef g = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(TcpRendezvous())}));
  const std::string made = S1(Call("group", g));
  EXPECT_EQ(Error("distribute", "::"), "distribute: unrecognized arg(s) - null/unary primitive");
  EXPECT_EQ(Error("distribute", List({m.share(), g.share(), g.share()})),
            "distribute: unable to use group as an option value");
  EXPECT_EQ(Error("distribute", "(1;::)"),
            "distribute: arg[0] expected pointer, given long scalar");
  EXPECT_EQ(Error("distribute", t), "distribute: expected model, given tensor");
  EXPECT_EQ(Error("distribute", g), "distribute: expected model, given group");
  EXPECT_EQ(Error("distribute", List({t.share(), g.share()})),
            "distribute: expected model, given tensor");
  EXPECT_EQ(Error("distribute", List({m.share(), t.share()})),
            "distribute: expected group, given tensor");
  EXPECT_EQ(Error("distribute", List({m.share(), m.share()})),
            "distribute: expected group, given model");
  EXPECT_EQ(Error("distribute", List({m.share(), kq::Sym("g")})),
            "distribute: arg[1] expected pointer, given symbol scalar");
  EXPECT_EQ(Error("distribute", List({t.share(), kq::Null()})),
            "distribute: expected model, given tensor");
  EXPECT_EQ(Error("distribute", List({g.share(), kq::Null()})),
            "distribute: expected model, given group");

  EXPECT_EQ(Tasks(m, "train"), "`task`tasks!1 2");  // not bound
  EXPECT_EQ(S1(Call("ref", g)), "1");
  EXPECT_EQ(S1(Call("group", g)), made);
  EXPECT_EQ(S1(Call("tensor", t)), "1 2");
  EXPECT_EQ(S1(Call("class", m)), "`model");
  Call("free", List({m.share(), t.share(), g.share()}));
}

// distribute's options choose how steps average, and `group m` shows the binding: while
// backward runs, in buckets of the sizes given (the weight's 16 bytes and the bias's 8 in one
// default bucket, or one each under 4-byte buckets), or after backward (`overlap 0b: none).
TEST_F(PluginDistributeTest, OptionsChooseHowStepsAverage) {
  KRef m = IdentityLinearModel();
  Call("train", List({m.share(), kq::Syms({"task", "tasks"}), Q("1 2").share()}));
  KRef g = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(TcpRendezvous())}));
  EXPECT_EQ(S1(Call("group", m)), "::");  // not bound
  auto averaging = [&] {
    KRef d = Call("group", m);
    EXPECT_EQ(S1(At(d, "rendezvous")), S1(At(KRef(Call("group", g)), "rendezvous")));
    return S1(At(d, "overlap")) + " " + S1(At(d, "bucketbytes")) + " " +
           S1(At(d, "firstbucketbytes")) + " " + S1(At(d, "buckets"));
  };

  // Bad options name distribute and change nothing.
  EXPECT_EQ(Error("distribute", List({m.share(), g.share(), kq::Sym("overlap"), kq::Long(1)})),
            "distribute: option `overlap expects boolean, given long");
  EXPECT_EQ(Error("distribute", List({m.share(), kq::Sym("bucketbytes"), kq::Long(0)})),
            "distribute: bucket sizes must be positive, given 1048576 bytes for the first and 0 "
            "for the others");
  EXPECT_EQ(Error("distribute", List({m.share(), g.share(), kq::Sym("buckets"), kq::Long(4)})),
            "distribute: option `overlap expects boolean, given symbol");
  EXPECT_EQ(Error("distribute", List({m.share(), g.share(), kq::Bool(false), kq::Long(4),
                                      kq::Long(4), kq::Long(4)})),
            "distribute: 4 positional option(s) given, expecting at most 3");
  EXPECT_EQ(Tasks(m, "train"), "`task`tasks!1 2");
  EXPECT_EQ(S1(Call("group", m)), "::");

  EXPECT_EQ(S1(Call("distribute", List({m.share(), g.share()}))), "::");
  EXPECT_EQ(averaging(), "1b 26214400 1048576 1");
  EXPECT_EQ(Tasks(m, "train"), "`task`tasks!0 1");
  EXPECT_EQ(
      S1(Call("distribute", List({m.share(), Q("`bucketbytes`firstbucketbytes!(4;4)").share()}))),
      "::");  // the default group
  EXPECT_EQ(averaging(), "1b 4 4 2");
  EXPECT_EQ(
      S1(Call("distribute", List({m.share(), g.share(), kq::Sym("overlap"), kq::Bool(false)}))),
      "::");
  EXPECT_EQ(averaging(), "0b 26214400 1048576 0");
  EXPECT_EQ(S1(Call("distribute",
                    List({m.share(), g.share(), kq::Bool(true), kq::Long(4), kq::Long(4)}))),
            "::");  // positional: overlap, bucketbytes, firstbucketbytes
  EXPECT_EQ(averaging(), "1b 4 4 2");
  ExpectOneBatchMetrics(Call("run", m));  // trains as before
  EXPECT_EQ(S1(Call("distribute", List({m.share(), kq::Null()}))), "::");
  EXPECT_EQ(S1(Call("group", m)), "::");
  Call("free", List({m.share(), g.share()}));
}

}  // namespace plugin_distributed_test
}  // namespace kscope::testing
