/ kscope.q — loads kscope's ktorch.so and adds q-idiomatic scope helpers.
/
/   \l kscope.q                  every plugin function in the root namespace, as ktorch scripts
/                                expect ({key[x]set'x}(`ktorch 2:`fns,1)[])
/   .kscope.ns:`.t; \l kscope.q  the functions in namespace .t instead (.t.tensor, .t.free, ...)
/   .kscope.lib:`:/path/ktorch   the shared library to load (default `ktorch)
/
/   withscope[f;x]               apply rank-1 f to x in a new scope: pointers in the result (atom,
/                                list or dictionary) move to the caller's scope, every other
/                                pointer f created is freed; on an error the scope still closes
/                                and the error is signalled again
/   withscopen[f;(x;y;..)]       the same for a function of several arguments
/   s:scope[] ... endscope(s;r)  the explicit form: r's pointers survive, the rest is freed
/   setting`strict               1b: creating a pointer outside every scope is an error
/
/   leak checks, for q unit tests (qspec, k4unit, or plain asserts):
/   c:.kscope.leaks.checkpoint[] a checkpoint: pointers made after it are the code's
/   .kscope.leaks.list c         obj[]'s rows of the pointers made since c and still alive
/   .kscope.leaks.free c         frees them; returns how many
/   .kscope.leaks.check[f;x]     f x, then: if f left pointers alive, frees them and signals
/                                'leaks: N pointer(s) left behind, now freed: tensor from zeros, ..;
/                                bytes left: cpu 4096, ..
/                                (f's own error, if any, is signalled after freeing its leaks)

.kscope.lib:@[value;`.kscope.lib;`ktorch];
.kscope.ns:@[value;`.kscope.ns;`];
.kscope.fns:(.kscope.lib 2:`fns,1)[];
.kscope.into:{[ns] {[ns;name;f] (` sv ns,name) set f}[ns]'[key .kscope.fns;value .kscope.fns];};
$[null .kscope.ns; {key[x]set'x} .kscope.fns; .kscope.into .kscope.ns];

.kscope.withscope:{[f;x] .kscope.fns[`withscope](f;x)};
.kscope.withscopen:{[f;args] .kscope.fns[`withscope] (enlist f),args};
$[null .kscope.ns; [withscope::.kscope.withscope; withscopen::.kscope.withscopen];
  [(` sv .kscope.ns,`withscope) set .kscope.withscope; (` sv .kscope.ns,`withscopen) set .kscope.withscopen]];

.kscope.leaks.checkpoint:{[x] .kscope.fns[`leaks][]};
.kscope.leaks.list:{[c] .kscope.fns[`leaks] c};
.kscope.leaks.free:{[c] .kscope.fns[`leaks](c;`free)};
.kscope.leaks.check:{[f;x]
  c:.kscope.leaks.checkpoint[];
  r:@[f;x;{[c;e] .kscope.leaks.free c; 'e}[c]];
  .kscope.fns[`leaks](c;`check);
  r};
