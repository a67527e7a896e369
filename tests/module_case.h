// The rows the module kind suites are tables of, and the checks each row runs: a KindCase is a
// definition, an input shape and what libtorch computes for it; a BadCase is a definition that
// must fail when made, with its message. Definitions are written with tests/definitions.h.
#ifndef KSCOPE_TESTS_MODULE_CASE_H_
#define KSCOPE_TESTS_MODULE_CASE_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "api/nn/module.h"
#include "api/nn/module_state.h"
#include "tests/definitions.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope::testing {

// The module's parameters by name (host copies).
using Parms = std::map<std::string, at::Tensor>;

// One row: a definition, its input, and what libtorch computes for it.
struct KindCase {
  std::string label;  // the gtest name
  ModuleDefinition definition;
  std::vector<std::int64_t> shape;  // of the input: Spread values, or indices below `indices`
  std::function<at::Tensor(const Parms&, const at::Tensor&)> expected;
  bool eval = false;         // run outside training (modules with randomness)
  std::int64_t indices = 0;  // > 0: the input is long indices in [0, indices)
};

inline void PrintTo(const KindCase& c, std::ostream* out) { *out << c.label; }

// A definition that fails when made, with kscope's message naming the kind.
struct BadCase {
  std::string label;
  ModuleDefinition definition;
  std::string error;
};

inline void PrintTo(const BadCase& c, std::ostream* out) { *out << c.label; }

// A float tensor of the given shape holding -8 to 8 evenly spaced, in random order: past the
// bounds of relu6, hardtanh, softplus and the like whatever the draw.
inline at::Tensor Spread(const std::vector<std::int64_t>& shape) {
  const std::int64_t n = c10::multiply_integers(shape);
  return at::linspace(-8, 8, n).index_select(0, at::randperm(n)).reshape(shape);
}

// Options equal name by name, a NaN (q's 0n, a null double echoed) equal to a NaN.
inline bool SameOptions(const nn::NamedValues& a, const nn::NamedValues& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto* x = std::get_if<double>(&a[i].second);
    const auto* y = std::get_if<double>(&b[i].second);
    const bool both_nan = x != nullptr && y != nullptr && std::isnan(*x) && std::isnan(*y);
    if (a[i].first != b[i].first || (!both_nan && a[i].second != b[i].second)) return false;
  }
  return true;
}

// describe's rows compared field by field.
inline void ExpectSameRows(const std::vector<ModuleRow>& a, const std::vector<ModuleRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].depth, b[i].depth);
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_TRUE(SameOptions(a[i].options, b[i].options)) << "options of " << a[i].kind << " differ";
  }
}

// A module made from a definition (made), remade from made's query standalone (remade) and as a
// sequential's only child (child, its parameters under "0."), each from the same seed,
// recreated from made's state (restored) and cloned (cloned); made's parameters.
struct Remakes {
  Handle made, remade, child, restored, cloned;
  Parms parms;
};

// Makes and remakes `definition` in the current scope, checking that the three modules agree
// on their query and their parameters.
inline Remakes MakeAndRemake(const ModuleDefinition& definition) {
  constexpr std::uint64_t kSeed = 7;
  seed(kSeed);
  Remakes m;
  m.made = module(definition);
  const std::vector<ModuleRow> rows = describe(m.made);
  EXPECT_EQ(rows.size(), 1u);
  if (rows.empty()) return m;
  EXPECT_EQ(rows[0].kind, definition.kind);
  const ModuleDefinition again{rows[0].kind, rows[0].name, {}, rows[0].options, {}};
  seed(kSeed);
  m.remade = module(again);
  ExpectSameRows(describe(m.remade), rows);
  ExpectSameRows(describe(m.remade, false), describe(m.made, false));
  ModuleDefinition wrapped = Def("sequential");
  wrapped.children = {again};
  seed(kSeed);
  m.child = module(wrapped);
  // From state and by clone, under another seed: the values must come from made.
  seed(kSeed + 1);
  m.restored = module(state(m.made));
  m.cloned = clone(m.made);
  ExpectSameRows(describe(m.restored), rows);
  for (const std::string& name : parmnames(m.made)) {
    m.parms[name] = tensor(parm(m.made, name));
    EXPECT_TRUE(at::equal(tensor(parm(m.remade, name)), m.parms[name])) << name;
    EXPECT_TRUE(at::equal(tensor(parm(m.child, "0." + name)), m.parms[name])) << name;
    EXPECT_TRUE(at::equal(tensor(parm(m.restored, name)), m.parms[name])) << name;
    EXPECT_TRUE(at::equal(tensor(parm(m.cloned, name)), m.parms[name])) << name;
  }
  return m;
}

// c's module, made, remade from its query and wrapped in a sequential, computes what libtorch
// does on c's input.
inline void ExpectMatchesLibtorchAndRoundTrips(const KindCase& c) {
  auto scope = Scope::Open();
  const Remakes m = MakeAndRemake(c.definition);
  if (c.eval) {
    for (Handle h : {m.made, m.remade, m.child, m.restored, m.cloned}) training(h, false);
  }
  const at::Tensor x = c.indices > 0 ? at::randint(c.indices, c.shape) : Spread(c.shape);
  const at::Tensor expected = c.expected(m.parms, x);
  // Each forward gets its own copy: some kinds work in place.
  const at::Tensor y = forward(m.made, x.clone()).tensor();
  EXPECT_TRUE(at::allclose(y, expected, 1e-4, 1e-5)) << "forward:\n"
                                                     << y << "\nexpected:\n"
                                                     << expected;
  EXPECT_TRUE(at::allclose(forward(m.remade, x.clone()).tensor(), y, 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(forward(m.child, x.clone()).tensor(), y, 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(forward(m.restored, x.clone()).tensor(), y, 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(forward(m.cloned, x.clone()).tensor(), y, 1e-5, 1e-6));
}

// c's definition fails when made, with c's message, and leaves no handle behind.
inline void ExpectFailsNamingTheKind(const BadCase& c) {
  const std::size_t before = live_handles();
  EXPECT_THROW(module(c.definition), Error);
  EXPECT_EQ(ErrorOf([&] { module(c.definition); }), c.error);
  EXPECT_EQ(live_handles(), before);
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_MODULE_CASE_H_
