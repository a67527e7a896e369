// Adapters for ktorch's functions on k data alone: dv and tree (a nested module definition to
// depth-value pairs and back), callbacks (the callback signatures a callback module takes) and
// resolve (k data through q's serialisation and back).
//
//   dv (`sequential; enlist(`linear;128;10); `relu)  ->
//   ((0;`sequential);(1;(`linear;128;10));(1;`relu)) tree
//   ((0;`sequential);(1;(`linear;128;10));(1;`relu))  ->  (`sequential;,(`linear;128;10);,`relu)
#include <algorithm>
#include <string>

#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// q's one-line text of x (.Q.s1), "" if q gives none.
std::string OneLine(K x) {
  K text = kabi::k(0, ".Q.s1", kabi::r1(x), static_cast<K>(nullptr));
  std::string out;
  if (text != nullptr && text->t == kabi::kChar)
    out.assign(kabi::Chars(text), static_cast<std::size_t>(text->n));
  if (text != nullptr) kabi::r0(text);
  return out;
}

// Appends x's (depth;value) pair to *pairs, then its children's at depth + 1: the value is x
// itself for a typed object or an empty list, else x's first item (a 1-symbol list becomes
// its symbol); a general list's other items are its children.
void AppendPairs(long long depth, K x, K* pairs) {
  K head = x->t != kabi::kMixed || x->n == 0 ? x : kabi::Items(x)[0];
  K value;
  if (head->t == -kabi::kSymbol) {
    value = kabi::ks(head->s);
  } else if (head->t == kabi::kSymbol && head->n == 1) {
    value = kabi::ks(kabi::Symbols(head)[0]);
  } else {
    value = kabi::r1(head);
  }
  kabi::jk(pairs, kabi::knk(2, kabi::kj(depth), value));
  if (x->t == kabi::kMixed) {
    for (long long i = 1; i < x->n; ++i) AppendPairs(depth + 1, kabi::Items(x)[i], pairs);
  }
}

K Dv(K x) {
  return Guard([&] {
    K pairs = kabi::ktn(kabi::kMixed, 0);
    AppendPairs(0, x, &pairs);
    return pairs;
  });
}

// -1 for one (depth;value) pair, n for a list of n pairs, 0 for anything else.
long long PairCount(K x) {
  if (x->t != kabi::kMixed) return 0;
  if (x->n == 2 && kabi::Items(x)[0]->t == -kabi::kLong) return -1;
  for (long long i = 0; i < x->n; ++i) {
    if (PairCount(kabi::Items(x)[i]) != -1) return 0;
  }
  return x->n;
}

// The pair at i (x itself when i < 0).
K PairAt(K x, long long i) { return i < 0 ? x : kabi::Items(x)[i]; }
long long DepthAt(K x, long long i) { return kabi::Items(PairAt(x, i))[0]->j; }
K ValueAt(K x, long long i) { return kabi::Items(PairAt(x, i))[1]; }

// The tree of pairs i..j, whose first is at `depth`: its value, then each run of deeper pairs
// that starts one level down as a child tree. A lone symbol becomes a 1-symbol list.
K Subtree(K x, long long i, long long j, long long depth) {
  K value = ValueAt(x, i);
  K tree;
  if (i == j && value->t == -kabi::kSymbol) {
    tree = kabi::ktn(kabi::kSymbol, 1);
    kabi::Symbols(tree)[0] = value->s;
    return tree;
  }
  tree = kabi::ktn(kabi::kMixed, 1);
  kabi::Items(tree)[0] = kabi::r1(value);
  long long start = i + 1;
  for (long long k = start; k <= j; ++k) {
    if (k > start && DepthAt(x, k) - depth == 1) {
      kabi::jk(&tree, Subtree(x, start, k - 1, depth + 1));
      start = k;
    }
    if (k == j) kabi::jk(&tree, Subtree(x, start, j, depth + 1));
  }
  return tree;
}

// What ktorch's error shows: for a general list whose first (up to) two items are vectors of
// one type, its first item that is not a pair; else x.
K FirstNonPair(K x) {
  bool vectors = x->t == kabi::kMixed && x->n > 0;
  for (long long i = 0; vectors && i < std::min<long long>(2, x->n); ++i) {
    K item = kabi::Items(x)[i];
    vectors = item->t > 0 && item->t < 20 && item->t == kabi::Items(x)[0]->t;
  }
  if (vectors) {
    for (long long i = 0; i < x->n; ++i) {
      if (PairCount(kabi::Items(x)[i]) == 0) return kabi::Items(x)[i];
    }
  }
  return x;
}

K Tree(K x) {
  return Guard([&] {
    const long long n = PairCount(x);
    if (n == 0) Fail("unable to parse (value;depth): %s", OneLine(FirstNonPair(x)));
    return n == -1 ? Subtree(x, -1, -1, 0) : Subtree(x, 0, n - 1, 0);
  });
}

// callbacks[]: table fn in out of the q function signatures a callback module can call.
K Callbacks(K) {
  return Guard([] {
    const char* signatures[] = {"{[m;x]}", "{[m;x;y]}", "{[m;x;y;z]}"};
    K fn = kabi::ktn(kabi::kMixed, 3), in = kabi::ktn(kabi::kMixed, 3),
      out = kabi::ktn(kabi::kSymbol, 3);
    char* tensor = kabi::ss(const_cast<char*>("tensor"));
    for (int i = 0; i < 3; ++i) {
      kabi::Items(fn)[i] = kabi::kp(const_cast<char*>(signatures[i]));
      if (i == 0) {
        kabi::Items(in)[i] = kabi::ks(tensor);
      } else {
        K types = kabi::ktn(kabi::kSymbol, i + 1);
        for (int j = 0; j <= i; ++j) kabi::Symbols(types)[j] = tensor;
        kabi::Items(in)[i] = types;
      }
      kabi::Symbols(out)[i] = tensor;
    }
    K names = kabi::ktn(kabi::kSymbol, 3);
    kabi::Symbols(names)[0] = kabi::ss(const_cast<char*>("fn"));
    kabi::Symbols(names)[1] = kabi::ss(const_cast<char*>("in"));
    kabi::Symbols(names)[2] = kabi::ss(const_cast<char*>("out"));
    return kabi::xT(kabi::xD(names, kabi::knk(3, fn, in, out)));
  });
}

// resolve x: x serialised and read back (normalises objects built through the C API).
K Resolve(K x) {
  return Guard([&] {
    K bytes = kabi::b9(-1, x);
    if (bytes == nullptr || bytes->t == -128) {
      if (bytes != nullptr) kabi::r0(bytes);
      Fail("resolve: unable to serialize %s", OneLine(x));
    }
    K back = kabi::d9(bytes);
    kabi::r0(bytes);
    return back;
  });
}

}  // namespace

std::vector<Export> TreeExports() {
  return {Unary("dv", Dv), Unary("tree", Tree), Unary("callbacks", Callbacks),
          Unary("resolve", Resolve)};
}

}  // namespace kscope::q
