#include "api/model/model_options.h"

#include <cmath>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

constexpr const char* kMetricNames[] = {"loss",      "batchloss",     "accuracy",    "matches",
                                        "predict",   "output",        "hidden",      "hiddencell",
                                        "grouploss", "groupaccuracy", "groupmatches"};

// One option: its spec with the training default, the testing default, and whether testing has it.
struct Row {
  const char* name;
  OptionType type;
  OptionValue train;
  OptionValue test;
  bool in_test;
};

const std::vector<Row>& Rows() {
  static const auto* rows = new std::vector<Row>{
      {"batchsize", OptionType::kLong, std::int64_t{32}, std::int64_t{100}, true},
      {"task", OptionType::kLong, std::int64_t{0}, std::int64_t{0}, true},
      {"tasks", OptionType::kLong, std::int64_t{1}, std::int64_t{1}, true},
      {"droplast", OptionType::kBool, false, false, true},
      {"hidden", OptionType::kBool, false, false, true},
      {"shuffle", OptionType::kBool, false, {}, false},
      {"shufflecuda", OptionType::kBool, false, {}, false},
      {"shuffleseed", OptionType::kLong, std::int64_t{0}, {}, false},
      {"sync", OptionType::kBool, false, {}, false},
      {"clipgroup", OptionType::kBool, false, {}, false},
      {"clipnorm", OptionType::kDoublesOrNull, {}, {}, false},
      {"clipvalue", OptionType::kDoubleOrNull, {}, {}, false},
      {"tensor", OptionType::kBool, false, false, true},
      {"dictionary", OptionType::kBool, false, false, true},
      {"metrics", OptionType::kSymbols, std::vector<std::string>{"loss"},
       std::vector<std::string>{"loss"}, true},
      // kscope's own: mixed precision (none, bf16 or fp16).
      {"amp", OptionType::kSymbol, std::string("none"), std::string("none"), true},
      // kscope's own: training steps captured as a CUDA graph and replayed.
      {"graph", OptionType::kBool, false, {}, false},
  };
  return *rows;
}

std::vector<OptionSpec> MakeSpecs(DataMode mode) {
  std::vector<OptionSpec> specs;
  for (const Row& r : Rows()) {
    if (mode == DataMode::kTrain) specs.push_back(OptionSpec{r.name, r.type, r.train});
    if (mode == DataMode::kTest && r.in_test) specs.push_back(OptionSpec{r.name, r.type, r.test});
  }
  return specs;
}

absl::Span<const OptionSpec> Specs(DataMode mode) {
  static const auto* train = new std::vector<OptionSpec>(MakeSpecs(DataMode::kTrain));
  static const auto* test = new std::vector<OptionSpec>(MakeSpecs(DataMode::kTest));
  return mode == DataMode::kTrain ? *train : *test;
}

const char* ModeName(DataMode mode) { return mode == DataMode::kTrain ? "train" : "test"; }

void CheckName(DataMode mode, const std::string& name) {
  for (const OptionSpec& s : Specs(mode)) {
    if (name == s.name) return;
  }
  Fail("unrecognized %s setting: %s", ModeName(mode), name);
}

// A clipnorm value as stored: null, or (max norm; order), the order 2 unless given.
OptionValue ClipNormValue(const OptionValue& v) {
  std::vector<double> d;
  if (const auto* j = std::get_if<std::int64_t>(&v)) {
    d = {static_cast<double>(*j)};
  } else if (const auto* f = std::get_if<double>(&v)) {
    d = {*f};
  } else if (const auto* longs = std::get_if<std::vector<std::int64_t>>(&v)) {
    d.assign(longs->begin(), longs->end());
  } else if (const auto* doubles = std::get_if<std::vector<double>>(&v)) {
    d = *doubles;
  } else {
    return v;  // null, or a type Parse rejects
  }
  if (d.empty()) return std::monostate();
  if (d.size() > 2)
    Fail("train: clipnorm expects a max norm and an optional norm order, given %d numbers",
         d.size());
  return std::vector<double>{d[0], d.size() == 2 ? d[1] : 2.0};
}

