// api/nn/state_dict.h and the pickles under it (api/core/pickle_rewrite.h): a module's state
// dict saved under PyTorch's names in PyTorch's order, loaded back by name into another module
// (strict and not), onto its dtype; every mismatch and bad file named, changing nothing; a pickle
// as Python's pickle module writes an OrderedDict with `_metadata` read as a dict. The round
// trips through PyTorch itself are in pytorch_interop_test.cc.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <ATen/Functions.h>
#include <ATen/core/Dict.h>
#include <caffe2/serialize/inline_container.h>

#include "api/core/move.h"
#include "api/core/pickle_file.h"
#include "api/core/pickle_rewrite.h"
#include "api/model/model.h"
#include "api/nn/loss.h"
#include "api/nn/module_parameters.h"
#include "api/nn/optimizer.h"
#include "api/nn/state_dict.h"
#include "gmock/gmock.h"
#include "tests/error_text.h"
#include "tests/module_case.h"
#include "tests/temp_directory.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace {

using testing::Def;
using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::IsEmpty;
using testing::J;
using testing::Sequential;
using ::testing::StartsWith;
using testing::TempDirectory;

class StateDictTest : public testing::LeakCheckTest {
 protected:
  std::string File(const char* name) const { return dir_.Join(name); }
  const TempDirectory dir_{"state_dict_test"};
};

// conv, batchnorm, relu, flatten, linear on 1x5x5 images; its values drawn after seeding.
Handle ConvNet(std::uint64_t seed) {
  at::manual_seed(seed);
  return module(Sequential({Def("conv2d", {J(1), J(2), J(3)}), Def("batchnorm2d", {J(2)}),
                            Def("relu"), Def("flatten"), Def("linear", {J(18), J(3)})}));
}

Handle Mlp(std::uint64_t seed, std::vector<std::int64_t> widths) {
  at::manual_seed(seed);
  std::vector<ModuleDefinition> layers;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    if (i > 0) layers.push_back(Def("relu"));
    layers.push_back(Def("linear", {J(widths[i]), J(widths[i + 1])}));
  }
  return module(Sequential(std::move(layers)));
}

// Every parameter and buffer of q by name, as host copies.
std::map<std::string, at::Tensor> Values(Handle q) {
  std::map<std::string, at::Tensor> out;
  for (const auto& p : nn::ModuleOrModelsModule("test", q)->module().named_parameters())
    out[p.key()] = p.value().detach().clone();
  for (const auto& b : nn::ModuleOrModelsModule("test", q)->module().named_buffers())
    out[b.key()] = b.value().detach().clone();
  return out;
}

void ExpectSameValues(const std::map<std::string, at::Tensor>& a,
                      const std::map<std::string, at::Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, t] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_TRUE(at::equal(t, b.at(name))) << name;
  }
}

// The names and tensors of a state dict file, in its order.
std::vector<std::pair<std::string, at::Tensor>> ReadEntries(const std::string& path) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  ReadPickleFile("test", path, "a state dict", [&](const c10::IValue& v) {
    for (const auto& item : v.toGenericDict())
      out.emplace_back(item.key().toStringRef(), item.value().toTensor());
  });
  return out;
}

void WriteDict(const std::string& path,
               const std::vector<std::pair<std::string, c10::IValue>>& items) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  for (const auto& [key, value] : items) dict.insert(key, value);
  WritePickleFile("test", path, dict);
}

TEST_F(StateDictTest, SavedUnderPyTorchsNamesInItsOrder) {
  auto scope = Scope::Open();
  const Handle q = ConvNet(1);
  save_state_dict(q, File("q.pt"));
  std::vector<std::string> names;
  const auto entries = ReadEntries(File("q.pt"));
  for (const auto& [name, t] : entries) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                 "1.running_var", "1.num_batches_tracked", "4.weight", "4.bias"));
  const auto values = Values(q);
  for (const auto& [name, t] : entries) {
    EXPECT_TRUE(at::equal(t, values.at(name))) << name;
    EXPECT_FALSE(t.requires_grad()) << name;
  }
  EXPECT_EQ(entries[6].second.scalar_type(), at::kLong);
}

