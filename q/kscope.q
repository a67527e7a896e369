/ kscope.q — loads kscope's ktorch.so and adds q-idiomatic scope helpers.
/
/   \l kscope.q                  every plugin function in the root namespace, as ktorch scripts
/                                expect ({key[x]set'x}(`ktorch 2:`fns,1)[])
/   .kscope.into`.t              the same functions in another namespace as well (.t.tensor ...)
/
/   withscope[f;x]               apply rank-1 f to x in a new scope: pointers in the result (atom,
/                                list or dictionary) move to the caller's scope, every other
/                                pointer f created is freed; on an error the scope still closes
/   withscopen[f;(x;y;..)]       the same for a function of several arguments
/   s:scope[] ... endscope(s;r)  the explicit form: r's pointers survive, the rest is freed
/
/ .kscope.lib names the shared library; set it before loading to use another path.

.kscope.lib:@[value;`.kscope.lib;`ktorch];
.kscope.fns:(.kscope.lib 2:`fns,1)[];
.kscope.into:{[ns] {[ns;name;f] (` sv ns,name) set f}[ns]'[key .kscope.fns;value .kscope.fns];};
{key[x]set'x} .kscope.fns;

withscope:{[f;x] .kscope.fns[`withscope](f;x)};
withscopen:{[f;args] .kscope.fns[`withscope] (enlist f),args};
