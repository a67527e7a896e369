// OpCounter — counts the operator calls libtorch's dispatcher makes while it is alive, on every
// thread, that a predicate accepts (by name: "aten::_foreach_add_", "aten::_local_scalar_dense";
// or by name and arguments: a copy from a GPU to the host): an instrument for tests that prove
// what a piece of code launches or reads back, not a timer.
//
// It registers a global RecordFunction callback (libtorch's profiler hook) for operator scopes,
// with the arguments when the predicate needs them; nested calls (an operator another one calls)
// count too. One OpCounter at a time in a process (a second one fails the test). count() is
// thread-safe; the counter must outlive the calls it counts (tests call from their own thread).
#ifndef KSCOPE_TESTS_OP_COUNTER_H_
#define KSCOPE_TESTS_OP_COUNTER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <ATen/record_function.h>
#include <gtest/gtest.h>

namespace kscope::testing {

class OpCounter {
 public:
  using Predicate = std::function<bool(const at::RecordFunction& call)>;

  explicit OpCounter(Predicate counted, bool needs_arguments = false)
      : counted_(std::move(counted)) {
    OpCounter* expected = nullptr;
    if (!active().compare_exchange_strong(expected, this)) ADD_FAILURE() << "two OpCounters";
    handle_ = at::addGlobalCallback(at::RecordFunctionCallback(&OnStart)
                                        .needsInputs(needs_arguments)
                                        .scopes({at::RecordScope::FUNCTION}));
  }
  ~OpCounter() {
    at::removeCallback(handle_);
    active().store(nullptr);
  }
  OpCounter(const OpCounter&) = delete;
  OpCounter& operator=(const OpCounter&) = delete;

  std::int64_t count() const { return count_.load(); }
  void reset() { count_.store(0); }

  // Operators whose names start with `prefix`, or equal `op`.
  static Predicate Prefix(std::string prefix) {
    return [prefix](const at::RecordFunction& call) {
      return std::string(call.name()).rfind(prefix, 0) == 0;
    };
  }
  static Predicate Named(std::string op) {
    return [op](const at::RecordFunction& call) { return call.name() == op; };
  }
  // What makes the host wait for a device (needs_arguments): reading a device tensor's value
  // (.item()) and copying one to the host.
  static Predicate ReadsFromADevice() {
    return [](const at::RecordFunction& call) {
      const std::string name = call.name();
      const auto arguments = call.inputs();
      auto on_device = [&](std::size_t i) {
        return arguments.size() > i && arguments[i].isTensor() && !arguments[i].toTensor().is_cpu();
      };
      if (name == "aten::_local_scalar_dense") return on_device(0);
      if (name == "aten::copy_") return !on_device(0) && on_device(1);  // (self, src, ...)
      return false;
    };
  }

 private:
  static std::atomic<OpCounter*>& active() {
    static std::atomic<OpCounter*> counter{nullptr};
    return counter;
  }
  static std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
    OpCounter* counter = active().load();
    if (counter != nullptr && counter->counted_(fn)) counter->count_.fetch_add(1);
    return nullptr;
  }

  Predicate counted_;
  std::atomic<std::int64_t> count_{0};
  at::CallbackHandle handle_;
};

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_OP_COUNTER_H_