TEST_F(StateDictTest, ALoadedModuleComputesWhatTheSavedOneDid) {
  auto scope = Scope::Open();
  const Handle a = ConvNet(1), b = ConvNet(2);
  const at::Tensor x = at::randn({4, 1, 5, 5});
  forward(a, x);  // training mode: batchnorm's running statistics move
  save_state_dict(a, File("a.pt"));
  const StateDictKeys left = load_state_dict(b, File("a.pt"));
  EXPECT_THAT(left.missing, IsEmpty());
  EXPECT_THAT(left.unexpected, IsEmpty());
  ExpectSameValues(Values(a), Values(b));
  EXPECT_TRUE(at::equal(evaluate(a, x).tensor(), evaluate(b, x).tensor()));
}

TEST_F(StateDictTest, AModelStandsForItsModule) {
  auto scope = Scope::Open();
  const Handle a = Mlp(1, {4, 8, 3}), b = Mlp(2, {4, 8, 3});
  const Handle m = model({b, loss("ce"), opt("sgd", b, {0.1})});
  save_state_dict(a, File("a.pt"));
  load_state_dict(m, File("a.pt"));
  ExpectSameValues(Values(a), Values(m));
  save_state_dict(m, File("m.pt"));
  EXPECT_EQ(ReadEntries(File("m.pt")).size(), 4u);
}

TEST_F(StateDictTest, AStrictLoadNamesEveryDifferenceAndChangesNothing) {
  auto scope = Scope::Open();
  const Handle a = Mlp(1, {4, 8, 3}), longer = Mlp(2, {4, 8, 3, 2}), shorter = Mlp(3, {4, 8});
  save_state_dict(a, File("a.pt"));
  const auto before = Values(longer);
  EXPECT_EQ(
      ErrorOf([&] { load_state_dict(longer, File("a.pt")); }),
      "loadstatedict: " + File("a.pt") + " does not match the module: missing `4.weight `4.bias");
  ExpectSameValues(Values(longer), before);
  EXPECT_EQ(ErrorOf([&] { load_state_dict(shorter, File("a.pt")); }),
            "loadstatedict: " + File("a.pt") +
                " does not match the module: unexpected `2.weight `2.bias");
  const Handle other = module(Sequential(
      {Def("linear", {J(4), J(8)}), Def("relu"), Def("linear", {J(8), J(3)}, {{"bias", false}})}));
  EXPECT_EQ(ErrorOf([&] { load_state_dict(other, File("a.pt")); }),
            "loadstatedict: " + File("a.pt") + " does not match the module: unexpected `2.bias");
}

TEST_F(StateDictTest, ALooseLoadTakesWhatMatchesAndReturnsTheRest) {
  auto scope = Scope::Open();
  const Handle a = Mlp(1, {4, 8, 3}), longer = Mlp(2, {4, 8, 3, 2}), shorter = Mlp(3, {4, 8});
  save_state_dict(a, File("a.pt"));
  const auto from = Values(a), before = Values(longer);
  const StateDictKeys left = load_state_dict(longer, File("a.pt"), /*strict=*/false);
  EXPECT_THAT(left.missing, ElementsAre("4.weight", "4.bias"));
  EXPECT_THAT(left.unexpected, IsEmpty());
  const auto after = Values(longer);
  for (const char* name : {"0.weight", "0.bias", "2.weight", "2.bias"})
    EXPECT_TRUE(at::equal(after.at(name), from.at(name))) << name;
  for (const char* name : {"4.weight", "4.bias"})
    EXPECT_TRUE(at::equal(after.at(name), before.at(name))) << name;
  const StateDictKeys extra = load_state_dict(shorter, File("a.pt"), /*strict=*/false);
  EXPECT_THAT(extra.missing, IsEmpty());
  EXPECT_THAT(extra.unexpected, ElementsAre("2.weight", "2.bias"));
  EXPECT_TRUE(at::equal(Values(shorter).at("0.weight"), from.at("0.weight")));
}

