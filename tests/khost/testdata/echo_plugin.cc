// echo_plugin.cc — a minimal q plugin for the k host's own dlopen test.
//
// Built as a MODULE library with the k API symbols left undefined, exactly like a real plugin:
// they bind at load time to the functions the test executable exports. fns returns
// `echo`fail`pair!(echo;fail;pair), built as ktorch builds its table (js/jk onto empty lists).
#include "q/convert/k_abi.h"

namespace {

using kabi::K;

extern "C" K echo(K x) { return kabi::r1(x); }

extern "C" K fail(K) { return kabi::krr("fail: bad"); }

extern "C" K pair(K x, K y) { return kabi::knk(2, kabi::r1(x), kabi::r1(y)); }

void Add(K* names, K* functions, const char* name, void* f, long long rank) {
  kabi::js(names, kabi::ss(const_cast<char*>(name)));
  kabi::jk(functions, kabi::dl(f, rank));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) K fns(K) {
  K names = kabi::ktn(kabi::kSymbol, 0);
  K functions = kabi::ktn(kabi::kMixed, 0);
  Add(&names, &functions, "echo", reinterpret_cast<void*>(&echo), 1);
  Add(&names, &functions, "fail", reinterpret_cast<void*>(&fail), 1);
  Add(&names, &functions, "pair", reinterpret_cast<void*>(&pair), 2);
  return kabi::xD(names, functions);
}
