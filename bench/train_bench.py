"""train_bench.py - the cases of bench/train_bench.cc written in PyTorch from Python.

The same data, parameters and work as the C++ program's libtorch side (same seeds, so the
first losses printed on the "check" lines agree with its, but for convnet, whose C++ sides start
from kscope's conv2d values):

  epoch        one epoch of 60000x784 randn inputs and randint 10 targets, batch 1000, a 784->10
               linear with cross-entropy and sgd (lr .01); per batch of rows (a slice view, no
               copy) zero_grad, forward, cross_entropy, backward, step, the loss kept (detached);
               the mean of the batch losses, read once, at the epoch's end.
  mlp          the same epoch on 5120 rows, batch 64, a 784-1024-1024-10 MLP with relu.
  convnet      10240 28x28 images, batch 128: conv 1->32 3x3, relu, 2x2 max pool, conv 32->64
               3x3, relu, 2x2 max pool, flatten, linear 1600->10; adam .001.
  lstm         10240 sequences of 28x28, batch 128: lstm 128 (batch first), last step through
               linear 128->10; adam .001.
  transformer  2048 sequences of 128 tokens of 1000, batch 32: embedding 256, 4 encoder layers
               (8 heads, feed-forward 1024, no dropout), position 0 through linear 256->10; adam
               .001.
  spirals      one full-batch step on 3 classes x 1000 spiral points with a 2-100-3 MLP,
               cross-entropy and sgd (lr .2, momentum .99); the loss read as a float.

--amp bf16 runs forward and loss under torch.autocast(dtype=torch.bfloat16) in the epoch
cases (the C++ program's --amp). --device puts data and model on cpu or cuda; --modes times each case as PyTorch eager and, on
torch 2.x, compiled (torch.compile(model), default mode and mode="reduce-overhead"). The
optimizers are torch.optim's with their defaults for the device (foreach on CUDA). zero_grad
with this torch's default, as the C++ optimizer of the same libtorch: 1.13 zeroes the gradients,
2.x sets them to None. After the check call and one untimed warm-up sample, --repetitions
samples (one epoch, or 20 steps) are timed with time.perf_counter from the end of the last
synchronization (an epoch ends by reading its loss); the median is reported with the fastest and
slowest. torch runs on --threads intra-op threads.

Output: a human line per case and mode, and
"result<TAB>case<TAB>side<TAB>median ms<TAB>min ms<TAB>max ms" lines for bench/train_bench.sh, the
side "python" for eager, "compile" and "compile-ro" for the compiled modes.

Run:  /usr/bin/python3 bench/train_bench.py [--threads 1] [--repetitions 21] [--device cpu]
          [--cases epoch,mlp,spirals] [--modes eager] [--amp none]
      (Debian's python3-torch is built on the same libtorch 1.13 as the C++ side)
"""
import argparse
import os
import statistics
import time

import torch

FEATURES, CLASSES = 784, 10
IMAGE, HIDDEN = 28, 128
VOCABULARY, SEQUENCE, WIDTH, HEADS, FEED_FORWARD, LAYERS = 1000, 128, 256, 8, 1024, 4
SPIRAL_POINTS, SPIRAL_CLASSES, SPIRAL_HIDDEN = 1000, 3, 100
SPIRAL_LR, SPIRAL_MOMENTUM = 0.2, 0.99
SPIRAL_STEPS = 20  # steps per timed sample
DATA_SEED, PARAMETER_SEED = 0, 1  # train_bench.cc and train_cases.cc use the same
SIDES = {"eager": "python", "compile": "compile", "reduce-overhead": "compile-ro"}


def time_case(label, call, repetitions, per):
    """Prints the first call's loss, warms up, then returns the median, min and max ms per call."""
    print(f"check {label:<20} first loss: python {call():.6f}", flush=True)
    samples = []
    for i in range(repetitions + 1):
        start = time.perf_counter()
        for _ in range(per):
            call()
        if i > 0:  # the first sample is the warm-up
            samples.append((time.perf_counter() - start) * 1000 / per)
    return statistics.median(samples), min(samples), max(samples)


class LastStep(torch.nn.Module):
    """The lstm case: the last step of the lstm's output through a linear layer."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(IMAGE, HIDDEN, batch_first=True)
        self.linear = torch.nn.Linear(HIDDEN, CLASSES)

    def forward(self, x):
        return self.linear(self.lstm(x)[0][:, -1])


class Encoder(torch.nn.Module):
    """The transformer case: embedding, encoder over (sequence, batch, width), position 0."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCABULARY, WIDTH)
        layer = torch.nn.TransformerEncoderLayer(WIDTH, HEADS, FEED_FORWARD, dropout=0.0)
        self.encoder = torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False) \
            if torch.__version__ >= "2" else torch.nn.TransformerEncoder(layer, LAYERS)
        self.linear = torch.nn.Linear(WIDTH, CLASSES)

    def forward(self, x):
        return self.linear(self.encoder(self.embed(x).transpose(0, 1))[0])


def mlp(hidden):
    layers, width = [], FEATURES
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    return torch.nn.Sequential(*layers, torch.nn.Linear(width, CLASSES))


def convnet():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(32, 64, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(64 * 5 * 5, CLASSES))


