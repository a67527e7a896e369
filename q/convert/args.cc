#include "q/convert/args.h"

#include "absl/strings/strip.h"
#include "q/convert/convert.h"
#include "runtime/errors.h"

namespace kscope::q {

Args::Args(const char* fn, kabi::K x) : fn_(fn), whole_(x) {
  if (IsNull(x) || (x->t == kabi::kMixed && x->n == 0)) return;
  if (x->t != kabi::kMixed || IsPointer(x)) {
    size_ = 1;
    return;
  }
  items_ = kabi::Items(x);
  size_ = static_cast<std::size_t>(x->n);
}

void Args::Expected(std::size_t i, const char* what) const {
  Fail("%s: arg[%d] expected %s, given %s", fn_, i, what,
       i < size() ? KName((*this)[i]) : "nothing");
}

void Args::Unrecognized() const { Fail("%s: unrecognized arg(s) - %s", fn_, KName(whole_)); }

bool Args::IsPointerAt(std::size_t i) const { return i < size() && IsPointer((*this)[i]); }

bool Args::IsSymbolAt(std::size_t i) const { return i < size() && IsSymbol((*this)[i]); }

Handle Args::PointerAt(std::size_t i) const {
  if (!IsPointerAt(i)) Expected(i, "pointer");
  return HandleOf((*this)[i]);
}

std::int64_t Args::LongAt(std::size_t i) const {
  if (i >= size()) Expected(i, "long");
  kabi::K x = (*this)[i];
  switch (x->t) {
    case -kabi::kLong: return x->j;
    case -kabi::kInt: return x->i;
    case -kabi::kShort: return x->h;
    case -kabi::kByte: return x->g;
    default: Expected(i, "long");
  }
}

double Args::DoubleAt(std::size_t i) const {
  if (i >= size()) Expected(i, "number");
  kabi::K x = (*this)[i];
  switch (x->t) {
    case -kabi::kFloat: return x->f;
    case -kabi::kReal: return x->e;
    case -kabi::kLong: return static_cast<double>(x->j);
    case -kabi::kInt: return x->i;
    case -kabi::kShort: return x->h;
    default: Expected(i, "number");
  }
}

c10::Scalar Args::ScalarAt(std::size_t i) const {
  if (i >= size()) Expected(i, "number");
  kabi::K x = (*this)[i];
  switch (x->t) {
    case -kabi::kBoolean: return c10::Scalar(x->g != 0);
    case -kabi::kByte: return c10::Scalar(static_cast<std::int64_t>(x->g));
    case -kabi::kShort: return c10::Scalar(static_cast<std::int64_t>(x->h));
    case -kabi::kInt: return c10::Scalar(static_cast<std::int64_t>(x->i));
    case -kabi::kLong: return c10::Scalar(static_cast<std::int64_t>(x->j));
    case -kabi::kReal: return c10::Scalar(static_cast<double>(x->e));
    case -kabi::kFloat: return c10::Scalar(x->f);
    default: Expected(i, "number");
  }
}

bool Args::BoolAt(std::size_t i) const {
  if (i >= size() || (*this)[i]->t != -kabi::kBoolean) Expected(i, "boolean");
  return (*this)[i]->g != 0;
}

std::string Args::SymbolAt(std::size_t i) const {
  if (!IsSymbolAt(i)) Expected(i, "symbol");
  return SymbolText((*this)[i]);
}

std::string Args::FileAt(std::size_t i) const {
  return std::string(absl::StripPrefix(SymbolAt(i), ":"));
}

std::vector<std::string> Args::SymbolsAt(std::size_t i) const {
  if (IsSymbolAt(i)) return {SymbolText((*this)[i])};
  if (i >= size() || (*this)[i]->t != kabi::kSymbol) Expected(i, "symbol(s)");
  kabi::K x = (*this)[i];
  return std::vector<std::string>(kabi::Symbols(x), kabi::Symbols(x) + x->n);
}

std::vector<std::int64_t> Args::LongsAt(std::size_t i) const {
  if (i < size() && (*this)[i]->t < 0) return {LongAt(i)};
  if (i >= size()) Expected(i, "long(s)");
  kabi::K x = (*this)[i];
  switch (x->t) {
    case kabi::kLong: return std::vector<std::int64_t>(kabi::Longs(x), kabi::Longs(x) + x->n);
    case kabi::kInt: return std::vector<std::int64_t>(kabi::Ints(x), kabi::Ints(x) + x->n);
    default: Expected(i, "long(s)");
  }
}

Operand Args::OperandAt(std::size_t i) const {
  if (i >= size()) Expected(i, "tensor or k array");
  return OperandFromK(fn_, (*this)[i]);
}

Operand Args::InputAt(std::size_t i) const {
  if (i >= size()) Expected(i, "tensor or k array");
  return InputFromK(fn_, (*this)[i]);
}

Handle PointerArgument(const char* fn, K x) {
  if (!IsPointer(x)) Args(fn, x).Unrecognized();
  return HandleOf(x);
}

PointerAndName PointerAndNameOf(const Args& a) {
  if (a.size() == 1) return {a.PointerAt(0), ""};
  if (a.size() != 2) a.Unrecognized();
  return {a.PointerAt(0), a.SymbolAt(1)};
}

}  // namespace kscope::q
