// khost.h — the k host: q's C API for plugins, implemented in-process with strict checks, and the
// test utilities around it. Include this one header in tests.
//
//   apply.h     Call, Function, Result          census.h   LeakScope, AllowRetained
//   builders.h  kq:: atoms, vectors, lists ...  eval.h     Define, TakeConsole (k(0, ...))
//   format.h    S1, Show, Normalize             heap.h     free policies
//   kref.h      KRef                            library.h  Library (dlopen a plugin)
//   parse.h     kq::Parse                       report.h   checks, reports, Stats
//   builtins.h  Match, TempPath                 symbols.h  IsInterned
//   errors.h    PendingError
#ifndef KSCOPE_TESTS_KHOST_KHOST_H_
#define KSCOPE_TESTS_KHOST_KHOST_H_

#include "q/convert/k_abi.h"
#include "tests/khost/apply.h"
#include "tests/khost/builders.h"
#include "tests/khost/builtins.h"
#include "tests/khost/census.h"
#include "tests/khost/errors.h"
#include "tests/khost/eval.h"
#include "tests/khost/format.h"
#include "tests/khost/heap.h"
#include "tests/khost/kref.h"
#include "tests/khost/library.h"
#include "tests/khost/parse.h"
#include "tests/khost/report.h"
#include "tests/khost/symbols.h"

#endif  // KSCOPE_TESTS_KHOST_KHOST_H_
