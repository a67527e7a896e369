// The plugin's settings (q's `setting`): strict (refuse pointers made outside any scope), scope
// (the depth of this thread's open scopes, read-only) and alloptions (whether queries of
// modules, losses and optimizers list every option or only those that differ from their
// defaults; on by default, as in ktorch).
//
// Thread-safety: AllOptions/SetAllOptions may be called from any thread.
#ifndef KSCOPE_Q_SETTINGS_H_
#define KSCOPE_Q_SETTINGS_H_

namespace kscope::q {

// The `alloptions setting: the default of the queries' all-options flag.
bool AllOptions();
void SetAllOptions(bool all);

}  // namespace kscope::q

#endif  // KSCOPE_Q_SETTINGS_H_