RunOptions Typed(DataMode mode, const OptionSet& s) {
  const char* fn = ModeName(mode);
  const bool train = mode == DataMode::kTrain;
  RunOptions o{};
  o.batchsize = s.Long("batchsize");
  o.droplast = s.Bool("droplast");
  o.hidden = s.Bool("hidden");
  o.task = s.Long("task");
  o.tasks = s.Long("tasks");
  o.tensor = s.Bool("tensor");
  o.dictionary = s.Bool("dictionary");
  if (o.batchsize < 0) Fail("batchsize: cannot be less than zero, given %d", o.batchsize);
  if (o.task < 0) Fail("task: cannot be less than zero, given %d", o.task);
  if (o.tasks < 1) Fail("tasks: cannot be less than one, given %d", o.tasks);
  if (o.task >= o.tasks) Fail("%s: task %d must be less than tasks(%d)", fn, o.task, o.tasks);
  if (o.tasks > 1 && o.batchsize == 0)
    Fail("%s: %d tasks require a non-zero batchsize", fn, o.tasks);
  for (const std::string& name : s.Symbols("metrics")) {
    std::size_t i = 0;
    while (i < std::size(kMetricNames) && name != kMetricNames[i]) ++i;
    if (i == std::size(kMetricNames)) Fail("%s: unrecognized metric `%s", fn, name);
    o.metrics.push_back(static_cast<Metric>(i));
  }
  const std::string& amp = s.Symbol("amp");
  if (amp == "bf16") {
    o.amp = at::kBFloat16;
  } else if (amp == "fp16") {
    o.amp = at::kHalf;
  } else if (amp != "none") {
    Fail("%s: amp expects none, bf16 or fp16, given `%s", fn, amp);
  }
  if (!train) return o;
  o.shuffle = s.Bool("shuffle");
  o.shufflecuda = s.Bool("shufflecuda");
  o.shuffleseed = s.Long("shuffleseed");
  o.sync = s.Bool("sync");
  o.clipgroup = s.Bool("clipgroup");
  o.graph = s.Bool("graph");
  if (!s.IsNull("clipnorm")) {
    const std::vector<double>& d = s.Doubles("clipnorm");
    if (!(d[0] >= 0) || !(d[1] > 0))
      Fail("train: clipnorm expects a non-negative max norm and a positive order");
    o.clipnorm = ClipNorm{d[0], d[1]};
  }
  if (!s.IsNull("clipvalue")) o.clipvalue = s.Double("clipvalue");
  return o;
}

}  // namespace

const char* MetricName(Metric m) { return kMetricNames[static_cast<int>(m)]; }

ModelOptions::ModelOptions(DataMode mode)
    : ModelOptions(mode, OptionSet::Parse(ModeName(mode), Specs(mode), {}, {})) {}

ModelOptions::ModelOptions(DataMode mode, OptionSet set)
    : mode_(mode), set_(std::move(set)), typed_(Typed(mode, set_)) {}

NamedValues ModelOptions::Values(bool all) const { return set_.Values(all); }

OptionValue ModelOptions::Value(const std::string& name) const {
  CheckName(mode_, name);
  return set_.At(name.c_str());
}

void ModelOptions::Set(const NamedValues& values) {
  NamedValues merged = set_.Values(true);
  auto assign = [&](const std::string& name, OptionValue value) {
    for (auto& [n, v] : merged) {
      if (n == name) {
        v = std::move(value);
        return;
      }
    }
  };
  absl::flat_hash_set<std::string> seen;
  for (const auto& [name, value] : values) {
    CheckName(mode_, name);
    if (!seen.insert(name).second)
      Fail("%s: option `%s given more than once", ModeName(mode_), name);
    const OptionValue v = name == "clipnorm" ? ClipNormValue(value) : value;
    const bool null = std::holds_alternative<std::monostate>(v);
    if (name == "clipnorm" && !null) assign("clipvalue", std::monostate());
    if (name == "clipvalue" && !null) assign("clipnorm", std::monostate());
    assign(name, v);
  }
  ModelOptions next(mode_, OptionSet::Parse(ModeName(mode_), Specs(mode_), {}, merged));
  *this = std::move(next);
}

}  // namespace kscope::nn
