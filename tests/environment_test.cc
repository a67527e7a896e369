// api/tensor/info.h attribute functions, api/env/environment.h and api/env/help.h, each checked
// against the same libtorch call made directly on the tensor the handle holds.
#include <algorithm>
#include <set>
#include <string>

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/core/Generator.h>
#include <torch/csrc/autograd/function.h>
#include <torch/version.h>

#include "absl/strings/str_format.h"

#include "api/env/environment.h"
#include "api/env/help.h"
#include "api/env/kind_facts.h"
#include "api/nn/kind_names.h"
#include "api/nn/module_kind.h"
#include "api/nn/optimizer_kind.h"
#include "api/tensor/autograd.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace environment_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using ::testing::Pair;

using InfoAttributeTest = LeakCheckTest;
using EnvironmentTest = LeakCheckTest;
using HelpTest = LeakCheckTest;

TEST_F(InfoAttributeTest, TensorAttributesMatchLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor x =
      at::arange(24, at::kFloat).reshape({2, 3, 4}).transpose(0, 2).narrow(0, 1, 2);
  const Handle h = tensor(x);
  EXPECT_EQ(stride(h).single(), x.strides().vec());
  EXPECT_EQ(dim(h).single(), x.dim());
  EXPECT_EQ(numel(h).single(), x.numel());
  EXPECT_EQ(itemsize(h).single(), static_cast<std::int64_t>(x.element_size()));
  EXPECT_EQ(offset(h).single(), x.storage_offset());
  EXPECT_EQ(sptr(h).single(), reinterpret_cast<std::int64_t>(x.storage().data()));
  EXPECT_EQ(sref(h).single(), x.storage().use_count());
  EXPECT_EQ(weakref(h).single(), static_cast<std::int64_t>(x.weak_use_count()));
  EXPECT_EQ(layout(h).single(), "strided");
  EXPECT_EQ(memory(h).single(), MemoryFormatName(x.suggest_memory_format()));
  EXPECT_EQ(gradient(h).single(), "nograd");
  EXPECT_EQ(gradfn(h).single(), "");
  EXPECT_EQ(ktype(h).single(), 'e');
  EXPECT_TRUE(defined(h).single());
  EXPECT_TRUE(coalesced(h).single());
  EXPECT_EQ(contiguous(h).single(), x.is_contiguous());
  EXPECT_FALSE(contiguous(h).single());
  EXPECT_EQ(leaf(h).single(), x.is_leaf());
  EXPECT_EQ(pinned(h).single(), x.is_pinned());
  EXPECT_FALSE(sparseflag(h).single());
  EXPECT_EQ(objtype(h), "tensor");
}

TEST_F(InfoAttributeTest, GradientsChannelsLastAndUndefined) {
  auto scope = Scope::Open();
  const at::Tensor w = at::ones({2, 2}).requires_grad_();
  const at::Tensor y = w * 2;
  const Handle hw = tensor(w), hy = tensor(y);
  EXPECT_EQ(gradient(hw).single(), "grad");
  EXPECT_TRUE(leaf(hw).single());
  EXPECT_EQ(gradfn(hy).single(), y.grad_fn()->name());
  EXPECT_FALSE(leaf(hy).single());
  const at::Tensor image = at::zeros({1, 3, 4, 4}).contiguous(at::MemoryFormat::ChannelsLast);
  const Handle hi = tensor(image);
  EXPECT_EQ(memory(hi).single(), "channel2d");
  EXPECT_TRUE(contiguous(hi, at::MemoryFormat::ChannelsLast).single());
  EXPECT_FALSE(contiguous(hi).single());
  const Handle undefined = tensor(at::Tensor());
  EXPECT_FALSE(defined(undefined).single());
  EXPECT_EQ(dim(undefined).single(), 0);
  EXPECT_EQ(ktype(undefined).single(), ' ');
  EXPECT_EQ(layout(undefined).single(), "");
}