TEST_F(StateDictTest, SizesMustMatchStrictOrNot) {
  auto scope = Scope::Open();
  const Handle a = Mlp(1, {4, 8}), b = Mlp(2, {4, 6});
  save_state_dict(a, File("a.pt"));
  const auto before = Values(b);
  for (const bool strict : {true, false}) {
    EXPECT_EQ(
        ErrorOf([&] { load_state_dict(b, File("a.pt"), strict); }),
        "loadstatedict: " + File("a.pt") + ": `0.weight is 8 4 in the file, 6 4 in the module");
    ExpectSameValues(Values(b), before);
  }
}

TEST_F(StateDictTest, ValuesTakeTheModulesDtypeWithinTheirFamily) {
  auto scope = Scope::Open();
  const Handle q = Mlp(1, {3, 2});
  const at::Tensor w = at::randn({2, 3}, at::kDouble), b = at::randn({2}, at::kDouble);
  WriteDict(File("double.pt"), {{"0.weight", w}, {"0.bias", b}});
  load_state_dict(q, File("double.pt"));
  EXPECT_TRUE(at::equal(Values(q).at("0.weight"), w.to(at::kFloat)));
  Options doubles;
  doubles.dtype = at::kDouble;
  to(q, doubles);
  WriteDict(File("float.pt"), {{"0.weight", w.to(at::kFloat)}, {"0.bias", b.to(at::kFloat)}});
  load_state_dict(q, File("float.pt"));
  EXPECT_EQ(Values(q).at("0.bias").scalar_type(), at::kDouble);
  EXPECT_TRUE(at::equal(Values(q).at("0.bias"), b.to(at::kFloat).to(at::kDouble)));
  const auto before = Values(q);
  WriteDict(File("long.pt"), {{"0.weight", at::ones({2, 3}, at::kLong)}, {"0.bias", b}});
  EXPECT_EQ(ErrorOf([&] { load_state_dict(q, File("long.pt")); }),
            "loadstatedict: " + File("long.pt") +
                ": `0.weight is long in the file, double in the module");
  ExpectSameValues(Values(q), before);
}

