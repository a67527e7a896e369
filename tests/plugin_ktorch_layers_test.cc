// The k-api layers through the plugin, as q sessions use them: a reshape after a linear inside a
// sequential, cat of two k arrays, the query of a layer with its defaults, selfattention's
// parameters, and error texts naming the kind.
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_ktorch_layers_test {

using PluginKLayersTest = PluginTest;

TEST_F(PluginKLayersTest, ReshapeAfterLinearInASequential) {
  // q)q:module seq(`sequential; (`linear;4;6); (`reshape;-1 2 3))
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;4;6);(`reshape;-1 2 3))"));
  EXPECT_EQ(S1(Call("module", q)),
            "+`depth`module`name`options!(0 1 1;`sequential`linear`reshape;``0`1;"
            "(`symbol$()!();`in`out`bias!(4;6;1b);(,`size)!,-1 2 3))");
  // q)y:forward(q;x)   size y -> 2 2 3, the linear's 2 x 6 output reshaped
  KRef x = Call("tensor", "(1 2 3 4e;5 6 7 8e)");
  KRef y = Call("forward", List({q.share(), x.share()}));
  EXPECT_EQ(S1(Call("size", y)), "2 2 3");
  KRef linear = Call("forward", List({q.share(), kq::Sym("0"), x.share()}));
  EXPECT_EQ(S1(Call("size", linear)), "2 6");
  EXPECT_EQ(S1(Call("tensor", y)),
            S1(Call("reshape", List({Call("tensor", linear).share(), kq::Longs({2, 2, 3})}))));
  Call("free", List({q.share(), x.share(), y.share(), linear.share()}));
}

TEST_F(PluginKLayersTest, CatOfTwoInputs) {
  // q)q:module(`cat;1)   forward(q; (1 2e;3 4e); (5 6e;7 8e)) -> (1 2 5 6e;3 4 7 8e)
  KRef q = Call("module", "(`cat;1)");
  // k in: a pointer out, as ktorch gives; its values returned
  EXPECT_EQ(S1(Call("return", Call("forward", List({q.share(), Q("(1 2e;3 4e)").share(),
                                                    Q("(5 6e;7 8e)").share()})))),
            "(1 2 5 6e;3 4 7 8e)");
  EXPECT_EQ(S1(Call("str", q)), "\"kscope::cat(dim=1)\"");
  EXPECT_EQ(Error("forward", List({q.share(), Q("1 2e").share()})),
            "forward: `cat expects 2 inputs, given 1");
  Call("free", q);
}

TEST_F(PluginKLayersTest, QueryShowsDefaultsAndOnlyChangedOptions) {
  KRef q = Call("module", "(`randomcrop;28;4)");
  EXPECT_EQ(
      S1(Call("module", q)),
      "`depth`module`name`options!(0;`randomcrop;`;`size`pad`padmode`value!(28;4;`constant;0f))");
  EXPECT_EQ(S1(Call("module", List({q.share(), kq::Bool(false)}))),
            "`depth`module`name`options!(0;`randomcrop;`;`size`pad!28 4)");
  // eval mode passes the input through: a 1 x 2 x 2 array is smaller than the crop
  EXPECT_EQ(S1(Call("evaluate", List({q.share(), Q("enlist(1 2e;3 4e)").share()}))),
            ",(1 2e;3 4e)");
  Call("free", q);
}

TEST_F(PluginKLayersTest, SelfAttentionParameters) {
  KRef q = Call("module", "(`selfattention;8;2;0.1;1b)");
  EXPECT_EQ(S1(Call("parmnames", q)), "`norm.weight`norm.bias`in.weight`out.weight`out.bias");
  EXPECT_EQ(S1(Call("elements", q)), "280");  // 8+8 + 24*8 + 8*8+8
  Call("free", q);
}

TEST_F(PluginKLayersTest, ErrorsNameTheKind) {
  EXPECT_EQ(Error("module", "`unsqueeze"), "unsqueeze: option `dim required");
  EXPECT_EQ(Error("module", "(`zscore;0.1 0.2;0.3 0)"),
            "zscore: option `std must be positive, given 0");
  EXPECT_EQ(Error("module", "(`pad;1 1;`mirror)"),
            "pad: unrecognized mode `mirror, expecting constant, reflect, replicate or circular");
  KRef q = Call("module", "(`embedpos;4;3)");
  EXPECT_EQ(
      Error("forward", List({q.share(), Q("enlist(1 2 3e;1 2 3e;1 2 3e;1 2 3e;1 2 3e)").share()})),
      "embedpos: sequence of 5 longer than the 4 rows of the embedding");
  Call("free", q);
}

}  // namespace plugin_ktorch_layers_test
}  // namespace kscope::testing
