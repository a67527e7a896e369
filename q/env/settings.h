// The plugin's own settings (q's `setting`, beside libtorch's, api/env/environment.h): strict
// (refuse pointers made outside any scope), scope (the depth of this thread's open scopes,
// read-only), stackframe (whether errors keep libtorch's C++ backtrace; off by default),
// alloptions (whether queries of modules, losses and optimizers list every option or only those
// that differ from their defaults; on by default, as in ktorch) and complexfirst (whether
// complex values come to k as (real;imag) rather than real,'imag pairs; on by default, as in
// ktorch).
//
// Thread-safety: the getters and setters may be called from any thread.
#ifndef KSCOPE_Q_ENV_SETTINGS_H_
#define KSCOPE_Q_ENV_SETTINGS_H_

namespace kscope::q {

// The `alloptions setting: the default of the queries' all-options flag.
bool AllOptions();
void SetAllOptions(bool all);
// The `stackframe setting.
bool Stackframe();
void SetStackframe(bool on);
// The `complexfirst setting.
bool ComplexFirst();
void SetComplexFirst(bool on);

// Makes libtorch capture a C++ backtrace for its errors only while `stackframe is on, the only
// time the plugin shows one: libtorch 1.13 symbolizes one for every c10::Error it constructs
// (milliseconds each, the bulk of a failing call's cost), 2.x lazily. Process-wide (libtorch's
// hook): fns installs it when q loads the plugin.
void InstallBacktraceFetcher();

}  // namespace kscope::q

#endif  // KSCOPE_Q_ENV_SETTINGS_H_
