#!/usr/bin/env bash
# train_bench.sh — the training benchmarks of kscope against libtorch written directly and
# against PyTorch from Python, with one table of medians and ratios.
#
# Runs (builds nothing) the C++ program build/bench/train_bench, which times kscope's run from
# C++, the hand-written libtorch loop and the same model's run through the q plugin (the k host
# and ktorch.so; epoch cases) in turn in one process, then bench/train_bench.py, which times
# the same work in PyTorch; both print "result" lines that the table below is made of. Both run
# on the same number of threads (THREADS, default 1: at::set_num_threads / torch.set_num_threads,
# and OMP_NUM_THREADS). The kscope/libtorch and plugin/kscope ratios are measured within one
# run; kscope/python compares two processes run one after the other.
#
# Build:  cmake --build build --target train_bench
# Run:    bench/train_bench.sh
# Environment: BUILD (build directory, default build/ beside bench/), THREADS (1),
#   REPETITIONS (21 samples per case and side), PYTHON (/usr/bin/python3, with Debian's
#   python3-torch; without torch the python column shows n/a), DEVICE (cpu, or cuda),
#   CASES (epoch,mlp,spirals; also convnet lstm transformer), MODES (PyTorch's: eager, and on
#   torch 2.x compile and reduce-overhead; default eager, and all three on cuda), AMP (none, or
#   bf16: every side's epochs in mixed precision), GRAPH (1: kscope's epochs replay CUDA graphs,
#   the train option graph; cuda only).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD:-$here/../build}
threads=${THREADS:-1}
repetitions=${REPETITIONS:-21}
python=${PYTHON:-/usr/bin/python3}
device=${DEVICE:-cpu}
cases=${CASES:-epoch,mlp,spirals}
if [[ $device == cuda* ]]; then modes=${MODES:-eager,compile,reduce-overhead}; else modes=${MODES:-eager}; fi
amp=${AMP:-none}
graph=$([ "${GRAPH:-0}" = 1 ] && echo true || echo false)
export OMP_NUM_THREADS=$threads

if [[ ! -x $build/bench/train_bench ]]; then
  echo "train_bench.sh: $build/bench/train_bench not found: cmake --build build --target train_bench" >&2
  exit 1
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT

"$build/bench/train_bench" --threads="$threads" --repetitions="$repetitions" --device="$device" \
  --cases="$cases" --amp="$amp" --graph="$graph" | tee -a "$results"
echo
if "$python" -c 'import torch' 2>/dev/null; then
  "$python" "$here/train_bench.py" --threads "$threads" --repetitions "$repetitions" \
    --device "$device" --cases "$cases" --modes "$modes" --amp "$amp" | tee -a "$results"
else
  echo "train_bench.sh: $python has no torch (apt-get install python3-torch): python column left out"
fi

echo
echo "Medians in ms on $device, $threads thread(s), amp $amp, kscope's graph $graph; per epoch"
echo "through run (spirals: one full-batch"
echo "step through backstep); the cases: bench/train_cases.h. plugin: the same run through the q"
echo "plugin in the k host. plugin/k (plugin/kscope) and kscope/libtorch: the medians of the"
echo "ratios of samples taken back to back in one process; the others: the ratio of the medians of"
echo "two processes run one after the other (python: PyTorch eager; compile, compile-ro:"
echo "torch.compile, default mode and reduce-overhead). Targets: kscope/libtorch <= 1.03 on the CPU,"
echo "plugin/kscope <= 1.03."
awk -F'\t' -v cases="$cases" '
  $1 == "result" { ms[$2, $3] = $4 }
  $1 == "ratio" { paired[$2] = $3 }
  $1 == "plugin_ratio" { plugin[$2] = $3 }
  function cell(c, s) { return ((c, s) in ms) ? sprintf("%11.3f", ms[c, s]) : sprintf("%11s", "n/a") }
  function ratio(c, s) {
    if (s == "libtorch" && c in paired) return sprintf("%9.3f", paired[c])
    return ((c, "kscope") in ms && (c, s) in ms) ? sprintf("%9.3f", ms[c, "kscope"] / ms[c, s]) : sprintf("%9s", "n/a")
  }
  END {
    printf "%-12s %11s %11s %11s %11s %11s %11s %9s %9s %9s %9s %9s\n", "case", "kscope", "plugin",
      "libtorch", "python", "compile", "compile-ro", "plugin/k", "/libtorch", "/python", "/compile",
      "/comp-ro"
    n = split(cases, names, ",")
    for (i = 1; i <= n; ++i) {
      c = names[i]
      printf "%-12s %s %s %s %s %s %s %s %s %s %s %s\n", c, cell(c, "kscope"), cell(c, "plugin"),
        cell(c, "libtorch"), cell(c, "python"), cell(c, "compile"), cell(c, "compile-ro"),
        (c in plugin) ? sprintf("%9.3f", plugin[c]) : sprintf("%9s", "n/a"), ratio(c, "libtorch"),
        ratio(c, "python"), ratio(c, "compile"), ratio(c, "compile-ro")
    }
  }' "$results"
