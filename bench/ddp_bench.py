"""ddp_bench.py - the data-parallel cases of bench/distributed_bench.cc written with PyTorch's
DistributedDataParallel (Gloo, the CPU), the anchor kscope's data-parallel epoch is measured
against.

The same work as distributed_bench's ranks: ROWS randn inputs of 784 features and randint 10
targets (seed 0, the same on every rank), an MLP 784 -> HIDDEN... -> 10 (a 784->10 linear when
no hidden layer is given), cross-entropy, sgd (lr .01). Rank r of WORLD takes batches r, r+WORLD,
... of the rows in order (what a kscope model bound to a group does without shuffling); each
step is zero_grad, forward, cross_entropy, backward (where DDP averages the gradients over the
ranks, bucket by bucket as backward produces them), step, the batch loss kept (detached), their
mean read as a float at the epoch's end. With --world 1 there is no DDP: one process training on
every batch, PyTorch's one-process epoch. Each process runs torch on one thread.

After one untimed epoch, --repetitions epochs are timed on rank 0 with time.perf_counter; rank 0
prints "result<TAB>ddp<TAB>WORLD<TAB>median ms<TAB>min ms<TAB>max ms<TAB>minor page faults per
step" (its own, over the timed epochs).

Run:  /usr/bin/python3 bench/ddp_bench.py [--world 2] [--rows 60000] [--batch 1000]
          [--hidden 1024,1024] [--repetitions 11]
      (Debian's python3-torch: the same libtorch 1.13 as the C++ side; distributed_bench runs it)
"""
import argparse
import os
import resource
import statistics
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

FEATURES, CLASSES, LR = 784, 10, 0.01


def mlp(hidden):
    layers, width = [], FEATURES
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, CLASSES))
    return torch.nn.Sequential(*layers)


def rank_main(rank, args, rendezvous):
    torch.set_num_threads(1)
    if args.world > 1:
        dist.init_process_group("gloo", init_method="file://" + rendezvous, rank=rank,
                                world_size=args.world)
    torch.manual_seed(0)
    x, y = torch.randn(args.rows, FEATURES), torch.randint(CLASSES, (args.rows,))
    model = mlp(args.hidden)
    if args.world > 1:
        model = DistributedDataParallel(model)
    sgd = torch.optim.SGD(model.parameters(), lr=LR)
    starts = range(rank * args.batch, args.rows - args.batch + 1, args.world * args.batch)

    def epoch():
        losses = []
        for a in starts:
            sgd.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[a:a + args.batch]),
                                                     y[a:a + args.batch])
            loss.backward()
            sgd.step()
            losses.append(loss.detach())
        return torch.stack(losses).mean().item()

    epoch()  # warm-up
    samples = []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(args.repetitions):
        start = time.perf_counter()
        epoch()
        samples.append((time.perf_counter() - start) * 1000)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    if rank == 0:
        print(f"result\tddp\t{args.world}\t{statistics.median(samples):.3f}\t{min(samples):.3f}"
              f"\t{max(samples):.3f}\t{faults / (args.repetitions * len(starts)):.1f}", flush=True)
    if args.world > 1:
        dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--rows", type=int, default=60000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--hidden", default="", help="hidden widths, comma-separated")
    parser.add_argument("--repetitions", type=int, default=11)
    args = parser.parse_args()
    args.hidden = [int(h) for h in args.hidden.split(",") if h]
    with tempfile.TemporaryDirectory() as directory:
        rendezvous = os.path.join(directory, "rendezvous")
        if args.world == 1:
            rank_main(0, args, rendezvous)
        else:
            mp.spawn(rank_main, args=(args, rendezvous), nprocs=args.world)


if __name__ == "__main__":
    main()
