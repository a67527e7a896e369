/ distributed_mnist.q — mnist_logistic.q trained data-parallel: one q process per rank of a
/ process group, each taking every world-th batch of the same shuffle, gradients averaged over
/ the ranks in every step (distribute: the model bound to the group), so every rank ends each
/ epoch with the same parameters.
/
/ Start N local ranks with the launcher (a file rendezvous in a fresh directory), or torchrun:
/   examples/launch.sh -n 2 -- q examples/q/distributed_mnist.q
/   python3 -m torch.distributed.run --standalone --nproc_per_node=2 --no_python q examples/q/distributed_mnist.q
/ group[] reads the rank, world and rendezvous the launcher set (torchrun's, srun's, mpirun's or
/ launch.sh's KSCOPE_RANK, KSCOPE_WORLD, KSCOPE_RENDEZVOUS). Started by none, it runs as one rank.
/
/ Every rank makes the same data (seed 123) and starts from rank 0's parameters (distribute
/ broadcasts them). Each epoch prints this task's loss and, on rank 0, the group's loss; the
/ test accuracy is over every rank's share of the test batches (groupaccuracy). Signals an
/ error below 90% group test accuracy, if the ranks' parameters differ, or with a pointer left
/ live. The test suite makes the same calls through the k host as a world of one:
/ tests/plugin_examples_test.cc, PluginExamplesTest.DistributedMnistScript.

\l q/kscope.q
launched:any 0<count each getenv each`RANK`SLURM_PROCID`OMPI_COMM_WORLD_RANK`PMI_RANK`KSCOPE_RANK
seed 123
n:12000; N:2000; epochs:5                                   / training rows, test rows, epochs

means:withscope[{mul(tensor(`randn;10 784);x)};.15]
images:{[means;n] y:tensor(`randint;10;n); (add(index(means;0;y);tensor(`randn;n,784));y)}
d:withscopen[images;(means;n)]
D:withscopen[images;(means;N)]

g:$[launched;group[];group(0;1;`$":/tmp/kscope_distributed_mnist_",string .z.i)]
rank:(group g)`rank
q:module enlist(`linear;784;10)
m:model(q;loss`ce;opt(`sgd;q;.5))
train(m;`batchsize`shuffle`shuffleseed`metrics;(500;1b;7;`loss`grouploss))
test(m;`batchsize`metrics;(500;`groupaccuracy))
train(m;d 0;d 1)
test(m;D 0;D 1)
distribute(m;g)                                             / rank 0's parameters everywhere

epoch:{[i] r:run m;
  -1 "epoch ",(string i),"  task ",(string rank)," loss ",.Q.f[4;r 0];
  if[rank=0; -1 "epoch ",(string i),"  group loss ",.Q.f[4;r 1]];
  r}
withscope[epoch]each 1+til epochs;
a:testrun m
if[rank=0; -1 "group test accuracy ",(.Q.f[1;a]),"% (chance 10%, required 90%)"]

/ the same parameters on every rank: the spread of each value over the ranks is zero
p:copyparms q:module m; w:dict p; allreduce(p;`max)
same:w~dict p; free(p;q)
free(m;g;means;d 0;d 1;D 0;D 1)
if[count obj[]; '"distributed_mnist: pointers left live"]
if[not same; '"distributed_mnist: parameters differ across ranks"]
if[not a>90; '"distributed_mnist: group test accuracy below 90%"]
exit 0
