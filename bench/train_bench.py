"""train_bench.py - the cases of bench/train_bench.cc written in PyTorch from Python.

The same data, parameters and work as the C++ program's libtorch side (same seeds, so the
first losses printed on the "check" lines agree with its):

  epoch:   one epoch of 60000x784 randn inputs and randint 10 targets, batch 1000, a 784->10
           linear with cross-entropy and sgd (lr .01); per batch of rows (a slice view, no
           copy) zero_grad, forward, cross_entropy, backward, step, the loss kept (detached);
           the mean of the batch losses, read as a float.
  mlp:     the same epoch on 5120 rows, batch 64, a 784-1024-1024-10 MLP with relu.
  spirals: one full-batch step on 3 classes x 1000 spiral points with a 2-100-3 MLP,
           cross-entropy and sgd (lr .2, momentum .99); the loss read as a float.

zero_grad with this torch's default, as the C++ optimizer of the same libtorch: 1.13 zeroes the
gradients, 2.x sets them to None. After the check call and one untimed warm-up sample,
--repetitions samples (one epoch, or 20 steps) are timed with time.perf_counter; the median is
reported with the fastest and slowest. torch runs on --threads intra-op threads.

Output: a human line per case, and "result<TAB>case<TAB>python<TAB>median ms<TAB>min ms<TAB>max ms"
lines for bench/train_bench.sh.

Run:  /usr/bin/python3 bench/train_bench.py [--threads 1] [--repetitions 21]
      (Debian's python3-torch, built on the same libtorch 1.13 as the C++ side)
"""
import argparse
import os
import statistics
import time

import torch

FEATURES, CLASSES = 784, 10
EPOCH_LR = 0.01
SPIRAL_POINTS, SPIRAL_CLASSES, HIDDEN = 1000, 3, 100
SPIRAL_LR, SPIRAL_MOMENTUM = 0.2, 0.99
SPIRAL_STEPS = 20  # steps per timed sample
DATA_SEED, PARAMETER_SEED = 0, 1  # train_bench.cc uses the same


def time_case(name, call, repetitions, per):
    """Prints the first call's loss, warms up, then returns the median, min and max ms per call."""
    print(f"check {name:<8} first loss: python {call():.6f}")
    samples = []
    for i in range(repetitions + 1):
        start = time.perf_counter()
        for _ in range(per):
            call()
        if i > 0:  # the first sample is the warm-up
            samples.append((time.perf_counter() - start) * 1000 / per)
    return statistics.median(samples), min(samples), max(samples)


def epoch_case(name, rows, batch, hidden, repetitions):
    """An epoch of `rows` rows in batches of `batch` through 784 -> hidden... -> 10 (relu after
    each hidden layer), layers made in order from the same seed as train_bench.cc's."""
    torch.manual_seed(DATA_SEED)
    x, y = torch.randn(rows, FEATURES), torch.randint(CLASSES, (rows,))
    torch.manual_seed(PARAMETER_SEED)
    layers, width = [], FEATURES
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    mlp = torch.nn.Sequential(*layers, torch.nn.Linear(width, CLASSES))
    sgd = torch.optim.SGD(mlp.parameters(), lr=EPOCH_LR)

    def epoch():
        losses = []
        for row in range(0, rows, batch):
            sgd.zero_grad()
            loss = torch.nn.functional.cross_entropy(mlp(x[row:row + batch]), y[row:row + batch])
            loss.backward()
            sgd.step()
            losses.append(loss.detach())
        return (torch.stack(losses).sum() / len(losses)).item()

    return time_case(name, epoch, repetitions, 1)


def spirals():
    """Points along each class's spiral arm with noise in the angle, as train_bench.cc."""
    xs, ys = [], []
    radius = torch.linspace(0, 1, SPIRAL_POINTS)
    for c in range(SPIRAL_CLASSES):
        angle = torch.linspace(c * 4.0, (c + 1) * 4.0, SPIRAL_POINTS) + torch.randn(SPIRAL_POINTS) * 0.2
        xs.append(torch.stack([radius * torch.sin(angle), radius * torch.cos(angle)], 1))
        ys.append(torch.full((SPIRAL_POINTS,), c, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


def spirals_case(repetitions):
    torch.manual_seed(DATA_SEED)
    x, y = spirals()
    torch.manual_seed(PARAMETER_SEED)
    mlp = torch.nn.Sequential(torch.nn.Linear(2, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, SPIRAL_CLASSES))
    sgd = torch.optim.SGD(mlp.parameters(), lr=SPIRAL_LR, momentum=SPIRAL_MOMENTUM)

    def step():
        sgd.zero_grad()
        loss = torch.nn.functional.cross_entropy(mlp(x), y)
        loss.backward()
        sgd.step()
        return loss.item()

    return time_case("spirals", step, repetitions, SPIRAL_STEPS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--repetitions", type=int, default=21, help="timed samples per case")
    args = parser.parse_args()
    if args.threads < 1 or args.repetitions < 1:
        parser.error("--threads and --repetitions must be at least 1")
    torch.set_num_threads(args.threads)
    print(f"train_bench.py: torch {torch.__version__}, threads {torch.get_num_threads()} "
          f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}), {args.repetitions} repetitions, medians")
    results = {"epoch": epoch_case("epoch", 60000, 1000, [], args.repetitions),
               "mlp": epoch_case("mlp", 5120, 64, [1024, 1024], args.repetitions),
               "spirals": spirals_case(args.repetitions)}
    print("\nPyTorch from Python, median ms (epoch, mlp: per epoch; spirals: per step):")
    for name, (median, low, high) in results.items():
        print(f"{name:<8} python {median:9.3f} ms")
        print(f"result\t{name}\tpython\t{median:.4f}\t{low:.4f}\t{high:.4f}")


if __name__ == "__main__":
    main()
