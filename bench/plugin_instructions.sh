#!/usr/bin/env bash
# plugin_instructions.sh — instructions per call of plugin_bench's rows, counted by callgrind:
# the figures of README's Speed table, reproducible where times swing with the machine's load.
#
# Each row runs alone under `valgrind --tool=callgrind`, exactly N times (plugin_bench
# --iterations=N), counting only inside the row's benchmark function (--toggle-collect), so the
# count per call includes the loop and the row's one-off setup spread over N calls. Rows run
# as many at a time as the machine has CPUs (instruction counts do not depend on load).
# Prints each row's instructions per call, then per call kscope/raw, api/raw, ktorch/raw and
# the overhead ratio (kscope − raw) / (ktorch − raw); for calls that return a pointer also the
# "own" ratio, the k host's pointer objects taken out of both overheads (as plugin_bench does).
#
# Usage: bench/plugin_instructions.sh [BUILD] [--ktorch=PATH] [--iterations=N]
#   BUILD: the build folder (default build); needs valgrind (Debian: valgrind).
#   --ktorch=PATH: the real ktorch's ktorch.so, for its column (tests/differential/README.md
#   says how to build it; never part of this repository). N: calls per row (default 60000).
# Takes about 10 minutes on two CPUs with ktorch's column.
set -euo pipefail

build=build ktorch="" iterations=60000
for arg in "$@"; do
  case $arg in
    --ktorch=*) ktorch=${arg#--ktorch=} ;;
    --iterations=*) iterations=${arg#--iterations=} ;;
    -*) echo "plugin_instructions.sh: unknown option $arg" >&2; exit 2 ;;
    *) build=$arg ;;
  esac
done
bench=$build/bench/plugin_bench
[ -x "$bench" ] || { echo "plugin_instructions.sh: no $bench (cmake --build $build --target plugin_bench)" >&2; exit 2; }
command -v valgrind > /dev/null || { echo "plugin_instructions.sh: needs valgrind" >&2; exit 2; }

plugins=(kscope)
[ -n "$ktorch" ] && plugins+=(ktorch)
calls=("tensor+free" "add handles+free" "add data" "mm handles+free" "mm data" "mapped")

# The benchmark function that runs row CALL/WAY (bench/plugin_bench.cc, bench/plugin_session.cc).
function_of() {
  local call=$1 way=$2
  case $way in
    kscope | ktorch)
      case $call in
        tensor+free) echo PluginTensorFree ;;
        *handles+free) echo CallOnPointers ;;
        *data) echo CallOnData ;;
        mapped) echo PluginMapped ;;
      esac ;;
    api)
      case $call in
        tensor+free) echo ApiTensorFree ;;
        *handles+free) echo ApiOnHandles ;;
        *data) echo ApiOnData ;;
      esac ;;
    raw) [ "$call" = tensor+free ] && echo RawTensor || echo RawBinary ;;
  esac
}

rows=()
for call in "${calls[@]}"; do
  for way in "${plugins[@]}"; do rows+=("$call/$way"); done
  if [ "$call" != mapped ]; then rows+=("$call/api" "$call/raw"); fi
done
rows+=("k host/pointer objects")

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

count() {  # count ROW FILE: writes ROW's instructions per call to FILE.count
  local row=$1 file=$2 fn filter
  if [ "$row" = "k host/pointer objects" ]; then
    fn=HostPointerObjects
  else
    fn=$(function_of "${row%/*}" "${row##*/}")
  fi
  # Google Benchmark's regular expression ('+' as any character); a row of fixed iterations is
  # named ROW/iterations:N.
  filter="^${row//+/.}/iterations:"
  OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$file.cg" \
    "--toggle-collect=*$fn(*" "$bench" "--benchmark_filter=$filter" "--iterations=$iterations" \
    ${ktorch:+"--ktorch=$ktorch"} > "$file.log" 2>&1 || { echo "plugin_instructions.sh: $row failed:" >&2; tail "$file.log" >&2; return 1; }
  local total
  total=$(sed -n 's/^totals: //p' "$file.cg")
  if [ "${total:-0}" -eq 0 ]; then  # the filter or the function matched nothing
    echo "plugin_instructions.sh: $row: no instructions counted inside $fn" >&2
    return 1
  fi
  echo "$(( (total + iterations / 2) / iterations ))" > "$file.count"
}

jobs=$(nproc)
for i in "${!rows[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  count "${rows[$i]}" "$out/$i" &
done
wait
declare -A per_call
for i in "${!rows[@]}"; do
  [ -e "$out/$i.count" ] || { echo "plugin_instructions.sh: no count for ${rows[$i]}" >&2; exit 1; }
  per_call[${rows[$i]}]=$(cat "$out/$i.count")
done

echo "plugin_bench, instructions per call (callgrind, $iterations calls per row, $(date -u +%F)):"
for row in "${rows[@]}"; do printf '  %-28s %8d\n' "$row" "${per_call[$row]}"; done
host=${per_call["k host/pointer objects"]}
echo "ratios (own: the k host's $host instructions per pointer taken out of both overheads):"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
for call in "${calls[@]}"; do
  [ "$call" = mapped ] && continue
  raw=${per_call[$call/raw]} kscope=${per_call[$call/kscope]}
  line="  $call: kscope/raw $(ratio "$kscope" "$raw"), api/raw $(ratio "${per_call[$call/api]}" "$raw")"
  if [ -n "$ktorch" ]; then
    kt=${per_call[$call/ktorch]}
    line+=", ktorch/raw $(ratio "$kt" "$raw"), overhead kscope/ktorch $(ratio $((kscope - raw)) $((kt - raw)))"
    case $call in
      tensor+free | *handles+free)
        line+=", own $(ratio $((kscope - raw - host)) $((kt - raw - host)))" ;;
    esac
  fi
  echo "$line"
done
