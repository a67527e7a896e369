// PerElement<T> — an attribute read from an object, shaped by the object's class as ktorch
// shapes it: one value for a tensor or composite, one per element for a vector, one per key
// for a dictionary. The q plugin turns these into an atom/list, a general list and a k
// dictionary respectively. A plain value type; thread-compatible.
#ifndef KSCOPE_RUNTIME_PER_ELEMENT_H_
#define KSCOPE_RUNTIME_PER_ELEMENT_H_

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kscope {

template <typename T>
class PerElement {
 public:
  using List = std::vector<T>;
  using Named = std::vector<std::pair<std::string, T>>;

  PerElement(T value) : value_(std::move(value)) {}        // NOLINT: implicit by design
  PerElement(List values) : value_(std::move(values)) {}   // NOLINT
  PerElement(Named values) : value_(std::move(values)) {}  // NOLINT

  bool is_single() const { return std::holds_alternative<T>(value_); }
  bool is_list() const { return std::holds_alternative<List>(value_); }
  bool is_named() const { return std::holds_alternative<Named>(value_); }
  const T& single() const { return std::get<T>(value_); }
  const List& list() const { return std::get<List>(value_); }
  const Named& named() const { return std::get<Named>(value_); }

  friend bool operator==(const PerElement& a, const PerElement& b) { return a.value_ == b.value_; }

 private:
  std::variant<T, List, Named> value_;
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_PER_ELEMENT_H_
