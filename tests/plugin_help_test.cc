// help, setting, seed, cudadevices, cudadevice, sync, config and version through the plugin
// (q/env/help_fns.cc, q/env/setting_fns.cc, q/env/environment_fns.cc), with the errors of bad
// arguments (which change nothing). The plugin test binary has no libtorch of its own: settings are
// read back through the plugin (tests/environment_test.cc checks the api against libtorch
// directly).
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_help_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using PluginHelpTest = PluginTest;
using PluginSettingTest = PluginTest;
using PluginEnvironmentTest = PluginTest;

TEST_F(PluginHelpTest, Topics) {
  KRef topics = Call("help");
  EXPECT_THAT(S1(topics),
              StartsWith("`backward`device`dtype`ktype`loss`module`optimizer`tensor!(\"backward "
                         "calculation modes\";\"PyTorch device mapped to random seed\";"));
  EXPECT_EQ(S1(Call("help", "()")), S1(topics));
}

TEST_F(PluginHelpTest, BackwardModesAsSeed004) {
  // q)help`backward
  // mode retain create description ..
  // free 0 0 "free graph, no higher order derivatives" ..
  EXPECT_EQ(
      S1(Call("help", "`backward")),
      "+`mode`retain`create`description!(`free`retain`create`createfree;0110b;0011b;"
      "(\"free graph, no higher order derivatives\";\"retain graph, no higher order derivatives\";"
      "\"retain graph, create graph for higher order derivatives\";"
      "\"free graph & create graph for higher order derivatives\"))");
}

TEST_F(PluginHelpTest, KindTablesAndDefaults) {
  // ktorch's tables: a row per kind, sorted by name, ktorch's columns.
  KRef modules = Call("help", "`module");
  ASSERT_EQ(modules->t, kabi::kTable);
  const KRef columns(kabi::r1(kabi::DictKeys(kabi::TableDict(modules.get()))));
  EXPECT_EQ(S1(columns), "`module`pytorch`forward`result`n`args`options");
  KRef names = At(kabi::TableDict(modules.get()), "module");
  EXPECT_GT(names->n, 100);
  KRef losses = Call("help", "`loss");
  EXPECT_EQ(At(kabi::TableDict(losses.get()), "module")->n, 21);
  KRef optimizers = Call("help", "`optimizer");
  EXPECT_EQ(S1(At(kabi::TableDict(optimizers.get()), "optimizer")),
            "`adagrad`adam`adamw`lamb`lbfgs`rmsprop`sgd");
  EXPECT_EQ(S1(At(kabi::TableDict(optimizers.get()), "pytorch")),
            "(\"torch.optim.Adagrad\";\"torch.optim.Adam\";\"torch.optim.AdamW\";\"\";"
            "\"torch.optim.LBFGS\";\"torch.optim.RMSprop\";\"torch.optim.SGD\")");
  // a kind's dictionary: its PyTorch class, forward, result, inputs, options with ktorch's sample
  // values where kscope's kind has none (required) or shows another
  EXPECT_EQ(S1(Call("help", "`linear")),
            "`module`pytorch`forward`result`n`args`options!(`linear;\"torch.nn.Linear\";1b;"
            "`tensor;1;`tensor;`in`out`bias!(784;10;1b))");
  EXPECT_EQ(S1(Call("help", "`ce")),
            "`module`pytorch`forward`result`n`args`options!(`ce;\"torch.nn.CrossEntropyLoss\";1b;"
            "`tensor;2;`tensor`tensor;`weight`ignore`smoothing`reduce!(::;-100;0f;`mean))");
  EXPECT_EQ(
      S1(Call("help", "`lbfgs")),
      "`lr`iter`eval`gradtol`changetol`history`search!(1f;20;0N;1e-07;1e-09;100;`strong_wolf)");
  EXPECT_THAT(S1(Call("help", "`adamw")), HasSubstr("0.01"));
  // ktorch's dictionaries
  EXPECT_EQ(
      S1(Call("help", "`dtype")),
      "`float`double`half`bool`byte`char`long`int`short`chalf`cfloat`cdouble!\"efebxcjiheef\"");
  EXPECT_EQ(S1(Call("help", "`ktype")), "\"efebxcji\"!`float`double`half`bool`byte`char`long`int");
  // each device (the cpu, then each CUDA device) with its random seed, as seed[] (ktorch 2.3)
  Call("seed", "42");
  EXPECT_EQ(S1(Call("help", "`device")), S1(Call("seed")));
  EXPECT_THAT(S1(Call("help", "`device")), StartsWith("(,`cpu)!,42"));
  EXPECT_EQ(
      S1(Call("help", "`tensor")),
      "`device`dtype`layout`gradient`pin`memory!`cpu`float`strided`nograd`unpinned`contiguous");
}

