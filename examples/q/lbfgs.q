/ lbfgs.q — examples/lbfgs_fit.cc in q: fits y = 1 - 2x + 0.5x² on 101 points of [-1, 1] with a
/ linear layer over the features (x, x²), mean squared error and the LBFGS optimizer (lr 1,
/ strong Wolfe line search), through backstep: LBFGS evaluates the model several times per step,
/ which backstep allows by handing it the training step as a closure. Prints the loss each
/ backstep starts from, the fitted parameters, and obj[] showing nothing live.
/
/ The fitted values are read in withscope (q/kscope.q), which frees the parameter pointers.
/ Signals an error if a parameter is more than 1e-4 from the exact solution (weights -2 and
/ 0.5, bias 1) or with a pointer left live.
/
/ Run from the repository root, with kscope's build/q/ktorch.so in $QHOME/l64 or on LD_LIBRARY_PATH:
/   q examples/q/lbfgs.q
/ The test suite makes the same calls through the k host: tests/plugin_examples_test.cc,
/ PluginExamplesTest.LbfgsScript.

\l q/kscope.q
seed 123
t:-1+til[101]%50                                            / 101 points of [-1, 1]
x:flip "e"$(t;t*t)                                          / features x, x²
y:flip enlist "e"$1+(-2*t)+.5*t*t                           / 1 - 2x + 0.5x², one column

q:module enlist(`linear;2;1)
m:model(q;loss`mse;opt(`lbfgs;q;1.0;`search;`strong_wolfe))
train(m;x;y)
{-1 "backstep ",(string x),"  loss ",string backstep m} each 1+til 5;
f:withscope[{(tensor parm(x;`weight);tensor parm(x;`bias))};m]
w:first f 0; b:first f 1
-1 "fitted bias ",(string b),", weights ",(" "sv string w),"   (exact: bias 1, weights -2 0.5)";

free m
show obj[]
if[count obj[]; '"lbfgs: pointers left live"]
if[1e-4<max abs(b;w 0;w 1)-1 -2 .5; '"lbfgs: the fit is not 1 - 2x + 0.5x²"]
