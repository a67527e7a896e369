// eval.h — what k(handle, expression, args..., (K)0) can evaluate inside the host.
//
// The host is not q and runs no q code. k(0, s, ...) looks s up: first among the callables a
// test registered with Define, then among the built-ins:
//   .Q.s1 x    one-line text of x (a char vector), see format.h
//   0N! x      appends S1(x) and a newline to the console capture; returns x
//   enlist x   q's enlist
//   x ~ y      deep match, a boolean atom
//   t $ x      basic casts (t: type number, letter or name)
//   p 1: x     writes the bytes of x under TempPath(p); returns p
//   . [f; a]   applies f to the list a (dot)
//   @ [f; x]   applies f to x
// Anything else is reported (a warning) and returns an error object
// "khost: cannot evaluate '<s>'". k takes over its arguments; errors come back as owned -128
// objects; h > 0 returns an error object (no connections), h < 0 a non-object that must not be
// r0'd. Calls off the main thread are reported.
//
// Thread-safety: Define/Undefine/TakeConsole are safe from any thread.
#ifndef KSCOPE_TESTS_KHOST_EVAL_H_
#define KSCOPE_TESTS_KHOST_EVAL_H_

#include <string>

#include "q/convert/k_abi.h"
#include "tests/khost/apply.h"

namespace khost {

// Registers (or replaces) `name`; it shadows a built-in of the same name. The body receives
// k's arguments borrowed (k releases them after the call) and returns an owned K, or
// krr(...)'s 0 to make k return an error object.
void Define(const std::string& name, Body body);
void Undefine(const std::string& name);

// The text 0N! wrote since the last call, which clears it.
std::string TakeConsole();

}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_EVAL_H_
