// k_abi.h — the C interface between q (kdb+ 3.x/4.x, 64-bit) and a plugin loaded with `2:`.
//
// Newly written for kscope from the documented ABI (object layout, type codes, nulls and the
// functions q exports to plugins); no text of KX's k.h is reused, and there are no one-letter
// macros (k.h's collide with libtorch). Everything is in namespace kabi; the functions keep
// their C names and C linkage, so a plugin built against this header binds to q's exports at
// load time, and tests bind it to the in-repo k host (tests/khost/) the same way.
//
// Ownership, as q defines it: reference counts are 0-based (0 = one owner); arguments a plugin
// function receives are borrowed (r1 before keeping or returning one); what it returns is
// owned by q; knk, jk, xD, xT and k take over the references they are given. Errors: return
// krr(message) (the text must outlive the call); never return a value after calling krr.
#ifndef KSCOPE_Q_CONVERT_K_ABI_H_
#define KSCOPE_Q_CONVERT_K_ABI_H_

#include <cstdarg>
#include <cstdint>
#include <limits>

namespace kabi {

// One k object: a 16-byte header, then (for vectors) the items. Atoms keep their value in the
// union; vectors keep their count there (`n`) and their items from offset 16 on.
struct Object {
  signed char m;   // q's allocator: do not touch
  signed char a;   // q's allocator: do not touch
  signed char t;   // type code (below); negative = atom
  char u;          // attribute
  std::int32_t r;  // reference count, 0-based
  union {
    std::uint8_t g;
    std::int16_t h;
    std::int32_t i;
    std::int64_t j;
    float e;
    double f;
    char* s;
    Object* k;
    std::int64_t n;
  };
};
static_assert(sizeof(Object) == 16, "the k object header is 16 bytes");

using K = Object*;

// A guid, passed by value (16 bytes).
struct GuidValue {
  unsigned char g[16];
};

// Type codes: a vector has the positive code, its atom the negative one.
enum TypeCode : signed char {
  kMixed = 0,  // general list of K
  kBoolean = 1,
  kGuid = 2,
  kByte = 4,
  kShort = 5,
  kInt = 6,
  kLong = 7,
  kReal = 8,
  kFloat = 9,
  kChar = 10,
  kSymbol = 11,
  kTimestamp = 12,
  kMonth = 13,
  kDate = 14,
  kDatetime = 15,
  kTimespan = 16,
  kMinute = 17,
  kSecond = 18,
  kTime = 19,
  kTable = 98,
  kDictionary = 99,
  kLambda = 100,
  kUnaryPrimitive = 101,  // `::` is a unary primitive atom with g == 0
  kDynamicLoad = 112,     // a function made by dl (what 2: returns)
  kError = -128,          // s holds the message
};

inline constexpr std::int16_t kNullShort = std::numeric_limits<std::int16_t>::min();
inline constexpr std::int32_t kNullInt = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t kNullLong = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int16_t kInfShort = std::numeric_limits<std::int16_t>::max();
inline constexpr std::int32_t kInfInt = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int64_t kInfLong = std::numeric_limits<std::int64_t>::max();
inline constexpr double kNullFloat = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInfFloat = std::numeric_limits<double>::infinity();

// Typed views of a vector's items.
inline void* Payload(K x) { return reinterpret_cast<char*>(x) + sizeof(Object); }
inline std::uint8_t* Bytes(K x) { return static_cast<std::uint8_t*>(Payload(x)); }  // 1 4
inline char* Chars(K x) { return static_cast<char*>(Payload(x)); }                  // 10
inline std::int16_t* Shorts(K x) { return static_cast<std::int16_t*>(Payload(x)); }
inline std::int32_t* Ints(K x) { return static_cast<std::int32_t*>(Payload(x)); }   // 6 13 14 17-19
inline std::int64_t* Longs(K x) { return static_cast<std::int64_t*>(Payload(x)); }  // 7 12 16
inline float* Reals(K x) { return static_cast<float*>(Payload(x)); }
inline double* Floats(K x) { return static_cast<double*>(Payload(x)); }  // 9 15
inline char** Symbols(K x) { return static_cast<char**>(Payload(x)); }
inline K* Items(K x) { return static_cast<K*>(Payload(x)); }  // 0, and a dictionary's two parts

// A dictionary is a 2-item list: keys then values. A table wraps a dictionary of column names
// (a symbol vector) to equal-length columns.
inline K DictKeys(K d) { return Items(d)[0]; }
inline K DictValues(K d) { return Items(d)[1]; }
inline K TableDict(K t) { return t->k; }

extern "C" {

// Constructors. Each returns a new object with r == 0, owned by the caller.
K ktn(int type, long long n);  // vector; a general list's slots must be filled before use
K knk(int n, ...);             // general list of n K arguments (takes them over)
K ka(int type);                // atom of type, value unset
K kb(int);
K kg(int);
K kh(int);
K ki(int);
K kj(long long);
K ke(double);
K kf(double);
K kc(int);
K ks(char*);  // symbol atom (interns its argument)
K kp(char*);  // char vector from a C string
K kpn(char*, long long);
K kd(int);
K kt(int);
K kz(double);
K ktj(int type, long long);
K ku(GuidValue);
// Interning: the one pointer for a text; pointer equality is symbol equality.
char* ss(char*);
char* sn(char*, long long);
// Dictionary (takes keys and values) and table (takes the dictionary; 0 on bad input).
K xD(K keys, K values);
K xT(K dictionary);
// Reference counting.
void r0(K);
K r1(K);
// Errors: krr records the message (q keeps only the pointer) and returns 0; orr appends the
// OS error; ee(0) turns a pending error into a -128 object.
K krr(const char*);
K orr(const char*);
K ee(K);
// Joins: may reallocate *x; jk takes y over, jv does not.
K ja(K* x, void* item);
K js(K* x, char* symbol);
K jk(K* x, K y);
K jv(K* x, K y);
// Evaluation and application inside q: k(0, expression, args..., (K)0) takes its args over;
// dot applies f to a list of arguments without taking them.
K k(int handle, const char* expression, ...);
K vak(int handle, const char* expression, va_list);  // k with a va_list of K args
K vaknk(int n, va_list);                             // knk with a va_list
K dot(K f, K args);
// A q function of `rank` K arguments calling the C function f.
K dl(void* f, long long rank);
// Serialisation (mode -1 inside q).
K b9(int mode, K x);
K d9(K bytes);
int okx(K bytes);
int setm(int);
void m9();
int ymd(int year, int month, int day);
int dj(int date);
int ver();                // q's build date, yyyymmdd
long long gc(long long);  // heap coalesce: bytes released

}  // extern "C"

}  // namespace kabi

#endif  // KSCOPE_Q_CONVERT_K_ABI_H_