TEST_F(InfoAttributeTest, KTypesOfEveryDtype) {
  auto scope = Scope::Open();
  for (const auto& [type, k] :
       std::vector<std::pair<at::ScalarType, char>>{{at::kBool, 'b'},
                                                    {at::kByte, 'x'},
                                                    {at::kChar, 'c'},
                                                    {at::kShort, 'h'},
                                                    {at::kInt, 'i'},
                                                    {at::kLong, 'j'},
                                                    {at::kHalf, 'e'},
                                                    {at::kFloat, 'e'},
                                                    {at::kDouble, 'f'},
                                                    {at::kComplexDouble, 'f'}}) {
    EXPECT_EQ(ktype(tensor(at::zeros({1}, type))).single(), k) << type;
  }
}

TEST_F(InfoAttributeTest, SparseTensor) {
  auto scope = Scope::Open();
  const at::Tensor s = at::eye(3).to_sparse();
  const Handle h = tensor(s);
  EXPECT_EQ(layout(h).single(), "sparse");
  EXPECT_TRUE(sparseflag(h).single());
  EXPECT_EQ(coalesced(h).single(), s.is_coalesced());
  EXPECT_FALSE(contiguous(h).single());
  EXPECT_EQ(sptr(h).single(), 0);
  EXPECT_TRUE(stride(h).single().empty());
}

TEST_F(InfoAttributeTest, VectorsAndDictionariesPerElement) {
  auto scope = Scope::Open();
  const at::Tensor a = at::ones({2, 3}), b = at::zeros({4}, at::kLong);
  const Handle v = vector({Operand(a), Operand(b)});
  const Handle d = dict({{"a", Operand(a)}, {"b", Operand(b)}});
  EXPECT_THAT(dim(v).list(), ElementsAre(2, 1));
  EXPECT_THAT(ktype(v).list(), ElementsAre('e', 'j'));
  EXPECT_THAT(stride(v).list(),
              ElementsAre(std::vector<std::int64_t>{3, 1}, std::vector<std::int64_t>{1}));
  EXPECT_THAT(numel(d).named(), ElementsAre(Pair("a", 6), Pair("b", 4)));
  EXPECT_THAT(defined(d).named(), ElementsAre(Pair("a", true), Pair("b", true)));
  const PerElement<TensorOptionsInfo> o = options(d);
  EXPECT_EQ(o.named().at(1).second.dtype, "long");
  EXPECT_EQ(o.named().at(1).second.pin, "unpinned");
  EXPECT_EQ(objtype(v), "tensor");
}

TEST_F(InfoAttributeTest, OptionsOfTensorAndDefaults) {
  auto scope = Scope::Open();
  const Handle h = tensor(at::ones({2}, at::kDouble).requires_grad_());
  const TensorOptionsInfo o = options(h).single();
  EXPECT_EQ(o.device, "cpu");
  EXPECT_EQ(o.dtype, "double");
  EXPECT_EQ(o.layout, "strided");
  EXPECT_EQ(o.gradient, "grad");
  EXPECT_EQ(o.pin, "unpinned");
  EXPECT_EQ(o.memory, "contiguous");
  EXPECT_EQ(options().dtype, default_dtype());
  EXPECT_EQ(options().gradient, "nograd");
}

TEST_F(InfoAttributeTest, SameAliasAndDetail) {
  auto scope = Scope::Open();
  const at::Tensor x = at::arange(6);
  const Handle a = tensor(x), b = tensor(x), view = tensor(x.narrow(0, 1, 2)),
               other = tensor(at::arange(6));
  EXPECT_TRUE(same(a, b));
  EXPECT_FALSE(same(a, view));
  EXPECT_TRUE(alias(a, view));
  EXPECT_FALSE(alias(a, other));
  const TensorDetail d = detail(view);
  EXPECT_EQ(d.info.offset, 1);
  EXPECT_EQ(d.storage_bytes, static_cast<std::int64_t>(x.storage().nbytes()));
  EXPECT_EQ(d.sptr, reinterpret_cast<std::int64_t>(x.storage().data()));
  EXPECT_EQ(d.memory, "contiguous");
}

