"""PyTorch's side of the interop tests (tests/python_torch.h): state dicts and TorchScript files
written and read by PyTorch itself.

  python pytorch_interop.py make DIR
      for each architecture NAME: DIR/NAME.pt, the model's state dict
      (torch.save(model.state_dict())), DIR/NAME.io.pt, {"x": input, "y": its output}, and
      DIR/NAME.x.txt and DIR/NAME.y.txt, x's and y's sizes on one line and their values on the
      next (for k data); and
      the TorchScript files DIR/mlp.script.pt (torch.jit.script) and DIR/convnet.script.pt
      (torch.jit.trace, in evaluation mode)
  python pytorch_interop.py makept2 DIR DEVICE        (PyTorch 2.x)
      DIR/mlp.DEVICE.pt2: the mlp of DIR/mlp.pt on DEVICE (cpu or cuda), exported by
      torch.export with a dynamic batch size and compiled by AOTInductor into a package
  python pytorch_interop.py output DIR NAME statedict|script
      loads kscope's file for NAME: DIR/NAME.kscope.pt (savestatedict) strictly into a fresh
      NAME model, or DIR/NAME.kscope.script.pt (savescript) with torch.jit.load; prints
      "NAME: PyTorch <version>", then its output on x, flattened, one line of numbers

The architectures (kscope's twins are in the tests): a sequential MLP, a convnet with batchnorm
and pooling, a two-layer LSTM (batch first) and a transformer encoder layer. Outputs are computed
in evaluation mode with gradients on, so PyTorch 2.x's fused encoder fast path (taken only
without gradients) does not differ from libtorch's C++ layer.
"""
import sys

import torch
from torch import nn


def architectures():
    return {
        "mlp": (lambda: nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4)), (5, 6)),
        "convnet": (lambda: nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 5)),
                    (3, 1, 8, 8)),
        "lstm": (lambda: nn.LSTM(5, 7, num_layers=2, batch_first=True), (3, 4, 5)),
        "transformer": (lambda: nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0), (6, 2, 16)),
    }


def numbers(t):
    """t's values, flattened, as text that reads back exactly as float32."""
    return " ".join(f"{v:.9g}" for v in t.flatten().tolist())


def output(model, x):
    model.eval()
    y = model(x)
    return (y[0] if isinstance(y, tuple) else y).detach()


def make(directory):
    torch.manual_seed(0)
    for name, (build, shape) in architectures().items():
        model = build()
        model.train()
        for _ in range(3):  # batchnorm's running statistics move away from their start
            model(torch.randn(shape))
        x = torch.randn(shape)
        torch.save(model.state_dict(), f"{directory}/{name}.pt")
        torch.save({"x": x, "y": output(model, x)}, f"{directory}/{name}.io.pt")
        for label, t in (("x", x), ("y", output(model, x))):
            with open(f"{directory}/{name}.{label}.txt", "w") as text:
                text.write(" ".join(map(str, t.shape)) + "\n" + numbers(t) + "\n")
        if name == "mlp":
            torch.jit.save(torch.jit.script(model), f"{directory}/mlp.script.pt")
        elif name == "convnet":
            torch.jit.save(torch.jit.trace(model, x), f"{directory}/convnet.script.pt")


def make_pt2(directory, device):
    build, _ = architectures()["mlp"]
    model = build()
    model.load_state_dict(torch.load(f"{directory}/mlp.pt"))
    model = model.eval().to(device)
    x = torch.load(f"{directory}/mlp.io.pt")["x"].to(device)
    batch = torch.export.Dim("batch", min=1, max=1024)
    program = torch.export.export(model, (x,), dynamic_shapes=({0: batch},))
    torch._inductor.aoti_compile_and_package(program,
                                             package_path=f"{directory}/mlp.{device}.pt2")


def kscope_output(directory, name, form):
    if form == "script":
        model = torch.jit.load(f"{directory}/{name}.kscope.script.pt")
    else:
        build, _ = architectures()[name]
        model = build()
        model.load_state_dict(torch.load(f"{directory}/{name}.kscope.pt"), strict=True)
    y = output(model, torch.load(f"{directory}/{name}.io.pt")["x"])
    print(f"{name}: PyTorch {torch.__version__}")
    print(numbers(y))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "makept2":
        make_pt2(sys.argv[2], sys.argv[3])
    else:
        kscope_output(sys.argv[2], sys.argv[3], sys.argv[4])