TEST_F(PluginHelpTest, HelpOfAPointerAndErrors) {
  // a module's or loss's dictionary shows its own options; other objects' help is their options
  KRef q = Call("module", "(`linear;2;3)");
  EXPECT_EQ(S1(Call("help", q)),
            "`module`pytorch`forward`result`n`args`options!(`linear;\"torch.nn.Linear\";1b;"
            "`tensor;1;`tensor;`in`out`bias!(2;3;1b))");
  KRef t = Call("tensor", "1 2");
  EXPECT_EQ(S1(Call("help", t)), S1(Call("options", t)));
  EXPECT_EQ(Error("help", "`nope"), "help: unrecognized topic or kind `nope");
  EXPECT_EQ(Error("help", "1 2"),
            "help: unrecognized arg(s), expecting empty arg, name or object, given long list");
  Call("free", List({q.share(), t.share()}));
}

TEST_F(PluginSettingTest, EveryKeyOfTheCatalogue) {
  KRef all = Call("setting");
  EXPECT_EQ(
      khost::S1(kabi::DictKeys(all.get())),
      "`mkl`openmp`threads`interopthreads`mps`cuda`magma`cudnn`cudnnversion`cudadevices`benchmark"
      "`deterministic`cudnndeterministic`stackframe`alloptions`complexfirst`strict`foreach`fused"
      "`scope`footprint");
  for (const char* flag :
       {"mkl", "openmp", "mps", "cuda", "magma", "cudnn", "benchmark", "cudnndeterministic"}) {
    EXPECT_EQ(Call("setting", KRef(kq::Sym(flag)))->t, -kabi::kBoolean) << flag;
  }
  for (const char* count : {"threads", "interopthreads", "cudnnversion", "cudadevices"}) {
    EXPECT_EQ(Call("setting", KRef(kq::Sym(count)))->t, -kabi::kLong) << count;
  }
  EXPECT_EQ(S1(Call("setting", "`cudadevices")), S1(Call("cudadevices")));
  EXPECT_EQ(S1(Call("setting", "`mps")), "0b");
  EXPECT_EQ(S1(Call("setting", "`deterministic")), "0");
  EXPECT_EQ(S1(Call("setting", "`alloptions")), "1b");
  EXPECT_EQ(S1(Call("setting", "`complexfirst")), "1b");
  EXPECT_EQ(S1(Call("setting", "`stackframe")), "0b");
  EXPECT_EQ(S1(Call("setting", "`foreach")), "1b");
  EXPECT_EQ(S1(Call("setting", "`fused")), "1b");
}

