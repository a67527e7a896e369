// joins.cc — ja, js, jk and jv: appends that grow geometrically and may move the object.
//
// A move updates the caller's K*; the old address is marked moved, so stale copies of it are
// caught as use after r0. A join on an object with r > 0 is allowed (q mutates in place, and
// every holder sees the change) but reported as a shared-mutation warning.
#include <cstring>
#include <vector>

#include "absl/strings/str_format.h"
#include "q/convert/k_abi.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/symbols.h"
#include "tests/khost/validate.h"

namespace khost::internal {
namespace {

constexpr int kAnyVector = -1;

// Checks the target of a join. Returns false (after reporting) if nothing may be appended.
bool CheckTarget(K* x, const char* api, int type) {
  if (x == nullptr) {
    Emit(Check::kBadPointer, absl::StrFormat("%s: NULL K*", api));
    return false;
  }
  if (!CheckEntry(*x, api)) return false;
  const Status s = Lookup(*x);
  K target = *x;
  if (type == kAnyVector ? !IsVectorType(target->t) : target->t != type) {
    Emit(Check::kJoinMisuse,
         absl::StrFormat("%s on object #%d of type %d", api, s.serial, target->t), s.serial,
         s.type);
    return false;
  }
  if (target->u != 0) {
    Emit(Check::kJoinMisuse,
         absl::StrFormat("%s on object #%d, which has attribute %d", api, s.serial, target->u),
         s.serial, s.type);
  }
  if (target->r > 0) {
    Emit(Check::kSharedMutation,
         absl::StrFormat("%s mutates object #%d in place while it has r=%d", api, s.serial,
                         target->r),
         s.serial, s.type);
  }
  return true;
}

// Appends `count` items of the target's width from `items`; updates *x and returns it.
K Append(K* x, const void* items, std::int64_t count) {
  const std::size_t width = ItemWidth((*x)->t);
  const std::size_t used = static_cast<std::size_t>((*x)->n) * width;
  *x = Grow(*x, used + static_cast<std::size_t>(count) * width);
  if (count > 0)
    std::memcpy(static_cast<char*>(kabi::Payload(*x)) + used, items,
                static_cast<std::size_t>(count) * width);
  (*x)->n += count;
  return *x;
}

}  // namespace
}  // namespace khost::internal

using khost::internal::Append;
using khost::internal::CheckTarget;

kabi::K kabi::ja(K* x, void* item) {
  if (!CheckTarget(x, "ja", khost::internal::kAnyVector)) return x == nullptr ? nullptr : *x;
  if (item == nullptr) {
    khost::Emit(khost::Check::kBadPointer, "ja: NULL item pointer");
    return *x;
  }
  return Append(x, item, 1);
}

kabi::K kabi::js(K* x, char* symbol) {
  if (!CheckTarget(x, "js", kSymbol)) return x == nullptr ? nullptr : *x;
  if (!khost::IsInterned(symbol)) {
    khost::Emit(khost::Check::kNotInterned, "js: the symbol was not interned with ss/sn");
  }
  return Append(x, &symbol, 1);
}

kabi::K kabi::jk(K* x, K y) {
  const bool usable = khost::internal::CheckEntry(y, "jk", khost::internal::kAllowNull);
  if (!CheckTarget(x, "jk", kMixed)) {
    if (usable) r0(y);  // jk takes y in every case
    return x == nullptr ? nullptr : *x;
  }
  if (y == nullptr) khost::Emit(khost::Check::kBadPointer, "jk: NULL item");
  return Append(x, &y, 1);
}

kabi::K kabi::jv(K* x, K y) {
  if (!CheckTarget(x, "jv", khost::internal::kAnyVector) || !khost::internal::CheckEntry(y, "jv")) {
    return x == nullptr ? nullptr : *x;
  }
  if (y->t != (*x)->t) {
    khost::Emit(khost::Check::kJoinMisuse,
                absl::StrFormat("jv of type %d onto type %d", y->t, (*x)->t));
    return *x;
  }
  // y may be *x itself, whose payload moves when it grows: copy the items first.
  const std::size_t bytes = static_cast<std::size_t>(y->n) * khost::internal::ItemWidth(y->t);
  std::vector<char> items(static_cast<const char*>(Payload(y)),
                          static_cast<const char*>(Payload(y)) + bytes);
  if (y->t == kMixed) {
    for (std::int64_t i = 0; i < y->n; ++i) r1(Items(y)[i]);
  }
  return Append(x, items.data(), y->n);
}
