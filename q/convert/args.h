// Args — the arguments of a rank-1 plugin call, read as ktorch reads them: `::` and `()` are
// no arguments; a pointer, or any value that is not a general list, is one argument; a general
// list is one argument per item. Typed getters throw kscope::Error naming the function and the
// argument ("tensor: arg[1] expected long, given symbol scalar"). Borrows the K it reads, and
// reads a general list's items where they are (no copy, no allocation).
#ifndef KSCOPE_Q_CONVERT_ARGS_H_
#define KSCOPE_Q_CONVERT_ARGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/Scalar.h>

#include "api/core/operand.h"
#include "q/convert/k_abi.h"
#include "runtime/handle.h"

namespace kscope::q {

class Args;
// f(p) / f(p;`name): the pointer, and the name or "" (a module and one of its submodules).
struct PointerAndName {
  Handle pointer;
  std::string name;
};
PointerAndName PointerAndNameOf(const Args& a);
// f p for an attribute function: the pointer x, else "<fn>: unrecognized arg(s) - <kname>".
Handle PointerArgument(const char* fn, kabi::K x);

class Args {
 public:
  Args(const char* fn, kabi::K x);

  const char* fn() const { return fn_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  kabi::K operator[](std::size_t i) const { return items_ != nullptr ? items_[i] : whole_; }

  bool IsPointerAt(std::size_t i) const;
  bool IsSymbolAt(std::size_t i) const;
  Handle PointerAt(std::size_t i) const;
  std::int64_t LongAt(std::size_t i) const;  // a long, int, short or byte atom
  double DoubleAt(std::size_t i) const;      // a float, real, long, int or short atom
  c10::Scalar ScalarAt(
      std::size_t i) const;          // a boolean, byte, short, int, long, real or float atom
  bool BoolAt(std::size_t i) const;  // a boolean atom
  std::string SymbolAt(std::size_t i) const;
  std::string FileAt(std::size_t i) const;  // a symbol naming a file, `:path (hsym) or `path
  std::vector<std::string> SymbolsAt(std::size_t i) const;  // a symbol atom or vector
  std::vector<std::int64_t> LongsAt(std::size_t i) const;   // an integer atom or vector
  Operand OperandAt(std::size_t i) const;                   // a pointer, or a copy of k data
  Operand InputAt(std::size_t i) const;  // a pointer, or a view of k data (read only)

  // "<fn>: unrecognized arg(s) - <kname of the whole argument>"
  [[noreturn]] void Unrecognized() const;

 private:
  [[noreturn]] void Expected(std::size_t i, const char* what) const;

  const char* fn_;
  kabi::K whole_;
  const kabi::K* items_ = nullptr;  // a general list's items; nullptr: whole_ is the one argument
  std::size_t size_ = 0;
};

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_ARGS_H_