TEST_F(PluginSettingTest, WritableKeys) {
  const std::string threads = S1(Call("setting", "`threads"));
  Call("setting", "(`threads;1)");
  EXPECT_EQ(Error("setting", "(`threads;0)"), "setting: threads must be from 1 to 1024, given 0");
  EXPECT_EQ(S1(Call("setting", "`threads")), "1");
  Call("setting", List({kq::Sym("threads"), kq::Long(std::stoll(threads))}));
  EXPECT_EQ(S1(Call("setting", "`threads")), threads);
  const std::string interop = S1(Call("setting", "`interopthreads"));
  Call("setting",
       List({kq::Sym("interopthreads"), kq::Long(std::stoll(interop))}));  // the current count
  EXPECT_EQ(S1(Call("setting", "`interopthreads")), interop);
  for (const char* flag : {"benchmark", "cudnndeterministic", "stackframe", "alloptions",
                           "complexfirst", "foreach", "fused"}) {
    const std::string before = S1(Call("setting", KRef(kq::Sym(flag))));
    Call("setting", List({kq::Sym(flag), kq::Bool(before == "0b")}));
    EXPECT_NE(S1(Call("setting", KRef(kq::Sym(flag)))), before) << flag;
    EXPECT_EQ(Error("setting", List({kq::Sym(flag), kq::Long(1)})),
              "setting: arg[1] expected boolean, given long scalar");
    Call("setting", List({kq::Sym(flag), kq::Bool(before == "1b")}));
    EXPECT_EQ(S1(Call("setting", KRef(kq::Sym(flag)))), before) << flag;
  }
  Call("setting", "(`deterministic;2)");
  EXPECT_THAT(Error("setting", "(`deterministic;5)"),
              StartsWith("setting: deterministic expects 0 (off), 1 (on) or 2"));
  EXPECT_EQ(S1(Call("setting", "`deterministic")), "2");
  Call("setting", "(`deterministic;0)");
  EXPECT_EQ(S1(Call("setting", "`deterministic")), "0");
  for (const char* read_only :
       {"mkl", "openmp", "mps", "cuda", "magma", "cudnn", "cudnnversion", "cudadevices"}) {
    EXPECT_THAT(Error("setting", List({kq::Sym(read_only), kq::Bool(true)})),
                StartsWith(absl::StrFormat("setting: `%s is read-only", read_only)));
  }
  EXPECT_EQ(Error("setting", "`nope"), "unrecognized configuration setting: nope");
}

TEST_F(PluginSettingTest, StackframeAddsLibtorchsBacktrace) {
  KRef a = Call("tensor", "1 2 3e");
  KRef b = Call("tensor", "1 2e");
  KRef both = List({a.share(), b.share()});
  const std::string plain = Error("add", both);
  EXPECT_THAT(plain, HasSubstr("must match the size"));
  EXPECT_THAT(plain, ::testing::Not(HasSubstr("Exception raised from")));
  Call("setting", "(`stackframe;1b)");
  const std::string framed = Error("add", both);
  Call("setting", "(`stackframe;0b)");
  EXPECT_THAT(framed, StartsWith(plain));
  EXPECT_THAT(framed, HasSubstr("Exception raised from"));
  EXPECT_THAT(framed, HasSubstr("frame #"));  // libtorch's backtrace, captured while it is on
  Call("free", both);
}

TEST_F(PluginEnvironmentTest, SeedForms) {
  Call("seed", "42");
  KRef all = Call("seed");  // device!initial seed, cpu first
  EXPECT_EQ(std::string(kabi::Symbols(kabi::DictKeys(all.get()))[0]), "cpu");
  EXPECT_EQ(kabi::Longs(kabi::DictValues(all.get()))[0], 42);
  EXPECT_EQ(S1(Call("seed", "`cpu")), "42");
  Call("seed", "(`cpu;7)");
  EXPECT_EQ(S1(Call("seed", "`cpu")), "7");
  KRef a = Call("tensor", "(`rand;,3)");
  Call("seed", "(`cpu;7)");
  KRef b = Call("tensor", "(`rand;,3)");
  EXPECT_EQ(S1(Call("tensor", a)), S1(Call("tensor", b)));
  Call("seed", "0N");                         // nondeterministic
  EXPECT_NE(S1(Call("seed", "`cpu")), "42");  // a fresh random seed (1 chance in 2^64 to be 42)
  Call("seed", "42");
  EXPECT_EQ(Error("seed", "`gpu"), "seed: unrecognized device `gpu, expecting cpu or cuda:N");
  EXPECT_EQ(Error("seed", "(1;2)"), "seed: arg[0] expected long, given long list");
  EXPECT_EQ(Error("seed", "(`cpu;1.5)"), "seed: arg[1] expected long, given float scalar");
  EXPECT_EQ(Error("seed", "(`cpu;1;2)"), "seed: unrecognized arg(s) - general list");
  EXPECT_EQ(Error("seed", "1.5"), "seed: arg[0] expected long, given float scalar");
  EXPECT_EQ(S1(Call("seed", "`cpu")), "42");
  if (S1(Call("cudadevices")) == "0") {
    EXPECT_EQ(Error("seed", "`cuda:0"), "seed: no CUDA devices available");
  }
  Call("free", List({a.share(), b.share()}));
}

