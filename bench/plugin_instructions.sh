#!/usr/bin/env bash
# plugin_instructions.sh — instructions per call of plugin_bench's rows, counted by callgrind:
# the figures of README's Speed table, reproducible where times swing with the machine's load.
#
# Each row runs alone under `valgrind --tool=callgrind`, exactly N times (plugin_bench
# --iterations=N), counting only inside the row's benchmark function (--toggle-collect), so the
# count per call includes the loop and the row's one-off setup spread over N calls. Rows run
# as many at a time as the machine has CPUs (instruction counts do not depend on load).
# Prints each row's instructions per call, for a plugin row also the k host's share of them
# (bench/host_share.py: its calls into the k C ABI, ktn to r0, and what they cost in that same
# run), then per call kscope/raw, api/raw, ktorch/raw, the overhead ratio
# (kscope − raw) / (ktorch − raw) and the "own" ratio, each plugin's host share taken out of its
# overhead: the k host's checked allocator costs several times q's, and its hash tables cost
# more or less from one run to the next.
#
# Usage: bench/plugin_instructions.sh [BUILD] [--ktorch=PATH] [--iterations=N]
#   BUILD: the build folder (default build); needs valgrind (Debian: valgrind) and python3.
#   --ktorch=PATH: the real ktorch's ktorch.so, for its column (tests/differential/README.md
#   says how to build it; never part of this repository). N: calls per row (default 60000).
# Takes about 32 minutes on two CPUs with ktorch's column.
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
here=$(cd "$(dirname "$0")" && pwd)
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

out=$(mktemp -d)
# Each row's job in a process group of its own (job control), so that an exit — a failed row
# ends the script at its `wait -n` — stops the rows still counting, valgrind included, before
# their folder goes.
set -m
trap 'for job in $(jobs -p); do kill -- "-$job" 2> /dev/null || true; done; wait; rm -rf "$out"' EXIT

count() {  # count ROW FILE: writes ROW's instructions per call to FILE.count, a plugin's
  # host share (instructions and calls per call) to FILE.host
  local row=$1 file=$2 fn filter
  fn=$(function_of "${row%/*}" "${row##*/}")
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
  case ${row##*/} in
    kscope | ktorch)
      python3 "$here/host_share.py" "$here/../q/convert/k_abi.h" "$file.cg" |
        awk -v n="$iterations" '{ printf "%d %.2f\n", $1 / n + 0.5, $2 / n }' > "$file.host" ;;
  esac
}

jobs=$(nproc)
for i in "${!rows[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  count "${rows[$i]}" "$out/$i" &
done
wait
declare -A per_call host host_calls
for i in "${!rows[@]}"; do
  [ -e "$out/$i.count" ] || { echo "plugin_instructions.sh: no count for ${rows[$i]}" >&2; exit 1; }
  per_call[${rows[$i]}]=$(cat "$out/$i.count")
  if [ -e "$out/$i.host" ]; then read -r "host[${rows[$i]}]" "host_calls[${rows[$i]}]" < "$out/$i.host"; fi
done

echo "plugin_bench, instructions per call (callgrind, $iterations calls per row, $(date -u +%F)):"
for row in "${rows[@]}"; do
  line=$(printf '  %-28s %8d' "$row" "${per_call[$row]}")
  [ -n "${host[$row]:-}" ] && line+=$(printf '   k host %5d in %s calls' "${host[$row]}" "${host_calls[$row]}")
  echo "$line"
done
echo "ratios (own: each plugin's k host share taken out of its overhead):"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
for call in "${calls[@]}"; do
  [ "$call" = mapped ] && continue
  raw=${per_call[$call/raw]} kscope=${per_call[$call/kscope]}
  line="  $call: kscope/raw $(ratio "$kscope" "$raw"), api/raw $(ratio "${per_call[$call/api]}" "$raw")"
  if [ -n "$ktorch" ]; then
    kt=${per_call[$call/ktorch]}
    line+=", ktorch/raw $(ratio "$kt" "$raw"), overhead kscope/ktorch $(ratio $((kscope - raw)) $((kt - raw)))"
    line+=", own $(ratio $((kscope - ${host[$call/kscope]} - raw)) $((kt - ${host[$call/ktorch]} - raw)))"
  fi
  echo "$line"
done
if [ -n "$ktorch" ]; then  # mapped has no raw row: the plugins' own instructions side by side
  echo "  mapped: own kscope $((per_call[mapped/kscope] - host[mapped/kscope])), ktorch $((per_call[mapped/ktorch] - host[mapped/ktorch]))"
fi
