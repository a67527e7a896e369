// Uses the installed public header and library; exits 0 when a scope released its handle.
#include <kscope/kscope.h>

int main() {
  kscope::Handle h;
  {
    auto scope = kscope::Scope::Open();
    h = kscope::ones({2, 2});
    if (kscope::elements(h) != 4) return 1;
  }
  return kscope::mapped(h) || kscope::live_handles() != 0 ? 1 : 0;
}
