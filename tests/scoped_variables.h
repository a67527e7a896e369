// ScopedVariables — environment variables set for one test (setenv) and restored when it ends:
// those that were unset are unset again. Not thread-safe (the environment is process-wide): use
// it where no other thread reads the environment.
#ifndef KSCOPE_TESTS_SCOPED_VARIABLES_H_
#define KSCOPE_TESTS_SCOPED_VARIABLES_H_

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace kscope::testing {

class ScopedVariables {
 public:
  explicit ScopedVariables(const std::map<std::string, std::string>& variables) {
    for (const auto& [name, value] : variables) {
      const char* old = std::getenv(name.c_str());
      saved_.push_back({name, old != nullptr, old != nullptr ? old : ""});
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedVariables() {
    for (const Saved& s : saved_) {
      if (s.was_set) {
        setenv(s.name.c_str(), s.value.c_str(), 1);
      } else {
        unsetenv(s.name.c_str());
      }
    }
  }
  ScopedVariables(const ScopedVariables&) = delete;
  ScopedVariables& operator=(const ScopedVariables&) = delete;

 private:
  struct Saved {
    std::string name;
    bool was_set;
    std::string value;
  };
  std::vector<Saved> saved_;
};

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_SCOPED_VARIABLES_H_
