// report.cc — recording reports and routing them to the handler or to GoogleTest.
#include "tests/khost/report.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace khost {
namespace {

struct ReportState {
  absl::Mutex mu;
  ReportMode mode ABSL_GUARDED_BY(mu) = ReportMode::kFail;
  ReportHandler handler ABSL_GUARDED_BY(mu);
  std::vector<Report> log ABSL_GUARDED_BY(mu);
};

ReportState& ReportStateOfHost() {
  static ReportState* state = new ReportState;
  return *state;
}

}  // namespace

const char* CheckName(Check check) {
  switch (check) {
    case Check::kDoubleFree: return "double r0";
    case Check::kUseAfterFree: return "use after r0";
    case Check::kLeak: return "leak";
    case Check::kBorrowedFreed: return "r0 of a borrowed argument";
    case Check::kBorrowedReturned: return "borrowed argument returned without r1";
    case Check::kOverOwnership: return "over-ownership";
    case Check::kUnfilledSlot: return "unfilled slot";
    case Check::kNotInterned: return "non-interned symbol";
    case Check::kMalformed: return "malformed dict/table";
    case Check::kJoinMisuse: return "join misuse";
    case Check::kSharedMutation: return "shared mutation";
    case Check::kBadPointer: return "bad pointer";
    case Check::kBadArgument: return "bad argument";
    case Check::kErrorObjectMisuse: return "error object misuse";
    case Check::kKrrThenValue: return "krr then valid result";
    case Check::kUnstableMessage: return "message not in stable storage";
    case Check::kReservedMessage: return "reserved error message";
    case Check::kThread: return "thread";
    case Check::kException: return "exception escaped";
    case Check::kCannotEvaluate: return "cannot evaluate";
  }
  return "unknown check";
}

Severity SeverityOf(Check check) {
  return check == Check::kSharedMutation || check == Check::kCannotEvaluate ? Severity::kWarning
                                                                            : Severity::kError;
}

void SetReportMode(ReportMode mode) {
  ReportState& s = ReportStateOfHost();
  absl::MutexLock lock(&s.mu);
  s.mode = mode;
}

ReportMode GetReportMode() {
  ReportState& s = ReportStateOfHost();
  absl::MutexLock lock(&s.mu);
  return s.mode;
}

ReportHandler SetReportHandler(ReportHandler handler) {
  ReportState& s = ReportStateOfHost();
  absl::MutexLock lock(&s.mu);
  return std::exchange(s.handler, std::move(handler));
}

void Emit(Check check, std::string message, std::uint64_t serial, int type) {
  Report report{check, SeverityOf(check), std::string(CheckName(check)) + ": " + std::move(message),
                serial, type};
  ReportHandler handler;
  ReportMode mode;
  {
    ReportState& s = ReportStateOfHost();
    absl::MutexLock lock(&s.mu);
    s.log.push_back(report);
    handler = s.handler;
    mode = s.mode;
  }
  if (handler) {
    handler(report);
  } else if (mode == ReportMode::kFail && report.severity == Severity::kError) {
    ADD_FAILURE() << "khost: " << report.message;
  }
}

ReportCapture::ReportCapture()
    : previous_(SetReportHandler([this](const Report& report) {
        absl::MutexLock lock(&mu_);
        reports_.push_back(report);
      })) {}

ReportCapture::~ReportCapture() { SetReportHandler(std::move(previous_)); }

std::vector<Report> ReportCapture::reports() const {
  absl::MutexLock lock(&mu_);
  return reports_;
}

int ReportCapture::Count(Check check) const {
  absl::MutexLock lock(&mu_);
  int count = 0;
  for (const Report& report : reports_) count += report.check == check;
  return count;
}

std::string ReportCapture::Text() const {
  absl::MutexLock lock(&mu_);
  return absl::StrJoin(reports_, "\n",
                       [](std::string* out, const Report& report) { out->append(report.message); });
}

namespace internal {

std::vector<Report> RecordedReports() {
  ReportState& s = ReportStateOfHost();
  absl::MutexLock lock(&s.mu);
  return s.log;
}

}  // namespace internal

void ClearReports() {
  ReportState& s = ReportStateOfHost();
  absl::MutexLock lock(&s.mu);
  s.log.clear();
}

}  // namespace khost
