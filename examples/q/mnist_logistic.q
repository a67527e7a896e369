/ mnist_logistic.q — examples/mnist_logistic.cc in q: logistic regression on MNIST-shaped
/ generated data, 784 inputs -> 10 classes through one linear layer, cross-entropy loss and sgd,
/ trained by a model with run (batches of 1000, reshuffled every epoch) and scored by testrun.
/ Each class has a mean image (.15 times unit normals, drawn once); a row is its class's mean
/ plus unit noise, so the classes can be learned while chance is 10%. Prints a line per epoch
/ (loss, rows per second, time), the test accuracy, and obj[] showing nothing live.
/
/ The data is made in withscope (q/kscope.q): the index and noise tensors are freed, only the
/ (x;y) pointers come back; every epoch runs in withscope too. Signals an error below 90% test
/ accuracy or with a pointer left live.
/
/ Run from the repository root, with kscope's build/q/ktorch.so in $QHOME/l64 or on LD_LIBRARY_PATH:
/   q examples/q/mnist_logistic.q          (MNIST's sizes: n:60000; N:10000)
/ The test suite makes the same calls through the k host, with 3000 and 1000 rows:
/ tests/plugin_examples_test.cc, PluginExamplesTest.MnistLogisticScript.

\l q/kscope.q
seed 123
n:12000; N:2000; epochs:10                                  / training rows, test rows, epochs
secs:{1e-9*"j"$.z.p-x}                                      / seconds since x

means:withscope[{mul(tensor(`randn;10 784);x)};.15]         / a mean image per class
images:{[means;n] y:tensor(`randint;10;n); (add(index(means;0;y);tensor(`randn;n,784));y)}
d:withscopen[images;(means;n)]                              / training (x;y)
D:withscopen[images;(means;N)]                              / test (x;y)

q:module enlist(`linear;784;10)
m:model(q;loss`ce;opt(`sgd;q;.5))
train(m;`batchsize`shuffle`metrics;(1000;1b;`loss))
test(m;`batchsize`metrics;(1000;`accuracy))
b:train(m;d 0;d 1)
test(m;D 0;D 1)
-1 (string n)," training rows in ",(string b)," batches, ",(string N)," test rows, ",(string epochs)," epochs";

t:.z.p
epoch:{[i] s:.z.p; r:run m;
  -1 "epoch ",(-2$string i),"  loss ",(.Q.f[4;r]),"  ",(string floor n%secs s)," rows/s  ",(.Q.f[2;secs t]),"s elapsed";
  r}
withscope[epoch]each 1+til epochs;
a:testrun m
-1 "test accuracy ",(.Q.f[1;a]),"% (chance 10%, required 90%)";

free(m;means;d 0;d 1;D 0;D 1)
show obj[]
if[count obj[]; '"mnist_logistic: pointers left live"]
if[not a>90; '"mnist_logistic: test accuracy below 90%"]
