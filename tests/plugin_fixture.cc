#include "tests/plugin_fixture.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "tests/build_paths.h"

namespace kscope::testing {

const khost::Library& Plugin() {
  static const khost::Library* const library = new khost::Library(kPluginPath);
  EXPECT_TRUE(library->ok()) << library->error();
  return *library;
}

KRef Q(absl::string_view literal) { return KRef(kq::Parse(literal)); }

KRef List(std::initializer_list<kabi::K> items) { return KRef(kq::List(items)); }

KRef ArgList(const std::vector<kabi::K>& items) {
  if (items.size() == 1) return KRef(items[0]);
  KRef list(kabi::ktn(kabi::kMixed, static_cast<long long>(items.size())));
  for (std::size_t i = 0; i < items.size(); ++i) kabi::Items(list.get())[i] = items[i];
  return list;
}

std::string S1(const KRef& x) { return khost::S1(x.get()); }

std::int64_t PointerId(const KRef& pointer) { return kabi::Items(pointer.get())[0]->j; }

namespace {

// Runs `name arg` and returns the result; failures are the caller's to check.
khost::Result Invoke(absl::string_view name, kabi::K arg) {
  return arg == nullptr ? Plugin().Call(name) : Plugin().Call(name, arg);
}

// The live pointers with an id above `after`, from the plugin's obj[].
std::vector<KRef> LivePointersAfter(std::int64_t after, std::string* table) {
  khost::Result rows = Plugin().Call("obj");
  std::vector<KRef> live;
  if (!rows.ok()) return live;
  *table = khost::Show(rows.value.get());
  kabi::K columns = kabi::DictValues(kabi::TableDict(rows.value.get()));
  kabi::K pointers = kabi::Items(columns)[0];
  for (long long i = 0; i < pointers->n; ++i) {
    kabi::K p = kabi::Items(pointers)[i];
    if (kabi::Items(p)[0]->j > after) live.emplace_back(kabi::r1(p));
  }
  return live;
}

}  // namespace

void PluginTest::SetUp() {
  Plugin();
  k_objects_ = std::make_unique<khost::LeakScope>();
  khost::Result probe = Invoke("tensor", nullptr);  // tensor[]: an empty tensor pointer
  ASSERT_TRUE(probe.ok()) << probe.error;
  first_id_ = PointerId(probe.value);
  ASSERT_TRUE(Invoke("free", probe.value.get()).ok());
}

void PluginTest::TearDown() {
  {
    khost::Result depth = Invoke("setting", Q("`scope").get());
    EXPECT_EQ(S1(depth.value), "0") << "the test left a scope open";
    std::string table;
    std::vector<KRef> leaked = LivePointersAfter(first_id_, &table);
    EXPECT_TRUE(leaked.empty()) << "pointers created by the test are still live:\n" << table;
    for (const KRef& p : leaked) Invoke("free", p.get());
    Invoke("setting", List({kq::Sym("strict"), kq::Bool(false)}).get());
  }
  k_objects_.reset();  // every k object of the test and of the checks above is released by now
}

namespace {

void AppendReals(kabi::K x, std::vector<float>* out) {
  if (x->t == kabi::kReal) {
    out->insert(out->end(), kabi::Reals(x), kabi::Reals(x) + x->n);
  } else if (x->t == kabi::kMixed) {
    for (long long i = 0; i < x->n; ++i) AppendReals(kabi::Items(x)[i], out);
  } else {
    ADD_FAILURE() << "not a real array: type " << static_cast<int>(x->t);
  }
}

}  // namespace

KRef At(kabi::K d, const char* key) {
  kabi::K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  for (long long i = 0; i < keys->n; ++i) {
    if (std::string(kabi::Symbols(keys)[i]) == key) return KRef(kabi::r1(kabi::Items(values)[i]));
  }
  ADD_FAILURE() << "no key " << key << " in " << khost::S1(d);
  return KRef(kq::Null());
}

KRef SpiralPoints(const KRef& noise, int n, int k) {
  std::vector<kabi::K> rows;
  for (int c = 0; c < k; ++c) {
    const double* e = kabi::Floats(kabi::Items(noise.get())[c]);
    for (int i = 0; i < n; ++i) {
      const double r = static_cast<double>(i) / (n - 1), angle = .2 * e[i] + 4 * r + 4 * c;
      rows.push_back(kq::Reals(
          {static_cast<float>(r * std::sin(angle)), static_cast<float>(r * std::cos(angle))}));
    }
  }
  return KRef(kq::List(rows));
}

KRef SpiralClasses(int n, int k) {
  KRef classes(kabi::ktn(kabi::kLong, static_cast<long long>(k) * n));
  for (long long i = 0; i < classes->n; ++i) kabi::Longs(classes.get())[i] = i / n;
  return classes;
}

std::vector<float> Reals(const KRef& x) {
  std::vector<float> out;
  AppendReals(x.get(), &out);
  return out;
}

KRef PluginTest::Call(absl::string_view name, const KRef& arg) {
  khost::Result r = Invoke(name, arg.get());
  EXPECT_TRUE(r.ok()) << name << " " << khost::S1(arg.get()) << ": '" << r.error;
  return std::move(r.value);
}

KRef PluginTest::Use(const KRef& a, const KRef& b) {
  khost::Result r = Plugin().Call("use", std::vector<kabi::K>{a.get(), b.get()});
  EXPECT_TRUE(r.ok()) << "use: '" << r.error;
  return std::move(r.value);
}

std::string PluginTest::Error(absl::string_view name, const KRef& arg) {
  khost::Result r = Invoke(name, arg.get());
  EXPECT_FALSE(r.ok()) << name << " " << khost::S1(arg.get()) << " did not fail";
  return r.error;
}

KRef PluginTest::Each(absl::string_view name, const std::vector<const KRef*>& items) {
  std::vector<kabi::K> results;
  for (const KRef* item : items) {
    KRef r = Call(name, *item);
    results.push_back(r ? r.release() : kq::Null());
  }
  return KRef(kq::Collapse(results));  // as q's each does: atoms of one type become a vector
}

}  // namespace kscope::testing
