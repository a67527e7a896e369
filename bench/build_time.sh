#!/usr/bin/env bash
# Measures the build times docs/building.md reports, on this machine, from the
# committed HEAD of this repository:
#   cold   fresh clone, empty ccache: the main example's target alone (README's first command
#          after apt), then everything else (the rest of README's second command's build)
#   warm   a second fresh clone in another folder, same cache: the whole build again
#   edit   in that clone, one api/ source changed by a line of code (so ccache cannot serve it)
#          and the whole build (library, plugin, tests, examples, benchmarks) brought up to date
# Needs the packages .ci/setup installs (run it once first). Leaves the clones and the cache in
# WORK_DIR (default: a new temporary folder) and prints its path.
#   bash bench/build_time.sh [WORK_DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
export CCACHE_DIR=$work/ccache
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

# timed LABEL COMMAND...: runs COMMAND quietly (its output in $work/last.log, shown on failure)
# and prints LABEL with the wall time.
timed() {
  local label=$1 start
  shift
  start=$(date +%s.%N)
  "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log"; echo "build_time: '$label' failed" >&2; exit 1; }
  awk -v s="$start" -v e="$(date +%s.%N)" -v l="$label" \
    'BEGIN { t = e - s; printf "%-58s %3dm%04.1fs\n", l, int(t / 60), t - 60 * int(t / 60) }'
}

echo "build_time: $(nproc) CPUs, $(git -C "$repo" rev-parse --short HEAD), work in $work"
ccache -C >/dev/null
git clone -q "$repo" "$work/cold"
git clone -q "$repo" "$work/warm"
timed "configure (cold clone)" bash "$work/cold/.ci/setup"
timed "cold: main example (library + spirals_example)" cmake --build "$work/cold/build" --target spirals_example
timed "cold: the rest (plugin, tests, examples, benchmarks)" cmake --build "$work/cold/build"

ccache -z >/dev/null
timed "configure (second clone, another folder)" bash "$work/warm/.ci/setup"
timed "warm: whole build in the second clone" cmake --build "$work/warm/build"
ccache -s | grep -E '^ *(Hits|Misses):' | sed 's/^ */  ccache /'

nonce=$(date +%s%N)
echo "namespace kscope { [[maybe_unused]] static const int kBuildTimeEdit$nonce = 1; }" >>"$work/warm/api/tensor.cc"
timed "edit: api/tensor/tensor.cc changed, whole build brought up to date" cmake --build "$work/warm/build"
