// plugin_fuzzer — libFuzzer target for the q plugin, driven through the k host.
//
// Each input is decoded into a sequence of calls: a function of fns (every exported name is
// reachable but `group` and `checkpoint`, see kNotFuzzed; the files of png and resume confined
// to a directory of its own, see kFileArguments) applied to a random k value — atoms and
// vectors of the basic types, symbols (drawn from a few common words, or read from the input as
// text, where the dictionary ktorch.dict's option words and names land), general lists,
// dictionaries, `::`, and pointers, both live ones (made at the start of the input) and stale ids.
// Calls go through khost::Call, so every host check runs; any error-severity report aborts (a
// finding), as does a crash or a leak after the input's handles are released. Built by
// tests/fuzz/CMakeLists.txt with clang (-DKSCOPE_FUZZ=ON); run from the kept corpus with the
// dictionary (tests/fuzz/README.md):
//   build-san/tests/fuzz/plugin_fuzzer -dict=tests/fuzz/ktorch.dict NEW_DIR tests/fuzz/corpus
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "scope/scope_stack.h"
#include "tests/khost/khost.h"
#include "tests/temp_directory.h"

extern "C" kabi::K fns(kabi::K);

namespace {

using kabi::K;
using khost::KRef;

constexpr const char* kWords[] = {
    "randn",    "rand",      "zeros",   "ones",   "empty",      "full",      "randint",
    "arange",   "linspace",  "eye",     "grad",   "nograd",     "cpu",       "float",
    "double",   "long",      "int",     "bool",   "half",       "short",     "byte",
    "char",     "strict",    "scope",   "retain", "create",     "free",      "createfree",
    "a",        "b",         "x",       "weight", "bias",       "fanin",     "fanout",
    "relu",     "leakyrelu", "tanh",    "linear", "conv2d",     "cfloat",    "cdouble",
    "chalf",    "sparse",    "strided", "pinned", "contiguous", "channel2d", "complex",
    "logspace", "randperm",  "range",   "ortho",  "forward",    "backward",  "reduced",
    "complete", "gesvd",     "fro",     "nuc",    "sum",        "mean",      "max",
    "min"};
// Exported names the fuzzer leaves alone: `group` waits on the network (or a file) for peers
// until its timeout, which would stall the run rather than test anything; `checkpoint` writes a
// file of a model (tests/checkpoint_test.cc covers it). ConfineFileArgument would keep its file
// in place too, but a name more in this list remaps every input of the kept corpus to other calls.
constexpr const char* kNotFuzzed[] = {"group", "checkpoint"};
// The functions that write or read the file a symbol argument names, and that argument's place.
struct FileArgument {
  const char* function;
  long long index;
};
constexpr FileArgument kFileArguments[] = {{"png", 0}, {"resume", 1}};
constexpr int kBasicTypes[] = {kabi::kBoolean, kabi::kByte, kabi::kShort,
                               kabi::kInt,     kabi::kLong, kabi::kReal,
                               kabi::kFloat,   kabi::kChar, kabi::kSymbol};

struct Session {
  KRef functions;                  // fns' dictionary
  std::vector<std::string> names;  // the names fuzzed, in fns' order
  std::vector<K> bodies;           // names[i]'s function, borrowed from `functions`
};

Session& Plugin() {
  static Session* session = [] {
    auto* s = new Session;
    KRef null(kq::Null());
    s->functions = KRef(fns(null.get()));
    K keys = kabi::DictKeys(s->functions.get());
    for (long long i = 0; i < keys->n; ++i) {
      const std::string name = kabi::Symbols(keys)[i];
      if (std::find(std::begin(kNotFuzzed), std::end(kNotFuzzed), name) == std::end(kNotFuzzed)) {
        s->names.push_back(name);
        s->bodies.push_back(kabi::Items(kabi::DictValues(s->functions.get()))[i]);
      }
    }
    return s;
  }();
  return *session;
}

K Function(const std::string& name) {
  const Session& s = Plugin();
  for (std::size_t i = 0; i < s.names.size(); ++i) {
    if (s.names[i] == name) return s.bodies[i];
  }
  std::abort();
}

// A symbol in the file place of a call's general list (kFileArguments) becomes a file of the
// fuzzer's own directory, so no input writes (or reads, say /dev/zero) anywhere else; every other
// argument, and every other form of that one, stays as fuzzed.
void ConfineFileArgument(const std::string& name, K args) {
  static const kscope::testing::TempDirectory directory("plugin_fuzzer");
  for (const FileArgument& f : kFileArguments) {
    if (name != f.function || args->t != kabi::kMixed || args->n <= f.index) continue;
    K& file = kabi::Items(args)[f.index];
    if (file->t != -kabi::kSymbol) continue;
    kabi::r0(file);
    file = kq::Sym(directory.Join("file").c_str());
  }
}

// With KSCOPE_FUZZ_TRACE set, each call's name and outcome go to stderr (`plugin_fuzzer FILE`
// then shows what an input does).
khost::Result Call(const std::string& name, std::vector<K> args) {
  static const bool trace = std::getenv("KSCOPE_FUZZ_TRACE") != nullptr;
  khost::Result result = khost::Call(Function(name), args, name);
  if (trace)
    std::fprintf(stderr, "%s: %s\n", name.c_str(), result.failed ? result.error.c_str() : "ok");
  return result;
}

class ValueMaker {
 public:
  ValueMaker(FuzzedDataProvider* data, const std::vector<KRef>* live) : data_(data), live_(live) {}