TEST_F(StateDictTest, BadFilesAreNamedAndChangeNothing) {
  auto scope = Scope::Open();
  const Handle q = Mlp(1, {4, 8});
  save_state_dict(q, File("q.pt"));
  const auto before = Values(q);
  const std::string missing = File("none.pt");
  EXPECT_EQ(ErrorOf([&] { load_state_dict(q, missing); }),
            "loadstatedict: cannot read " + missing + ": No such file or directory");
  {
    std::ifstream in(File("q.pt"), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(File("truncated.pt"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    std::ofstream(File("text.pt")) << "0.weight 1 2 3\n";
  }
  WriteDict(File("numbers.pt"), {{"0.weight", 1}, {"0.bias", 2.5}});
  WritePickleFile("test", File("tuple.pt"), c10::ivalue::Tuple::create({1, 2}));
  for (const char* name : {"truncated.pt", "text.pt", "numbers.pt", "tuple.pt"}) {
    EXPECT_THAT(ErrorOf([&] { load_state_dict(q, File(name)); }),
                StartsWith("loadstatedict: " + File(name) +
                           " is not a state dict (a dict of tensors by name) ("))
        << name;
  }
  ExpectSameValues(Values(q), before);
  EXPECT_THAT(ErrorOf([&] { save_state_dict(q, File("no/such/dir.pt")); }),
              StartsWith("savestatedict: cannot write " + File("no/such/dir.pt") + ".tmp: "));
  const Handle l = loss("ce");
  EXPECT_EQ(ErrorOf([&] { load_state_dict(l, File("q.pt")); }),
            "loadstatedict: expected module or model, given loss");
}

// Python's pickle.dumps(od, protocol=2) of od = OrderedDict(w=1, inner=OrderedDict(x=2)) with
// od._metadata = OrderedDict([("", {"version": 1}), ("inner", {"version": 1})]): the form of
// torch.save(model.state_dict()) without the tensors. The metadata refers back to the memo of
// the string "inner".
constexpr char kPythonOrderedDict[] =
    "\x80\x02"
    "ccollections\nOrderedDict\nq\x00)Rq\x01(X\x01\x00\x00\x00wq\x02K\x01X\x05\x00\x00"
    "\x00innerq\x03h\x00)Rq\x04X\x01\x00\x00\x00xq\x05K\x02su}q\x06X\x09\x00\x00\x00_metadataq"
    "\x07h\x00)Rq\x08(X\x00\x00\x00\x00q\x09}q\x0aX\x07\x00\x00\x00versionq\x0bK\x01sh\x03}q"
    "\x0ch\x0bK\x01susb.";

std::string PythonOrderedDict() { return {kPythonOrderedDict, sizeof kPythonOrderedDict - 1}; }

TEST_F(StateDictTest, PythonsOrderedDictsBecomePlainDictsWithoutTheirMetadata) {
  constexpr char kExpected[] =
      "\x80\x02}q\x01(X\x01\x00\x00\x00wq\x02K\x01X\x05\x00\x00\x00innerq\x03}q\x04(X\x01\x00\x00"
      "\x00xq\x05K\x02uu.";
  EXPECT_EQ(LibtorchReadablePickle(PythonOrderedDict()),
            std::string(kExpected, sizeof kExpected - 1));
  // Through the archive reader: libtorch's unpickler gives the nested dicts.
  {
    caffe2::serialize::PyTorchStreamWriter writer(File("od.pt"));
    const std::string pickle = PythonOrderedDict();
    writer.writeRecord("data.pkl", pickle.data(), pickle.size());
    writer.writeEndOfFile();
  }
  ReadPickleFile("test", File("od.pt"), "a dict", [](const c10::IValue& v) {
    const auto dict = v.toGenericDict();
    ASSERT_EQ(dict.size(), 2u);
    EXPECT_EQ(dict.at("w").toInt(), 1);
    EXPECT_EQ(dict.at("inner").toGenericDict().at("x").toInt(), 2);
  });
}

TEST_F(StateDictTest, PicklesBeyondWhatLibtorchReadsAreRefused) {
  // pickle.dumps({"a": 1}, protocol=4): FRAME and SHORT_BINUNICODE.
  constexpr char kProtocol4[] =
      "\x80\x04\x95\x0a\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x01"
      "a\x94K\x01s.";
  EXPECT_EQ(ErrorOf([&] {
              LibtorchReadablePickle({kProtocol4, sizeof kProtocol4 - 1});
            }),
            "pickle opcode 0x95 at byte 2 (protocol 3 and later) is not supported: save with "
            "torch.save's default pickle_protocol");
  const std::string whole = PythonOrderedDict();
  EXPECT_EQ(ErrorOf([&] { LibtorchReadablePickle(whole.substr(0, 60)); }),
            "the pickle ends before its STOP opcode");
  EXPECT_EQ(ErrorOf([&] { LibtorchReadablePickle(whole.substr(0, 37)); }),
            "the pickle ends inside byte 34's argument");
  EXPECT_EQ(ErrorOf([&] { LibtorchReadablePickle("\x80\x02u."); }),
            "opcode 'u' at byte 2 has no mark");
  EXPECT_EQ(ErrorOf([&] {
              LibtorchReadablePickle(
                  "\x80\x02"
                  "ccollections\nOrderedDict\n.");
            }),
            "collections.OrderedDict at byte 2 is used other than as OrderedDict()");
}

}  // namespace
}  // namespace kscope