TEST_F(InfoAttributeTest, CompositesAndWrongClassesAreErrors) {
  auto scope = Scope::Open();
  const Handle q =
      module(ModuleDefinition{"linear", "", {std::int64_t{2}, std::int64_t{3}}, {}, {}});
  const Handle l = loss("mse");
  const Handle o = opt("adamw", q);
  const Handle v = vector({Operand(at::ones({1}))});
  EXPECT_EQ(ErrorOf([&] { dim(q); }), "dim: not implemented for modules");
  EXPECT_EQ(ErrorOf([&] { stride(l); }), "stride: not implemented for loss modules");
  EXPECT_EQ(ErrorOf([&] { ktype(o); }), "ktype: not implemented for optimizers");
  EXPECT_EQ(ErrorOf([&] { same(v, v); }), "same: expected tensor, given vector");
  EXPECT_EQ(ErrorOf([&] { detail(v); }), "detail: expected tensor, given vector");
  EXPECT_EQ(objtype(q), "linear");
  EXPECT_EQ(objtype(l), "mse");
  EXPECT_EQ(objtype(o), "adamw");
  EXPECT_FALSE(MemoryFormatFromName("rows").has_value());
  EXPECT_EQ(MemoryFormatFromName("channel3d"), at::MemoryFormat::ChannelsLast3d);
}

TEST_F(EnvironmentTest, SeedsPerDevice) {
  seed_all(42);
  EXPECT_EQ(at::detail::getDefaultCPUGenerator().current_seed(), 42u);
  EXPECT_EQ(initial_seed("cpu"), 42u);
  const auto all = seeds();
  ASSERT_EQ(all.size(), static_cast<std::size_t>(1 + cuda_device_count()));
  EXPECT_EQ(all[0], std::make_pair(std::string("cpu"), std::uint64_t{42}));
  seed_device("cpu", 7);
  EXPECT_EQ(initial_seed("cpu"), 7u);
  const at::Tensor first = at::rand({3});
  seed_device("cpu", 7);
  EXPECT_TRUE(at::equal(first, at::rand({3})));
  seed_all(std::nullopt);  // nondeterministic: a fresh seed
  EXPECT_EQ(initial_seed("cpu"), at::detail::getDefaultCPUGenerator().current_seed());
  seed_all(42);
  EXPECT_EQ(ErrorOf([] { initial_seed("gpu"); }),
            "seed: unrecognized device `gpu, expecting cpu or cuda:N");
  EXPECT_EQ(initial_seed("cpu"), 42u);
  if (cuda_device_count() == 0) {
    EXPECT_EQ(ErrorOf([] { seed_device("cuda:0", 1); }), "seed: no CUDA devices available");
  } else {
    seed_device("cuda:0", 7);
    EXPECT_EQ(initial_seed("cuda:0"), 7u);
    const at::Tensor on_gpu = at::rand({3}, at::Device(at::kCUDA, 0));
    seed_device("cuda:0", 7);
    EXPECT_TRUE(at::equal(on_gpu, at::rand({3}, at::Device(at::kCUDA, 0))));
  }
}

TEST_F(EnvironmentTest, CudaDevicesAndSync) {
  EXPECT_EQ(cuda_device_count(), static_cast<std::int64_t>(at::getNumGPUs()));
  EXPECT_EQ(static_cast<std::int64_t>(cuda_device_names().size()), cuda_device_count());
  auto scope = Scope::Open();
  sync(tensor(at::ones({1})));  // a CPU tensor: nothing to wait for
  if (cuda_device_count() == 0) {
    EXPECT_EQ(ErrorOf([] { cuda_device(); }), "cudadevice: no CUDA devices available");
    EXPECT_EQ(ErrorOf([] { set_cuda_device("cuda:0"); }), "cudadevice: no CUDA devices available");
    sync();  // nothing to wait for, as in ktorch
    EXPECT_EQ(ErrorOf([] { sync(0); }), "sync: no CUDA devices available");
    EXPECT_EQ(ErrorOf([] { sync("cuda:0"); }), "sync: no CUDA devices available");
  } else {
    set_cuda_device("cuda:0");
    EXPECT_EQ(cuda_device(), "cuda:0");
    sync();
    sync(0);
    sync("cuda:0");
    EXPECT_THAT(ErrorOf([] { sync(cuda_device_count()); }), HasSubstr("sync: no CUDA device"));
  }
  sync("cpu");  // nothing to wait for
}