  // A new k value (owned) of bounded size and depth.
  K Make(int depth) {
    switch (data_->ConsumeIntegralInRange(0, depth > 2 ? 4 : 7)) {
      case 0: return Atom();
      case 1: return Vector();
      case 2: return Pointer();
      case 3: return kq::Sym(Word().c_str());
      case 4: return kq::Null();
      case 5: {
        std::vector<K> items;
        const int n = data_->ConsumeIntegralInRange(0, 4);
        for (int i = 0; i < n; ++i) items.push_back(Make(depth + 1));
        return kq::List(items);
      }
      case 6: {
        const int n = data_->ConsumeIntegralInRange(1, 3);
        K keys = kabi::ktn(kabi::kSymbol, n);
        K values = kabi::ktn(kabi::kMixed, n);
        for (int i = 0; i < n; ++i) {
          kabi::Symbols(keys)[i] = kabi::ss(const_cast<char*>(Word().c_str()));
          kabi::Items(values)[i] = Make(depth + 1);
        }
        return kabi::xD(keys, values);
      }
      default: return Vector();
    }
  }

 private:
  // A symbol's text: one of kWords, or up to 24 bytes of the input (a dictionary word).
  std::string Word() {
    if (data_->ConsumeBool()) return data_->ConsumeRandomLengthString(24);
    return kWords[data_->ConsumeIntegralInRange<std::size_t>(0, std::size(kWords) - 1)];
  }
  int Type() {
    return kBasicTypes[data_->ConsumeIntegralInRange<std::size_t>(0, std::size(kBasicTypes) - 1)];
  }
  std::int64_t Small() { return data_->ConsumeIntegralInRange<std::int64_t>(-3, 40); }

  K Fill(K x, long long i) {
    switch (x->t) {
      case kabi::kSymbol: kabi::Symbols(x)[i] = kabi::ss(const_cast<char*>(Word().c_str())); break;
      case kabi::kReal: kabi::Reals(x)[i] = static_cast<float>(Small()) / 4; break;
      case kabi::kFloat: kabi::Floats(x)[i] = static_cast<double>(Small()) / 4; break;
      case kabi::kShort: kabi::Shorts(x)[i] = static_cast<std::int16_t>(Small()); break;
      case kabi::kInt: kabi::Ints(x)[i] = static_cast<std::int32_t>(Small()); break;
      case kabi::kLong: kabi::Longs(x)[i] = Small(); break;
      case kabi::kBoolean: kabi::Bytes(x)[i] = data_->ConsumeBool(); break;
      default: kabi::Bytes(x)[i] = static_cast<std::uint8_t>(Small()); break;
    }
    return x;
  }

  K Vector() {
    K x = kabi::ktn(Type(), data_->ConsumeIntegralInRange(0, 6));
    for (long long i = 0; i < x->n; ++i) Fill(x, i);
    return BoundShape(x);
  }

