// report.h — how the k host reports the defects it catches, and its statistics.
//
// Every check in the host (double r0, use after r0, leaks, misuse of borrowed arguments, ...)
// ends in Emit(). A report is always recorded (Stats().reports) and then handed to the active
// handler. Without a handler the mode decides: kFail (the default) adds a GoogleTest failure
// carrying the report text for every error-severity report; kCountOnly only records (for fuzzers).
// Warnings (shared mutation, refused evaluation) never fail a test by themselves.
//
// Thread-safety: all functions are safe from any thread; the handler runs on the reporting
// thread, outside the host's locks, so it may call host functions.
#ifndef KSCOPE_TESTS_KHOST_REPORT_H_
#define KSCOPE_TESTS_KHOST_REPORT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace khost {

// The defect classes of k-abi.md §4.7 (plus the host's own argument checks).
enum class Check {
  kDoubleFree,         // r0 of an object already freed
  kUseAfterFree,       // a freed (or join-moved) object passed to the API or across a boundary
  kLeak,               // allocated during a plugin call, unreachable, never freed
  kBorrowedFreed,      // the plugin dropped a reference it did not own (an argument)
  kBorrowedReturned,   // an argument returned (or put in the result) without r1
  kOverOwnership,      // an object held by more containers than its refcount allows
  kUnfilledSlot,       // a ktn(0,n)/ktn(KS,n) slot never filled
  kNotInterned,        // a symbol pointer that did not come from ss/sn/ks
  kMalformed,          // a dictionary or table of the wrong shape
  kJoinMisuse,         // ja/js/jk/jv on the wrong type, on an object with an attribute, ...
  kSharedMutation,     // (warning) a join on an object with r > 0
  kBadPointer,         // NULL where not allowed, or a pointer the host did not allocate
  kBadArgument,        // a bad type code, count or rank given to the API
  kErrorObjectMisuse,  // a -128 error object passed to anything but r0 / across a boundary
  kKrrThenValue,       // krr called, then a non-null result returned
  kUnstableMessage,    // the krr text changed before the host read it
  kReservedMessage,    // krr("stop"), krr("abort") or krr("stack")
  kThread,             // k(0,...) off the main thread, r0 on a foreign thread, ss without setm
  kException,          // a C++ exception escaped a plugin function
  kCannotEvaluate,     // (warning) k(0, s) for an expression the host does not know
};

enum class Severity { kWarning, kError };

// The name of a check, e.g. "double r0".
const char* CheckName(Check check);
Severity SeverityOf(Check check);

struct Report {
  Check check;
  Severity severity;
  std::string message;   // "double r0: r0 of object #12 (type 7), already freed"
  std::uint64_t serial;  // the object concerned, or 0
  int type;              // its type code, or 0
};

enum class ReportMode {
  kFail,       // error reports add a GoogleTest failure (default)
  kCountOnly,  // reports are only recorded
};
void SetReportMode(ReportMode mode);
ReportMode GetReportMode();

// A handler replaces the mode's behaviour until it is reset (pass nullptr). Returns the
// previous handler.
using ReportHandler = std::function<void(const Report&)>;
ReportHandler SetReportHandler(ReportHandler handler);

// Records a report and passes it on. `serial`/`type` identify the object (0 if none).
void Emit(Check check, std::string message, std::uint64_t serial = 0, int type = 0);

// Collects the reports emitted while it lives (instead of failing the test); the previous
// handler is restored on destruction. Not copyable. Thread-safe.
class ReportCapture {
 public:
  ReportCapture();
  ~ReportCapture();
  ReportCapture(const ReportCapture&) = delete;
  ReportCapture& operator=(const ReportCapture&) = delete;

  std::vector<Report> reports() const;
  int Count(Check check) const;
  bool Has(Check check) const { return Count(check) > 0; }
  // All messages, one per line (for failure output).
  std::string Text() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<Report> reports_ ABSL_GUARDED_BY(mu_);
  ReportHandler previous_;
};

struct HostStats {
  std::int64_t live = 0;         // objects allocated and not freed
  std::int64_t allocated = 0;    // objects ever allocated
  std::int64_t freed = 0;        // objects ever freed
  std::int64_t peak = 0;         // highest live count
  std::int64_t quarantined = 0;  // freed blocks still held in quarantine
  std::int64_t retained = 0;     // unreachable objects excused by AllowRetained
  std::map<int, std::int64_t> live_by_type;
  std::vector<Report> reports;  // every report since the last ClearReports()
};

HostStats Stats();
void ClearReports();

namespace internal {
// Every report recorded since the last ClearReports(), oldest first (Stats() reads it).
std::vector<Report> RecordedReports();
}  // namespace internal

}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_REPORT_H_
