// validate.cc — entry checks and the deep boundary walk.
#include "tests/khost/validate.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/symbols.h"

namespace khost::internal {
namespace {

using kabi::K;

bool IsList(K x) { return (x->t >= 0 && x->t <= 19) || x->t == kabi::kTable; }

// Deep validation of one graph: each object is examined once, children are checked before
// they are read.
class TreeWalk {
 public:
  explicit TreeWalk(absl::string_view where) : where_(where) {}

  bool Run(K root) {
    pending_.push_back(root);
    while (!pending_.empty()) {
      K x = pending_.back();
      pending_.pop_back();
      if (visited_.insert(x).second) Examine(x);
    }
    return ok_;
  }

 private:
  void Flag(Check check, K x, const std::string& what) {
    ok_ = false;
    const Status s = Lookup(x);
    Emit(check, absl::StrCat(where_, ": ", what), s.serial, s.type);
  }

  // Checks a child pointer of `parent`; queues it and returns true if it is a live object.
  bool Child(K parent, K child, const std::string& slot) {
    if (IsUnfilled(child)) {
      Flag(Check::kUnfilledSlot, parent,
           absl::StrFormat("%s of object #%d was never filled", slot, Lookup(parent).serial));
      return false;
    }
    const Status s = Lookup(child);
    const std::uint64_t parent_serial = Lookup(parent).serial;
    switch (s.kind) {
      case Kind::kLive: pending_.push_back(child); return true;
      case Kind::kFreed:
      case Kind::kMoved:
        ok_ = false;
        Emit(Check::kUseAfterFree,
             absl::StrFormat("%s: %s of object #%d holds object #%d, already freed", where_, slot,
                             parent_serial, s.serial),
             s.serial, s.type);
        return false;
      default:
        Flag(Check::kBadPointer, parent,
             absl::StrFormat("%s of object #%d holds %s", slot, parent_serial,
                             child == nullptr ? "NULL" : "a pointer the host did not allocate"));
        return false;
    }
  }

  void Examine(K x) {
    const std::uint64_t serial = Lookup(x).serial;
    switch (x->t) {
      case -kabi::kSymbol:
        if (!IsInterned(x->s)) {
          Flag(Check::kNotInterned, x,
               absl::StrFormat("symbol atom #%d holds a pointer ss did not return", serial));
        }
        break;
      case kabi::kSymbol:
        for (std::int64_t i = 0; i < x->n; ++i) {
          char* s = kabi::Symbols(x)[i];
          if (IsUnfilled(s)) {
            Flag(Check::kUnfilledSlot, x,
                 absl::StrFormat("item %d of symbol vector #%d was never filled", i, serial));
          } else if (!IsInterned(s)) {
            Flag(Check::kNotInterned, x,
                 absl::StrFormat("item %d of symbol vector #%d is not interned", i, serial));
          }
        }
        break;
      case kabi::kMixed:
        for (std::int64_t i = 0; i < x->n; ++i)
          Child(x, kabi::Items(x)[i], absl::StrCat("item ", i));
        break;
      case kabi::kDictionary: ExamineDictionary(x, serial); break;
      case kabi::kTable: ExamineTable(x, serial); break;
      case kabi::kError:
        Flag(Check::kErrorObjectMisuse, x,
             absl::StrFormat("error object #%d ('%s) inside a value", serial, x->s));
        break;
      default: break;
    }
  }

  void ExamineDictionary(K x, std::uint64_t serial) {
    const bool keys = Child(x, kabi::DictKeys(x), "the keys");
    const bool values = Child(x, kabi::DictValues(x), "the values");
    if (!keys || !values) return;
    K k = kabi::DictKeys(x);
    K v = kabi::DictValues(x);
    if (!IsList(k) || !IsList(v)) {
      Flag(Check::kMalformed, x,
           absl::StrFormat("dictionary #%d: keys (type %d) and values (type %d) must be lists",
                           serial, k->t, v->t));
    } else if (Count(k) != Count(v)) {
      Flag(Check::kMalformed, x,
           absl::StrFormat("dictionary #%d: %d keys, %d values", serial, Count(k), Count(v)));
    }
  }

