// symbols.cc — ss, sn, setm and the interning table.
#include "tests/khost/symbols.h"

#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "q/convert/k_abi.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"

namespace khost {
namespace {

struct SymbolTable {
  absl::Mutex mu;
  // Keys view the interned storage itself, which never moves or dies.
  absl::flat_hash_map<absl::string_view, char*> by_text ABSL_GUARDED_BY(mu);
  absl::flat_hash_set<const char*> pointers ABSL_GUARDED_BY(mu);
  int locked ABSL_GUARDED_BY(mu) = 0;  // setm
};

SymbolTable& Table() {
  static SymbolTable* table = new SymbolTable;
  return *table;
}

// ss/sn off the main thread need setm(1) first.
void CheckInterningThread(const char* api) {
  SymbolTable& t = Table();
  int locked;
  {
    absl::MutexLock lock(&t.mu);
    locked = t.locked;
  }
  if (locked == 0 && !internal::IsMainThread()) {
    Emit(Check::kThread, absl::StrFormat("%s off the main thread without setm(1)", api));
  }
}

char* CheckedIntern(const char* api, const char* text, long long n) {
  if (text == nullptr || n < 0) {
    Emit(Check::kBadPointer, absl::StrFormat("%s of a NULL text or negative length", api));
    return internal::Intern("");
  }
  CheckInterningThread(api);
  return internal::Intern(absl::string_view(text, static_cast<std::size_t>(n)));
}

}  // namespace

bool IsInterned(const char* p) {
  SymbolTable& t = Table();
  absl::MutexLock lock(&t.mu);
  return t.pointers.contains(p);
}

namespace internal {

char* Intern(absl::string_view text) {
  SymbolTable& t = Table();
  absl::MutexLock lock(&t.mu);
  auto it = t.by_text.find(text);
  if (it != t.by_text.end()) return it->second;
  char* stored = new char[text.size() + 1];
  std::memcpy(stored, text.data(), text.size());
  stored[text.size()] = '\0';
  t.by_text.emplace(absl::string_view(stored, text.size()), stored);
  t.pointers.insert(stored);
  return stored;
}

}  // namespace internal
}  // namespace khost

char* kabi::ss(char* text) {
  return khost::CheckedIntern("ss", text,
                              text == nullptr ? 0 : static_cast<long long>(std::strlen(text)));
}

char* kabi::sn(char* text, long long n) { return khost::CheckedIntern("sn", text, n); }

int kabi::setm(int locked) {
  khost::SymbolTable& t = khost::Table();
  absl::MutexLock lock(&t.mu);
  return std::exchange(t.locked, locked);
}
