// kscope::Handle — the user's name for one entry of the handle table.
//
// A Handle is a plain value (an id); copying it copies the name, not the object. The object
// behind it is owned by the handle table, and the entry by a scope. Ids are positive, grow with
// every creation and are never reused (runtime/handle_table.h): once its entry is freed or
// consumed, a Handle stays stale forever and every use fails with "stale pointer". Handle{}
// (id 0) names nothing. Thread-safe (immutable).
#ifndef KSCOPE_RUNTIME_HANDLE_H_
#define KSCOPE_RUNTIME_HANDLE_H_

#include <cstdint>
#include <ostream>

namespace kscope {

class Handle {
 public:
  constexpr Handle() = default;
  constexpr explicit Handle(std::uint64_t id) : id_(id) {}

  constexpr std::uint64_t id() const { return id_; }
  constexpr bool is_null() const { return id_ == 0; }

  friend constexpr bool operator==(Handle a, Handle b) { return a.id_ == b.id_; }
  friend constexpr bool operator!=(Handle a, Handle b) { return a.id_ != b.id_; }
  friend constexpr bool operator<(Handle a, Handle b) { return a.id_ < b.id_; }
  template <typename H>
  friend H AbslHashValue(H state, Handle h) {
    return H::combine(std::move(state), h.id_);
  }
  friend std::ostream& operator<<(std::ostream& os, Handle h) { return os << '#' << h.id_; }

 private:
  std::uint64_t id_ = 0;
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_HANDLE_H_