TEST_F(PluginEnvironmentTest, CudaDevicesAndSync) {
  const std::int64_t n = Call("cudadevices")->j;
  EXPECT_EQ(Call("cudadevices", "()")->n, n);
  EXPECT_EQ(Error("cudadevices", "1"), "cudadevices: unrecognized arg(s) - long scalar");
  KRef t = Call("tensor", "1 2");
  EXPECT_EQ(Call("sync", t).get(), nullptr);  // a CPU tensor: nothing to wait for
  KRef q = Call("module", "(`linear;2;3)");
  EXPECT_EQ(Call("sync", q).get(), nullptr);
  if (n == 0) {
    EXPECT_EQ(Error("cudadevice", "()"), "no CUDA device available");  // ktorch's text
    EXPECT_EQ(Error("cudadevice", "`cuda:0"), "no CUDA device available");
    EXPECT_EQ(Error("cudadevice", "1"), "no CUDA device available");
    EXPECT_EQ(Call("sync", "()").get(), nullptr);  // nothing to wait for, as in ktorch
    EXPECT_EQ(Error("sync", "0"), "sync: no CUDA devices available");
    EXPECT_EQ(Error("sync", "`cuda:0"), "sync: no CUDA devices available");
  } else {
    Call("cudadevice", "`cuda:0");
    EXPECT_EQ(S1(Call("cudadevice", "()")), "`cuda:0");
    Call("sync", "()");
    Call("sync", "0");
    Call("sync", "`cuda:0");
    EXPECT_EQ(Error("cudadevice", "1"), "cudadevice: unrecognized arg(s) - long scalar");
  }
  EXPECT_EQ(Call("sync", "`cpu").get(), nullptr);
  EXPECT_EQ(Error("sync", "`gpu"), "sync: unrecognized device `gpu, expecting cpu or cuda:N");
  Call("free", List({t.share(), q.share()}));
}

TEST_F(PluginEnvironmentTest, ConfigAndVersion) {
  KRef lines = Call("config", "()");
  ASSERT_EQ(lines->t, 0);
  ASSERT_GT(lines->n, 0);
  const std::string first = S1(KRef(kabi::r1(kabi::Items(lines.get())[0])));
  EXPECT_THAT(first, StartsWith("\""));
  EXPECT_THAT(first, HasSubstr("PyTorch built with"));
  EXPECT_EQ(Call("config").get(), nullptr);  // config[] prints to stderr
  const std::string text = S1(Call("version", "()"));
  ASSERT_THAT(text, ::testing::MatchesRegex("\"[0-9]+\\.[0-9]+\\.[0-9]+\""));
  const std::vector<std::string> parts = absl::StrSplit(text.substr(1, text.size() - 2), '.');
  int major = 0, minor = 0, patch = 0;
  ASSERT_TRUE(absl::SimpleAtoi(parts[0], &major) && absl::SimpleAtoi(parts[1], &minor) &&
              absl::SimpleAtoi(parts[2], &patch));
  KRef v = Call("version");
  ASSERT_EQ(v->t, -kabi::kFloat);
  EXPECT_DOUBLE_EQ(v->f, major + minor / 100.0 + patch / 10000.0);
  EXPECT_EQ(Error("version", "1"),
            "version: unexpected arg(s), use version() for string, version[] for number");
  EXPECT_EQ(Error("config", "`x"), "config: unrecognized arg(s) - symbol scalar");
}

}  // namespace plugin_help_test
}  // namespace kscope::testing
