/ spirals.q — examples/spirals.cc in q: three interleaved spirals (3 classes x 1000 points), a
/ 2-100-3 MLP, cross-entropy loss and sgd (lr .2, momentum .99), 1000 full-batch steps with a
/ progress line every 100 (loss, steps per second, time), then the accuracy on the training
/ points and on a fresh sample, and obj[] showing nothing live.
/
/ Every step runs in withscope (q/kscope.q): the step's output and loss tensors are freed as it
/ returns, and only the loss, a k value, comes back. Signals an error below 95% training
/ accuracy or with a pointer left live.
/
/ Run from the repository root, with kscope's build/q/ktorch.so in $QHOME/l64 or on LD_LIBRARY_PATH:
/   q examples/q/spirals.q
/ The test suite makes the same calls through the k host, with 100 points per class:
/ tests/plugin_examples_test.cc, PluginExamplesTest.SpiralsScript.

\l q/kscope.q
seed 123
n:1000; k:3                                                 / points per class, classes
spiral:{x:til[x]%x-1; flip x*/:(sin;cos)@\:z+sum 4*(x;y)}    / arm y of x points, angle noise z
points:{[n] z:tensor(`randn;k,n;`double); "e"$raze spiral[n]'[til k;.2*tensor z]}
secs:{1e-9*"j"$.z.p-x}                                      / seconds since x

q:module seq(`sequential;(`linear;2;100);`relu;(`linear;100;k))
l:loss`ce
o:opt(`sgd;q;.2;.99)
x:tensor withscope[points;n]                                / the noise tensor z dies with the scope
y:tensor c:til[k]where k#n                                  / class 0,1,2

trainstep:{[q;l;o;x;y] zerograd o; r:loss(l;forward(q;x);y); backward r; step o; tensor r}
t:.z.p
{[i] r:withscopen[trainstep;(q;l;o;x;y)];
  if[0=i mod 100; -1 "step ",(-4$string i),"  loss ",(.Q.f[4;r]),"  ",(string floor i%secs t)," steps/s  ",(.Q.f[2;secs t]),"s elapsed"];
  } each 1+til 1000;

accuracy:{[x] 100*avg c={x?max x}each evaluate(q;x)}        / percent of points given their own class
a:accuracy x
-1 "training accuracy ",(.Q.f[1;a]),"%, accuracy on a fresh sample ",(.Q.f[1;accuracy withscope[points;n]]),"%";

free(q;l;o;x;y)
show obj[]
if[count obj[]; '"spirals: pointers left live"]
if[not a>95; '"spirals: training accuracy below 95%"]
