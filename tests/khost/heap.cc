// heap.cc — blocks with a hidden prefix, the live/freed registry and the two free policies.
#include "tests/khost/heap.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace khost {
namespace internal {
namespace {

constexpr unsigned char kPoisonByte = 0xdb;
constexpr std::size_t kQuarantineLimit = std::size_t{256} << 20;

struct Freed {
  std::uint64_t serial;
  int type;
  std::uint32_t thread;
  bool moved;
};

FreePolicy PolicyFromEnvironment() {
  const char* value = std::getenv("KHOST_FREE_POLICY");
  return value != nullptr && absl::string_view(value) == "release" ? FreePolicy::kRelease
                                                                   : FreePolicy::kQuarantine;
}

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_set<K> live ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<const void*, Freed> freed ABSL_GUARDED_BY(mu);
  std::deque<Prefix*> quarantine ABSL_GUARDED_BY(mu);
  std::size_t quarantine_bytes ABSL_GUARDED_BY(mu) = 0;
  std::uint64_t serial ABSL_GUARDED_BY(mu) = 0;
  Counters counters ABSL_GUARDED_BY(mu);
  FreePolicy policy ABSL_GUARDED_BY(mu) = PolicyFromEnvironment();
};

Registry& Reg() {
  static Registry* registry = new Registry;
  return *registry;
}

std::size_t BlockBytes(std::uint64_t capacity) {
  return sizeof(Prefix) + sizeof(kabi::Object) + capacity;
}

void DropOldestQuarantined(Registry& r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(r.mu) {
  Prefix* p = r.quarantine.front();
  r.quarantine.pop_front();
  r.quarantine_bytes -= BlockBytes(p->capacity);
  std::free(p);
}

// Poisons a block that stops being live and either quarantines or releases it.
void Retire(Registry& r, K x, bool moved) ABSL_EXCLUSIVE_LOCKS_REQUIRED(r.mu) {
  Prefix* p = PrefixOf(x);
  r.live.erase(x);
  r.freed[x] = Freed{p->serial, x->t, p->thread, moved};
  p->state = moved ? State::kMoved : State::kFreed;
  std::memset(x, kPoisonByte, sizeof(kabi::Object) + p->capacity);
  if (r.policy == FreePolicy::kRelease) {
    std::free(p);
    return;
  }
  r.quarantine.push_back(p);
  r.quarantine_bytes += BlockBytes(p->capacity);
  while (r.quarantine_bytes > kQuarantineLimit) DropOldestQuarantined(r);
}

K NewBlock(std::uint64_t capacity) {
  void* memory = std::malloc(BlockBytes(capacity));
  if (memory == nullptr) std::abort();
  return reinterpret_cast<K>(static_cast<Prefix*>(memory) + 1);
}

// The thread that first asks is the main thread; the static initialiser below asks at the
// latest, and static initialisers run on the main thread.
std::uint32_t MainThreadIndex() {
  static const std::uint32_t index = ThreadIndex();
  return index;
}
[[maybe_unused]] const bool kMainThreadKnown = MainThreadIndex() != 0;

}  // namespace

std::size_t ItemWidth(int type) {
  switch (type) {
    case kabi::kMixed:
    case kabi::kSymbol:
    case kabi::kLong:
    case kabi::kFloat:
    case kabi::kTimestamp:
    case kabi::kDatetime:
    case kabi::kTimespan: return 8;
    case kabi::kBoolean:
    case kabi::kByte:
    case kabi::kChar: return 1;
    case kabi::kGuid: return 16;
    case kabi::kShort: return 2;
    case kabi::kInt:
    case kabi::kReal:
    case kabi::kMonth:
    case kabi::kDate:
    case kabi::kMinute:
    case kabi::kSecond:
    case kabi::kTime: return 4;
    default: return 0;
  }
}

bool IsVectorType(int type) { return type >= 0 && type <= 19 && type != 3; }

char TypeLetter(int type) {
  constexpr absl::string_view kLetters = "bg xhijefcspmdznuvt";
  return type >= 1 && type <= 19 ? kLetters[type - 1] : ' ';
}

const char* TypeName(int type) {
  static constexpr const char* kNames[] = {"boolean",  "guid",      "",       "byte",  "short",
                                           "int",      "long",      "real",   "float", "char",
                                           "symbol",   "timestamp", "month",  "date",  "datetime",
                                           "timespan", "minute",    "second", "time"};
  return type >= 1 && type <= 19 ? kNames[type - 1] : "";
}

Status Lookup(const void* x) {
  Status status;
  if (x == nullptr) return status;
  if (x == AsyncSentinel()) {
    status.kind = Kind::kAsync;
    return status;
  }
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  K k = static_cast<K>(const_cast<void*>(x));
  if (r.live.contains(k)) {
    const Prefix* p = PrefixOf(k);
    status.kind = p->magic == kMagic && p->state == State::kLive ? Kind::kLive : Kind::kCorrupt;
    status.serial = p->serial;
    status.type = k->t;
    status.thread = p->thread;
    return status;
  }
  auto it = r.freed.find(x);
  if (it == r.freed.end()) {
    status.kind = Kind::kForeign;
    return status;
  }
  status.kind = it->second.moved ? Kind::kMoved : Kind::kFreed;
  status.serial = it->second.serial;
  status.type = it->second.type;
  status.thread = it->second.thread;
  return status;
}

K Allocate(int type, std::size_t payload_bytes) {
  // Like q's buddy allocator, blocks come in powers of two, so short joins stay in place.
  std::size_t block = 32;
  while (block < sizeof(kabi::Object) + payload_bytes) block *= 2;
  payload_bytes = block - sizeof(kabi::Object);
  K x = NewBlock(payload_bytes);
  std::memset(x, 0, sizeof(kabi::Object));
  x->t = static_cast<signed char>(type);
  Prefix* p = PrefixOf(x);
  p->magic = kMagic;
  p->state = State::kLive;
  p->thread = ThreadIndex();
  p->capacity = payload_bytes;
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  p->serial = ++r.serial;
  r.freed.erase(x);
  r.live.insert(x);
  ++r.counters.allocated;
  r.counters.peak = std::max(r.counters.peak, ++r.counters.live);
  return x;
}

K Grow(K x, std::size_t payload_bytes) {
  Prefix* old_prefix = PrefixOf(x);
  if (payload_bytes <= old_prefix->capacity) return x;
  const std::uint64_t capacity =
      std::max<std::uint64_t>({payload_bytes, 2 * old_prefix->capacity, 32});
  K y = NewBlock(capacity);
  std::memcpy(PrefixOf(y), old_prefix,
              sizeof(Prefix) + sizeof(kabi::Object) + old_prefix->capacity);
  PrefixOf(y)->capacity = capacity;
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  r.freed.erase(y);
  r.live.insert(y);
  Retire(r, x, /*moved=*/true);
  return y;
}

void Free(K x) {
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  --r.counters.live;
  ++r.counters.freed;
  Retire(r, x, /*moved=*/false);
}

std::uint64_t LastSerial() {
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  return r.serial;
}

namespace {
constexpr std::uint32_t kEveryThread = 0;  // ThreadIndex() starts at 1
}  // namespace

std::vector<LiveObject> LiveObjects() { return LiveObjects(kEveryThread); }

std::vector<LiveObject> LiveObjects(std::uint32_t thread) {
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  // A hash set keeps the capacity of its peak (erasing never shrinks it), and walking it costs
  // its capacity: after one call that made millions of objects, every later census (one per
  // call) would walk millions of empty slots. Shrink it once it is mostly empty.
  if (r.live.capacity() > 1024 && r.live.size() < r.live.capacity() / 16) r.live.rehash(0);
  std::vector<LiveObject> objects;
  objects.reserve(r.live.size());
  for (K x : r.live) {
    const Prefix* p = PrefixOf(x);
    if (thread == kEveryThread || p->thread == thread) {
      objects.push_back(LiveObject{x, p->serial, p->thread});
    }
  }
  return objects;
}

Counters GetCounters() {
  Registry& r = Reg();
  absl::MutexLock lock(&r.mu);
  Counters counters = r.counters;
  counters.quarantined = static_cast<std::int64_t>(r.quarantine.size());
  return counters;
}

std::uint32_t ThreadIndex() {
  static std::atomic<std::uint32_t> next{1};
  thread_local const std::uint32_t index = next.fetch_add(1);
  return index;
}

bool IsMainThread() { return ThreadIndex() == MainThreadIndex(); }

K AsyncSentinel() {
  static kabi::Object sentinel{};
  return &sentinel;
}

}  // namespace internal

void SetFreePolicy(FreePolicy policy) {
  internal::Registry& r = internal::Reg();
  absl::MutexLock lock(&r.mu);
  r.policy = policy;
}

FreePolicy GetFreePolicy() {
  internal::Registry& r = internal::Reg();
  absl::MutexLock lock(&r.mu);
  return r.policy;
}

void ReleaseQuarantine() {
  internal::Registry& r = internal::Reg();
  absl::MutexLock lock(&r.mu);
  while (!r.quarantine.empty()) internal::DropOldestQuarantined(r);
}

}  // namespace khost

void kabi::m9() {}

long long kabi::gc(long long) {
  khost::ReleaseQuarantine();
  return 0;
}
