// library.cc — dlopen, fns and calls by name.
#include "tests/khost/library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace khost {

Library::Library(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    error_ = absl::StrCat("dlopen: ", dlerror());
    return;
  }
  void* fns = dlsym(handle, "fns");
  if (fns == nullptr) {
    error_ = absl::StrCat(path, ": no symbol fns");
    return;
  }
  KRef loader(kabi::dl(fns, 1));
  Result listed = khost::Call(loader.get(), {}, "fns");
  if (!listed.ok()) {
    error_ = absl::StrCat("fns[]: '", listed.error);
    return;
  }
  dictionary_ = std::move(listed.value);
  kabi::K d = dictionary_.get();
  if (d == nullptr || d->t != kabi::kDictionary || kabi::DictKeys(d)->t != kabi::kSymbol ||
      kabi::DictValues(d)->t != kabi::kMixed) {
    error_ = "fns[] did not return a dictionary of symbols to functions";
    return;
  }
  for (long long i = 0; i < kabi::DictKeys(d)->n; ++i) {
    kabi::K f = kabi::Items(kabi::DictValues(d))[i];
    if (f->t != kabi::kDynamicLoad) {
      error_ =
          absl::StrCat("fns[]: ", kabi::Symbols(kabi::DictKeys(d))[i], " is not a dl function");
      return;
    }
    functions_[kabi::Symbols(kabi::DictKeys(d))[i]] = f;
  }
}

std::vector<std::string> Library::Names() const {
  std::vector<std::string> names;
  if (!dictionary_) return names;
  kabi::K keys = kabi::DictKeys(dictionary_.get());
  for (long long i = 0; i < keys->n; ++i) names.emplace_back(kabi::Symbols(keys)[i]);
  return names;
}

int Library::Rank(absl::string_view name) const {
  kabi::K f = Function(name);
  return f == nullptr ? 0 : internal::RankOf(f);
}

kabi::K Library::Function(absl::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

Result Library::Call(absl::string_view name) const { return Call(name, std::vector<kabi::K>{}); }

Result Library::Call(absl::string_view name, kabi::K arg) const {
  return Call(name, std::vector<kabi::K>{arg});
}

Result Library::Call(absl::string_view name, const std::vector<kabi::K>& args) const {
  kabi::K f = Function(name);
  if (f == nullptr) {
    Result result;
    result.failed = true;
    result.error = absl::StrCat("khost: no function '", name, "' in the library");
    return result;
  }
  return khost::Call(f, args, name);
}

}  // namespace khost
