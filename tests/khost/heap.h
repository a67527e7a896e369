// heap.h — the host's allocator and object registry: every K the host hands out comes from here.
//
// A block is laid out as [Prefix, 32 bytes][kabi::Object header, 16 bytes][payload]. A K points
// at the header, so a plugin sees exactly q's layout; the hidden prefix records magic, state,
// serial number, allocating thread and payload capacity.
//
// The registry knows every live block and every freed one, so Lookup() classifies a pointer
// (live, freed, moved by a join, foreign) without reading memory that may not be ours. A freed
// block is poisoned and, under the quarantine policy (the default), kept so its address is not
// reused and a later use is identified by serial; the quarantine gives its oldest blocks back to
// malloc past 256 MiB, or all of them on ReleaseQuarantine(). Under the release policy the memory
// goes back to malloc at once, which is what AddressSanitizer needs to see raw-field use after
// free; the registry still remembers the address until malloc hands it out again. The initial
// policy comes from the environment: KHOST_FREE_POLICY=release or =quarantine.
//
// The registry is created on first use (plugins intern symbols and build objects in static
// constructors at dlopen time) and never destroyed.
//
// Thread-safety: every function is safe from any thread (one mutex guards the registry).
// Refcount fields are not atomic, as in q: a shared object must not be r0'd concurrently.
#ifndef KSCOPE_TESTS_KHOST_HEAP_H_
#define KSCOPE_TESTS_KHOST_HEAP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "q/convert/k_abi.h"

namespace khost {

enum class FreePolicy { kQuarantine, kRelease };
void SetFreePolicy(FreePolicy policy);
FreePolicy GetFreePolicy();
// Gives every quarantined block back to malloc.
void ReleaseQuarantine();

namespace internal {

using kabi::K;

inline constexpr std::uint64_t kMagic = 0x31306b74736f686bULL;  // "khostk01"

enum class State : std::uint32_t { kLive = 1, kFreed = 2, kMoved = 3 };

struct Prefix {
  std::uint64_t magic;
  State state;
  std::uint32_t thread;    // ThreadIndex() of the allocating thread
  std::uint64_t serial;    // 1, 2, ... in allocation order; kept when a join moves the object
  std::uint64_t capacity;  // payload bytes available after the 16-byte header
};
static_assert(sizeof(Prefix) == 32, "the prefix keeps the header 16-byte aligned");

inline Prefix* PrefixOf(K x) { return reinterpret_cast<Prefix*>(x) - 1; }

// The pointer ktn(0,n) and ktn(KS,n) put in every slot: a non-canonical address, so a plugin
// that dereferences an unfilled slot crashes at once, and the host recognises it.
inline constexpr std::uintptr_t kUnfilledBits = 0xdeadbeefdeadbeefULL;
inline bool IsUnfilled(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) == kUnfilledBits;
}
inline void* UnfilledSlot() { return reinterpret_cast<void*>(kUnfilledBits); }

// Bytes per item of a vector type (0 for atoms-only types); 0..19.
std::size_t ItemWidth(int type);
// True for the vector types ktn accepts: 0, 1, 2, 4..19.
bool IsVectorType(int type);
// q's letter for a basic type ('j' for 7) and its name ("long"), for 1..19; ' ' and "" otherwise.
char TypeLetter(int type);
const char* TypeName(int type);

// kCorrupt: a live block whose prefix was overwritten (a write before the header).
enum class Kind { kNull, kLive, kFreed, kMoved, kForeign, kAsync, kCorrupt };
struct Status {
  Kind kind = Kind::kNull;
  std::uint64_t serial = 0;
  int type = 0;
  std::uint32_t thread = 0;
};
// Classifies x. Reads x's memory only if it is a live block.
Status Lookup(const void* x);

// A new block with room for at least `payload_bytes` of payload (header plus payload rounded up
// to a power of two, as q does): header zeroed, t = type, r = 0, state live.
K Allocate(int type, std::size_t payload_bytes);
// Makes room for `payload_bytes`; grows geometrically. Returns x, or the moved copy (same serial)
// after marking x as moved. x must be live.
K Grow(K x, std::size_t payload_bytes);
// Frees one block (its children are the caller's business): poisons it and quarantines or
// releases it. x must be live.
void Free(K x);

// The serial of the most recent allocation (0 before the first).
std::uint64_t LastSerial();

struct LiveObject {
  K object;
  std::uint64_t serial;
  std::uint32_t thread;  // ThreadIndex() of the allocating thread
};
// A snapshot of the live objects, in no particular order: all of them, or only those the
// thread with ThreadIndex() `thread` allocated.
std::vector<LiveObject> LiveObjects();
std::vector<LiveObject> LiveObjects(std::uint32_t thread);

struct Counters {
  std::int64_t live = 0, allocated = 0, freed = 0, peak = 0, quarantined = 0;
};
Counters GetCounters();

// A small number naming the calling thread (1 = the first thread that used the host).
std::uint32_t ThreadIndex();
// True on the host's main thread: the one that ran the host's static initialisers.
bool IsMainThread();

// What k(h, ...) returns for h < 0: not a block; r0 of it is reported.
K AsyncSentinel();

// Payloads that own C++ state (host functions) derive from this; r0 deletes them.
class OwnedPayload {
 public:
  virtual ~OwnedPayload() = default;
};

}  // namespace internal
}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_HEAP_H_