# name: (rows, batch, data maker, model maker, optimizer, lr), as bench/train_cases.h.
CASES = {
    "epoch": (60000, 1000, lambda n: torch.randn(n, FEATURES), lambda: mlp([]), "sgd", 0.01),
    "mlp": (5120, 64, lambda n: torch.randn(n, FEATURES), lambda: mlp([1024, 1024]), "sgd", 0.01),
    "convnet": (10240, 128, lambda n: torch.randn(n, 1, IMAGE, IMAGE), convnet, "adam", 0.001),
    "lstm": (10240, 128, lambda n: torch.randn(n, IMAGE, IMAGE), LastStep, "adam", 0.001),
    "transformer": (2048, 32, lambda n: torch.randint(VOCABULARY, (n, SEQUENCE)), Encoder, "adam",
                    0.001),
}


def epoch_case(name, device, mode, amp, repetitions):
    rows, batch, data, make, optimizer, lr = CASES[name]
    torch.manual_seed(DATA_SEED)
    x = data(rows)
    y = torch.randint(CLASSES, (rows,))
    x, y = x.to(device), y.to(device)
    torch.manual_seed(PARAMETER_SEED)
    model = make().to(device)
    opt = (torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam)(model.parameters(), lr=lr)
    forward = model if mode == "eager" else \
        torch.compile(model, **({} if mode == "compile" else {"mode": mode}))

    def epoch():
        losses = []
        for row in range(0, rows, batch):
            opt.zero_grad()
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp == "bf16"):
                loss = torch.nn.functional.cross_entropy(forward(x[row:row + batch]),
                                                         y[row:row + batch])
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return (torch.stack(losses).sum() / len(losses)).item()

    return time_case(f"{name} {mode}", epoch, repetitions, 1)


def spirals():
    """Points along each class's spiral arm with noise in the angle, as train_bench.cc."""
    xs, ys = [], []
    radius = torch.linspace(0, 1, SPIRAL_POINTS)
    for c in range(SPIRAL_CLASSES):
        angle = torch.linspace(c * 4.0, (c + 1) * 4.0, SPIRAL_POINTS) + torch.randn(SPIRAL_POINTS) * 0.2
        xs.append(torch.stack([radius * torch.sin(angle), radius * torch.cos(angle)], 1))
        ys.append(torch.full((SPIRAL_POINTS,), c, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


def spirals_case(device, mode, repetitions):
    torch.manual_seed(DATA_SEED)
    x, y = spirals()
    x, y = x.to(device), y.to(device)
    torch.manual_seed(PARAMETER_SEED)
    model = torch.nn.Sequential(torch.nn.Linear(2, SPIRAL_HIDDEN), torch.nn.ReLU(),
                                torch.nn.Linear(SPIRAL_HIDDEN, SPIRAL_CLASSES)).to(device)
    sgd = torch.optim.SGD(model.parameters(), lr=SPIRAL_LR, momentum=SPIRAL_MOMENTUM)
    forward = model if mode == "eager" else \
        torch.compile(model, **({} if mode == "compile" else {"mode": mode}))

    def step():
        sgd.zero_grad()
        loss = torch.nn.functional.cross_entropy(forward(x), y)
        loss.backward()
        sgd.step()
        return loss.item()

    return time_case(f"spirals {mode}", step, repetitions, SPIRAL_STEPS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--repetitions", type=int, default=21, help="timed samples per case")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--cases", default="epoch,mlp,spirals",
                        help="comma-separated: " + " ".join(list(CASES) + ["spirals"]))
    parser.add_argument("--modes", default="eager",
                        help="comma-separated: eager, compile, reduce-overhead (compiled: torch 2.x)")
    parser.add_argument("--amp", default="none", choices=["none", "bf16"],
                        help="mixed precision of the epoch cases")
    args = parser.parse_args()
    if args.threads < 1 or args.repetitions < 1:
        parser.error("--threads and --repetitions must be at least 1")
    cases = args.cases.split(",")
    modes = args.modes.split(",")
    for name in cases:
        if name not in CASES and name != "spirals":
            parser.error(f"unknown case {name}")
    for mode in modes:
        if mode not in SIDES:
            parser.error(f"unknown mode {mode}")
    if any(m != "eager" for m in modes) and not hasattr(torch, "compile"):
        print(f"train_bench.py: torch {torch.__version__} has no torch.compile: eager only")
        modes = ["eager"]
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    print(f"train_bench.py: torch {torch.__version__}, device {device}, threads "
          f"{torch.get_num_threads()} (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}), "
          f"{args.repetitions} repetitions, medians, amp {args.amp}", flush=True)
    results = {}
    for name in cases:
        for mode in modes:
            results[name, mode] = spirals_case(device, mode, args.repetitions) if name == "spirals" \
                else epoch_case(name, device, mode, args.amp, args.repetitions)
    print("\nPyTorch from Python, median ms (spirals: per step; the others: per epoch):")
    for (name, mode), (median, low, high) in results.items():
        print(f"{name:<12} {mode:<16} {median:9.3f} ms")
        print(f"result\t{name}\t{SIDES[mode]}\t{median:.4f}\t{low:.4f}\t{high:.4f}")


if __name__ == "__main__":
    main()