  void ExamineTable(K x, std::uint64_t serial) {
    K d = x->k;
    if (!Child(x, d, "the dictionary")) return;
    if (d->t != kabi::kDictionary) {
      Flag(Check::kMalformed, x,
           absl::StrFormat("table #%d: holds type %d, not a dictionary", serial, d->t));
      return;
    }
    K names = kabi::DictKeys(d);
    K columns = kabi::DictValues(d);
    if (Lookup(names).kind != Kind::kLive || Lookup(columns).kind != Kind::kLive)
      return;  // reported with d
    if (names->t != kabi::kSymbol || columns->t != kabi::kMixed || names->n != columns->n) {
      Flag(Check::kMalformed, x,
           absl::StrFormat(
               "table #%d: needs a symbol vector of names and a general list of as many columns",
               serial));
      return;
    }
    std::int64_t rows = -1;
    for (std::int64_t i = 0; i < columns->n; ++i) {
      K column = kabi::Items(columns)[i];
      if (IsUnfilled(column) || Lookup(column).kind != Kind::kLive) continue;  // reported with d
      if (column->t < 0 || column->t > 19) {
        Flag(Check::kMalformed, x,
             absl::StrFormat("table #%d: column %d is not a vector (type %d)", serial, i,
                             column->t));
      } else if (rows >= 0 && column->n != rows) {
        Flag(
            Check::kMalformed, x,
            absl::StrFormat("table #%d: uneven columns (%d and %d rows)", serial, rows, column->n));
      } else {
        rows = column->n;
      }
    }
  }

  std::string where_;
  std::vector<K> pending_;
  absl::flat_hash_set<K> visited_;
  bool ok_ = true;
};

}  // namespace

bool CheckEntry(K x, absl::string_view api, int flags) {
  if (IsUnfilled(x)) {
    Emit(Check::kUnfilledSlot, absl::StrCat(api, ": given the content of an unfilled slot"));
    return false;
  }
  const Status s = Lookup(x);
  switch (s.kind) {
    case Kind::kNull:
      if ((flags & kAllowNull) == 0) Emit(Check::kBadPointer, absl::StrCat(api, ": NULL argument"));
      return false;
    case Kind::kAsync:
      Emit(Check::kBadPointer, absl::StrCat(api, ": given the non-object k(h<0, ...) returns"));
      return false;
    case Kind::kForeign:
      Emit(Check::kBadPointer,
           absl::StrFormat("%s: %p was not allocated by the host", api, static_cast<void*>(x)));
      return false;
    case Kind::kCorrupt:
      Emit(Check::kBadPointer,
           absl::StrFormat("%s: object #%d has an overwritten prefix (a write before its header)",
                           api, s.serial),
           s.serial, s.type);
      return false;
    case Kind::kFreed:
      Emit(
          api == "r0" ? Check::kDoubleFree : Check::kUseAfterFree,
          absl::StrFormat("%s of object #%d (type %d), already freed by r0", api, s.serial, s.type),
          s.serial, s.type);
      return false;
    case Kind::kMoved:
      Emit(Check::kUseAfterFree,
           absl::StrFormat("%s of object #%d (type %d) at a stale address: a join moved it", api,
                           s.serial, s.type),
           s.serial, s.type);
      return false;
    case Kind::kLive:
      if (x->t == kabi::kError && (flags & kAllowError) == 0) {
        Emit(Check::kErrorObjectMisuse,
             absl::StrFormat("%s given error object #%d ('%s); only r0 may take it", api, s.serial,
                             x->s),
             s.serial, s.type);
      }
      return true;
  }
  return false;
}

bool ValidateTree(K x, absl::string_view where) {
  if (!CheckEntry(x, where)) return false;
  return TreeWalk(where).Run(x);
}

absl::Span<K> Children(K x) {
  switch (x->t) {
    case kabi::kMixed: return absl::Span<K>(kabi::Items(x), static_cast<std::size_t>(x->n));
    case kabi::kDictionary: return absl::Span<K>(kabi::Items(x), 2);
    case kabi::kTable: return absl::Span<K>(&x->k, 1);
    default: return {};
  }
}

std::int64_t Count(K x) {
  switch (x->t) {
    case kabi::kTable: {
      K columns = kabi::DictValues(x->k);
      return columns->n == 0 ? 0 : Count(kabi::Items(columns)[0]);
    }
    case kabi::kDictionary: return Count(kabi::DictKeys(x));
    default: return x->t >= 0 && x->t <= 19 ? x->n : 1;
  }
}

}  // namespace khost::internal