TEST_F(EnvironmentTest, SettingsReadAndWriteLibtorch) {
  const BuildFeatures f = build_features();
  EXPECT_EQ(f.mkl, at::hasMKL());
  EXPECT_EQ(f.openmp, at::hasOpenMP());
  EXPECT_EQ(f.cuda, at::hasCUDA());
  const std::int64_t n = threads();
  EXPECT_EQ(n, at::get_num_threads());
  set_threads(1);
  EXPECT_EQ(at::get_num_threads(), 1);
  set_threads(n);
  EXPECT_EQ(ErrorOf([] { set_threads(0); }), "setting: threads must be from 1 to 1024, given 0");
  EXPECT_EQ(threads(), n);
  set_interop_threads(interop_threads());  // the current count is always accepted
  EXPECT_EQ(interop_threads(), at::get_num_interop_threads());
  set_deterministic(2);
  EXPECT_TRUE(at::globalContext().deterministicAlgorithms());
  EXPECT_TRUE(at::globalContext().deterministicAlgorithmsWarnOnly());
  EXPECT_EQ(deterministic(), 2);
  EXPECT_THAT(ErrorOf([] { set_deterministic(3); }), HasSubstr("setting: deterministic expects 0"));
  EXPECT_EQ(deterministic(), 2);
  set_deterministic(0);
  EXPECT_FALSE(at::globalContext().deterministicAlgorithms());
  set_cudnn_benchmark(true);
  EXPECT_TRUE(at::globalContext().benchmarkCuDNN());
  set_cudnn_benchmark(false);
  set_cudnn_deterministic(true);
  EXPECT_TRUE(at::globalContext().deterministicCuDNN());
  set_cudnn_deterministic(false);
}

TEST_F(EnvironmentTest, ConfigAndVersion) {
  const std::vector<std::string> lines = config();
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(at::show_config(), HasSubstr(lines[0]));
  EXPECT_EQ(version(), absl::StrFormat("%d.%d.%d", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                                       TORCH_VERSION_PATCH));
  EXPECT_DOUBLE_EQ(version_number(), TORCH_VERSION_MAJOR + TORCH_VERSION_MINOR / 100.0 +
                                         TORCH_VERSION_PATCH / 10000.0);
}

TEST_F(HelpTest, KindTablesFollowTheKindTables) {
  const std::vector<KindHelp> modules = module_help();
  ASSERT_EQ(modules.size(), nn::ModuleKindNames().size());
  for (const KindHelp& k : modules) {
    const nn::ModuleKind* kind = nn::FindModuleKind(k.kind);
    ASSERT_NE(kind, nullptr) << k.kind;
    ASSERT_EQ(k.defaults.size(), kind->options.size()) << k.kind;
    EXPECT_EQ(k.inputs, kind->inputs);
  }
  EXPECT_EQ(loss_help().size(), nn::LossKindNames().size());
  EXPECT_EQ(optimizer_help().size(), 7u);
  EXPECT_TRUE(std::is_sorted(modules.begin(), modules.end(),
                             [](const KindHelp& a, const KindHelp& b) { return a.kind < b.kind; }))
      << "ktorch lists kinds by name";
  const KindHelp linear = kind_help("linear");
  ASSERT_EQ(linear.defaults.size(), 3u);
  EXPECT_EQ(linear.defaults[0].first, "in");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(linear.defaults[0].second));  // required
  EXPECT_EQ(linear.defaults[2].second, nn::OptionValue(true));
  // ktorch's sample values in place of the required options' nulls
  EXPECT_EQ(linear.example[0].second, nn::OptionValue(std::int64_t{784}));
  EXPECT_EQ(linear.example[2].second, nn::OptionValue(true));
  ASSERT_NE(linear.facts, nullptr);
  EXPECT_EQ(linear.pytorch, "torch.nn.Linear");
  EXPECT_EQ(kind_help("lamb").facts, nullptr);
  const KindHelp adamw = kind_help("adamw");
  EXPECT_EQ(std::get<double>(adamw.defaults.at(4).second), 0.01);
  EXPECT_EQ(kind_help("ce").kind, "ce");
  EXPECT_EQ(ErrorOf([] { kind_help("nope"); }), "help: unrecognized topic or kind `nope");
}

