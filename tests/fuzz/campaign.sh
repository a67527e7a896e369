#!/usr/bin/env bash
# campaign.sh — a long fuzz campaign of the plugin in the background, at the lowest CPU
# priority (nice 19), so that builds and tests on the same machine keep their speed and the
# campaign takes only the CPU time they leave.
#
#   tests/fuzz/campaign.sh start  FUZZER DIR [WORKERS]   # WORKERS defaults to the CPU count
#   tests/fuzz/campaign.sh status DIR                     # executions, coverage, findings so far
#   tests/fuzz/campaign.sh stop   DIR
#
# FUZZER is a plugin_fuzzer binary (copied into DIR, so rebuilding the tree does not disturb the
# campaign). Each worker runs libFuzzer in a loop of runs of up to six hours, each from the kept
# corpus (tests/fuzz/corpus) and the campaign's finds (DIR/found, shared by the workers), with
# ktorch's dictionary; every run logs to DIR/logs/. A crash or sanitizer report ends a run with
# its input in DIR/findings/ and the worker starts the next run. `status` adds up the
# executions of every run, finished or not, from the logs.
set -euo pipefail

usage() {
  sed -n '5,7p' "$0" >&2
  exit 2
}

here=$(cd "$(dirname "$0")" && pwd)

start() {
  local fuzzer=$1 dir=$2 workers=${3:-$(nproc)}
  mkdir -p "$dir/found" "$dir/findings" "$dir/logs"
  if [ -e "$dir/workers.pid" ]; then
    while read -r pid; do
      if kill -0 "$pid" 2> /dev/null; then
        echo "campaign: workers of $dir still run (stop them first)" >&2
        exit 1
      fi
    done < "$dir/workers.pid"
  fi
  # rm first: cp onto a binary whose old image a killed worker still maps fails ("Text file busy").
  rm -f "$dir/stop" "$dir/plugin_fuzzer" "$dir/workers.pid"
  cp "$fuzzer" "$dir/plugin_fuzzer"
  cp "$here/ktorch.dict" "$dir/ktorch.dict"
  cp -rT "$here/corpus" "$dir/seed"
  for ((w = 1; w <= workers; ++w)); do
    setsid bash "$0" worker "$dir" "$w" > /dev/null 2>&1 < /dev/null &
    echo "$!" >> "$dir/workers.pid"  # setsid: the worker leads its own process group
  done
  echo "campaign: $workers workers in $dir"
}

# One worker's loop of runs (started by `start`).
worker() {
  local dir=$1 w=$2 log
  cd "$dir"
  # Where the kernel groups CPU time by session (autogroups), nice works only inside the
  # group: the worker's own session gets the lowest weight too.
  [ -w /proc/self/autogroup ] && echo 19 > /proc/self/autogroup
  while [ ! -e stop ]; do
    log="logs/worker$w-$(date -u +%Y%m%dT%H%M%S).log"
    OMP_NUM_THREADS=1 nice -n 19 ./plugin_fuzzer -dict=ktorch.dict -max_total_time=21600 \
      -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=findings/ found seed \
      > "$log" 2>&1 || sleep 10
  done
}

status() {
  local dir=$1 executions=0 runs=0 log n
  for log in "$dir"/logs/*.log; do
    [ -e "$log" ] || continue
    # A run's executions: its final count, or the last progress line's while it runs.
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    [ -n "$n" ] || n=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    executions=$((executions + ${n:-0}))
    runs=$((runs + 1))
  done
  echo "runs: $runs"
  echo "executions: $executions"
  # shellcheck disable=SC2012  # the logs are ours, named by worker and time
  echo "coverage (latest run): $(grep -ohE 'cov: [0-9]+' "$(ls -t "$dir"/logs/*.log | head -1)" |
    tail -1)"
  echo "finds kept: $(find "$dir/found" -type f | wc -l)"
  echo "findings: $(find "$dir/findings" -type f | wc -l)"
}

stop() {
  local dir=$1 pid
  touch "$dir/stop"
  if [ -e "$dir/workers.pid" ]; then
    while read -r pid; do kill -- "-$pid" 2> /dev/null || true; done < "$dir/workers.pid"
    rm "$dir/workers.pid"
  fi
}

case "${1:-}" in
  start) [ $# -ge 3 ] || usage; start "$2" "$3" "${4:-}" ;;
  status) [ $# -eq 2 ] || usage; status "$2" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  worker) worker "$2" "$3" ;;
  *) usage ;;
esac
