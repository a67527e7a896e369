#!/usr/bin/env bash
# train_bench.sh — the training benchmarks of kscope against libtorch written directly and
# against PyTorch from Python, with one table of medians and ratios.
#
# Runs (builds nothing) the C++ program build/bench/train_bench, which times kscope and the
# hand-written libtorch loop alternately in one process, then bench/train_bench.py, which times
# the same work in PyTorch; both print "result" lines that the table below is made of. Both run
# on the same number of threads (THREADS, default 1: at::set_num_threads / torch.set_num_threads,
# and OMP_NUM_THREADS). The kscope/libtorch ratio is measured within one run; kscope/python
# compares two processes run one after the other.
#
# Build:  cmake --build build --target train_bench
# Run:    bench/train_bench.sh
# Environment: BUILD (build directory, default build/ beside bench/), THREADS (1),
#   REPETITIONS (21 samples per case and side), PYTHON (/usr/bin/python3, with Debian's
#   python3-torch; without torch the python column shows n/a).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD:-$here/../build}
threads=${THREADS:-1}
repetitions=${REPETITIONS:-21}
python=${PYTHON:-/usr/bin/python3}
export OMP_NUM_THREADS=$threads

if [[ ! -x $build/bench/train_bench ]]; then
  echo "train_bench.sh: $build/bench/train_bench not found: cmake --build build --target train_bench" >&2
  exit 1
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT

"$build/bench/train_bench" --threads="$threads" --repetitions="$repetitions" | tee -a "$results"
echo
if "$python" -c 'import torch' 2>/dev/null; then
  "$python" "$here/train_bench.py" --threads "$threads" --repetitions "$repetitions" | tee -a "$results"
else
  echo "train_bench.sh: $python has no torch (apt-get install python3-torch): python column left out"
fi

echo
echo "Medians in ms on $threads thread(s); epoch: one epoch of 60000x784 (batch 1000, 784->10 linear,"
echo "ce, sgd .01) through run; mlp: one epoch of 5120x784 (batch 64, 784-1024-1024-10 relu, ce, sgd"
echo ".01) through run; spirals: one full-batch step of 3x1000 points (2-100-3, ce, sgd .2 .99)"
echo "through backstep. kscope/libtorch: the median of the ratios of samples taken back to back in one"
echo "process; kscope/python: the ratio of the medians of two processes run one after the other."
echo "Targets: kscope/libtorch <= 1.03, kscope/python < 1."
awk -F'\t' '
  $1 == "result" { ms[$2, $3] = $4 }
  $1 == "ratio" { paired[$2] = $3 }
  function cell(c, s) { return ((c, s) in ms) ? sprintf("%12.3f", ms[c, s]) : sprintf("%12s", "n/a") }
  function ratio(c, s) {
    if (s == "libtorch" && c in paired) return sprintf("%15.3f", paired[c])
    return ((c, "kscope") in ms && (c, s) in ms) ? sprintf("%15.3f", ms[c, "kscope"] / ms[c, s]) : sprintf("%15s", "n/a")
  }
  END {
    printf "%-8s %12s %12s %12s %15s %15s\n", "case", "kscope ms", "libtorch ms", "python ms", "kscope/libtorch", "kscope/python"
    n = split("epoch mlp spirals", cases, " ")
    for (i = 1; i <= n; ++i) {
      c = cases[i]
      printf "%-8s %s %s %s %s %s\n", c, cell(c, "kscope"), cell(c, "libtorch"), cell(c, "python"), ratio(c, "libtorch"), ratio(c, "python")
    }
  }' "$results"