TEST_F(HelpTest, EveryModuleAndLossKindHasKtorchsFactsAndNoOtherDoes) {
  std::set<std::string> kinds;
  for (const std::string& name : nn::ModuleKindNames()) kinds.insert(name);
  for (const std::string& name : nn::LossKindNames()) kinds.insert(name);
  std::set<std::string> with_facts;
  for (const KindFacts& f : AllKindFacts()) {
    with_facts.insert(f.kind);
    EXPECT_EQ(FindKindFacts(f.kind), &f);
    EXPECT_FALSE(f.pytorch.empty()) << f.kind;
    EXPECT_LE(f.required, static_cast<std::int64_t>(f.args.size())) << f.kind;
    // every sample value names an option of the kind
    const nn::ModuleKind* kind = nn::FindModuleKind(f.kind);
    if (kind == nullptr) kind = nn::FindLossKind(f.kind);
    ASSERT_NE(kind, nullptr) << f.kind;
    for (const auto& sample : f.example) {
      const std::string& name = sample.first;
      EXPECT_TRUE(std::any_of(kind->options.begin(), kind->options.end(),
                              [&](const nn::OptionSpec& o) { return o.name == name; }))
          << f.kind << " has no option " << name;
    }
  }
  EXPECT_EQ(with_facts, kinds);
  EXPECT_EQ(FindKindFacts("sgd"), nullptr);
}

TEST_F(HelpTest, BackwardModesAreThoseBackwardAccepts) {
  const auto& modes = backward_modes();
  ASSERT_EQ(modes.size(), 4u);
  EXPECT_EQ(modes[0].name, "free");
  EXPECT_EQ(modes[0].description, "free graph, no higher order derivatives");
  EXPECT_EQ(modes[3].name, "createfree");
  EXPECT_FALSE(modes[3].retain);
  EXPECT_TRUE(modes[3].create);
  for (const BackwardModeInfo& m : modes) EXPECT_EQ(BackwardModeFromName(m.name), m.mode) << m.name;
  // retain keeps the graph for a second backward; free does not.
  auto scope = Scope::Open();
  const at::Tensor x = at::ones({2}).requires_grad_();
  const Handle y = tensor((x * x).sum());
  backward(y, *BackwardModeFromName("retain"));
  backward(y, *BackwardModeFromName("free"));
  EXPECT_THAT(ErrorOf([&] { backward(y); }), HasSubstr("backward through the graph a second time"));
}

TEST_F(HelpTest, TopicsAndTypeTables) {
  std::vector<std::string> names;
  for (const auto& [name, text] : help_topics()) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("backward", "device", "dtype", "ktype", "loss", "module",
                                 "optimizer", "tensor"));
  for (const auto& [dtype, k] : dtype_ktypes()) {
    EXPECT_EQ(KTypeOf(*DtypeFromName(dtype)), k);
  }
  EXPECT_EQ(tensor_option_defaults().size(), 6u);
}

}  // namespace environment_test
}  // namespace kscope