  // Integer vectors double as shapes (zeros, expand, repeat ...): once the product of their sizes
  // would pass kMaxShapeElements, the vector's later elements are 1, so that no call asks for a
  // tensor or a k result too large for the run's 4 GB (a 40x40x40x40x40 shape, or an `expand` to
  // one returned as k data: millions of k lists, an out-of-memory in CI's run). The input's bytes
  // are consumed as before.
  static constexpr std::int64_t kMaxShapeElements = std::int64_t{1} << 16;
  static K BoundShape(K x) {
    if (x->t != kabi::kShort && x->t != kabi::kInt && x->t != kabi::kLong) return x;
    std::int64_t elements = 1;
    for (long long i = 0; i < x->n; ++i) {
      const std::int64_t size = x->t == kabi::kShort ? kabi::Shorts(x)[i]
                                : x->t == kabi::kInt ? kabi::Ints(x)[i]
                                                     : kabi::Longs(x)[i];
      const std::int64_t factor = std::max<std::int64_t>(1, std::abs(size));
      if (elements * factor <= kMaxShapeElements) {
        elements *= factor;
      } else if (x->t == kabi::kShort) {
        kabi::Shorts(x)[i] = 1;
      } else if (x->t == kabi::kInt) {
        kabi::Ints(x)[i] = 1;
      } else {
        kabi::Longs(x)[i] = 1;
      }
    }
    return x;
  }

  K Atom() {
    K v = Vector();
    if (v->n == 0) {
      kabi::r0(v);
      return kq::Long(Small());
    }
    K atom = kabi::ka(-v->t);
    std::memcpy(&atom->g, kabi::Payload(v),
                v->t == kabi::kBoolean || v->t == kabi::kByte || v->t == kabi::kChar ? 1
                : v->t == kabi::kShort                                               ? 2
                : v->t == kabi::kInt || v->t == kabi::kReal                          ? 4
                                                                                     : 8);
    kabi::r0(v);
    return atom;
  }

  K Pointer() {
    if (!live_->empty() && data_->ConsumeBool()) {
      return kabi::r1(
          (*live_)[data_->ConsumeIntegralInRange<std::size_t>(0, live_->size() - 1)].get());
    }
    return kq::Enlist(kq::Long(data_->ConsumeIntegralInRange<std::int64_t>(-1, 1 << 20)));  // stale
  }

  FuzzedDataProvider* data_;
  const std::vector<KRef>* live_;
};

void Abort(const khost::Report& report) {
  if (report.severity != khost::Severity::kError) return;
  std::fprintf(stderr, "k host check failed: %s\n", report.message.c_str());
  std::abort();
}

}  // namespace

// ASan aborts on a request past its limit (2^40 bytes); with allocator_may_return_null the request
// fails as glibc's malloc's does, so that libtorch's own error ("not enough memory") reaches the
// plugin, as it would in a q session: a `conv2d` of 2^20 by 2^20 channels, say, sized by a stale
// pointer's number, is a q error, not a finding.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  khost::SetFreePolicy(khost::FreePolicy::kRelease);  // let ASan see every freed block
  khost::SetReportHandler(Abort);
  Plugin();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  FuzzedDataProvider data(bytes, size);
  const std::int64_t live_before = khost::Stats().live;
  {
    std::vector<KRef> live;
    for (const char* literal : {"(1 2 3.0;`grad)", "(`randn;2 3)", "0101b"}) {
      KRef arg(kq::Parse(literal));
      live.push_back(std::move(Call("tensor", {arg.get()}).value));
    }
    KRef items(kq::Parse("(1 2;3 4 5e)"));
    live.push_back(std::move(Call("vector", {items.get()}).value));
    ValueMaker make(&data, &live);
    const std::vector<std::string>& names = Plugin().names;
    for (int calls = data.ConsumeIntegralInRange(1, 6); calls > 0 && data.remaining_bytes() > 0;
         --calls) {
      const std::string& name =
          names[data.ConsumeIntegralInRange<std::size_t>(0, names.size() - 1)];
      std::vector<KRef> args;
      args.emplace_back(make.Make(0));
      if (name == "use") args.emplace_back(make.Make(0));
      ConfineFileArgument(name, args.front().get());
      std::vector<K> borrowed;
      for (const KRef& a : args) borrowed.push_back(a.get());
      Call(name, borrowed);
    }
    KRef null(kq::Null());
    Call("free", {null.get()});
    Call("setting", {KRef(kq::Parse("(`strict;0b)")).get()});
    const std::vector<kscope::ScopeId> open = kscope::OpenScopes();
    if (!open.empty()) kscope::CloseScopeNoThrow(open.front(), {});  // closes the inner ones too
  }
  if (khost::Stats().live != live_before) {
    std::fprintf(stderr, "k objects leaked by the input: %lld\n",
                 static_cast<long long>(khost::Stats().live - live_before));
    std::abort();
  }
  return 0;
}
