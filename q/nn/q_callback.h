// The q side of callback modules (api/nn/callback_registry.h): a callback module whose `fn is not a
// registered C++ callable runs q, as ktorch does (ktorch-api.md §3.6): k(0, fn, m, x[, y, z])
// with new pointers for the module and its inputs. The q function must return a new tensor or
// vector pointer (e.g. from kforward) and must not free its arguments; every pointer made
// during the call is freed when the forward returns.
#ifndef KSCOPE_Q_NN_Q_CALLBACK_H_
#define KSCOPE_Q_NN_Q_CALLBACK_H_

namespace kscope::q {

// Makes q the fallback for callback functions; called when q loads the plugin (fns).
void InstallCallbackFallback();

}  // namespace kscope::q

#endif  // KSCOPE_Q_NN_Q_CALLBACK_H_
