// Process groups through the plugin (q/distributed_fns.cc), with a group of one rank in this
// process: group's argument forms, allreduce/broadcast in place on pointers and data in -> data
// out, allgather, barrier, the default group, and bad arguments naming the function. Several
// ranks in several processes: tests/distributed_test.cc.
#include "tests/free_port.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace {

using PluginDistributedTest = PluginTest;

TEST_F(PluginDistributedTest, OneRankGroupRunsEveryCollective) {
  const std::string rendezvous = ":" + TcpRendezvous();
  KRef g = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(rendezvous), kq::Sym("gloo"), kq::Long(10)}));
  EXPECT_EQ(S1(Call("class", g)), "`group");
  EXPECT_EQ(S1(Call("str", g)), "\"gloo process group: rank 0 of 1 at " + rendezvous.substr(1) + "\"");

  KRef x = Call("tensor", "1 2 3f");
  EXPECT_EQ(S1(Call("allreduce", List({x.share(), kq::Sym("mean")}))), "::");
  EXPECT_EQ(S1(Call("allreduce", List({x.share(), kq::Sym("max"), g.share()}))), "::");
  EXPECT_EQ(S1(Call("broadcast", List({x.share(), kq::Long(0)}))), "::");
  EXPECT_EQ(S1(Call("tensor", x)), "1 2 3f");
  EXPECT_EQ(S1(Call("allreduce", "1 2 3f")), "1 2 3f");
  EXPECT_EQ(S1(Call("allreduce", "(`a`b!(1 2f;3 4);`sum)")), "`a`b!(1 2f;3 4)");
  EXPECT_EQ(S1(Call("broadcast", List({List({Q("1 2f").share(), Q("3 4").share()}).share(), kq::Long(0)}))),
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
  EXPECT_EQ(Error("group", "(0;1;`:tcp://127.0.0.1:1;`mpi)"), "group: unrecognized backend `mpi, expected `gloo or `nccl");
  KRef g = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(TcpRendezvous()), kq::Float(2.5)}));
  KRef x = Call("tensor", "1 2");
  EXPECT_EQ(Error("allreduce", List({x.share(), kq::Sym("prod")})),
            "allreduce: unrecognized reduction `prod, expected `sum, `mean, `max or `min");
  EXPECT_EQ(Error("allreduce", List({x.share(), kq::Sym("mean")})), "allreduce: mean needs floating-point tensors, given long");
  EXPECT_EQ(Error("allreduce", List({x.share(), kq::Sym("sum"), x.share()})), "allreduce: expected group, given tensor");
  EXPECT_EQ(Error("broadcast", List({x.share(), kq::Long(1)})), "broadcast: root must be a rank 0..0, given 1");
  EXPECT_EQ(Error("allgather", g), "allgather: expected tensor, given group");
  EXPECT_EQ(S1(Call("tensor", x)), "1 2");
  Call("free", List({x.share(), g.share()}));
}

}  // namespace
}  // namespace kscope::testing
