#!/usr/bin/env bash
# launch.sh — starts the ranks of a data-parallel kscope program on this machine.
#
#   examples/launch.sh -n N [--rendezvous URL] [--first-rank R] [--world W] -- PROGRAM [ARGS...]
#
# Starts N processes of PROGRAM ARGS, rank R .. R+N-1 of a world of W (default: R 0, W N), each
# with KSCOPE_RANK, KSCOPE_WORLD, KSCOPE_RENDEZVOUS and KSCOPE_LOCAL_RANK (0..N-1) in its
# environment, which group_from_environment (q: group[]) reads, as it reads torchrun's, srun's and
# mpirun's (examples/distributed_mnist.cc, examples/q/distributed_mnist.q). Each output
# line is prefixed with "[rank r] ". The rendezvous defaults to a file in a fresh directory
# (removed at exit), so no port can clash; give --rendezvous tcp://HOST:PORT to meet over TCP.
# Waits for every rank; exits 0 when all exit 0, otherwise 1 after naming each failed rank. A
# rank that fails makes the others fail within their group's timeout (they do not hang), so the
# launcher only waits.
#
# Across machines: start the ranks of each machine with the same --world and a TCP rendezvous
# at rank 0's machine, e.g. with two machines of two ranks each:
#   host0$ examples/launch.sh -n 2 --world 4 --rendezvous tcp://host0:29500 -- PROGRAM
#   host1$ examples/launch.sh -n 2 --world 4 --first-rank 2 --rendezvous tcp://host0:29500 -- PROGRAM
# (or set KSCOPE_RANK, KSCOPE_WORLD and KSCOPE_RENDEZVOUS by hand for each process).
set -uo pipefail

usage() {
  echo "usage: $0 -n N [--rendezvous URL] [--first-rank R] [--world W] -- PROGRAM [ARGS...]" >&2
  exit 2
}

count="" rendezvous="" first=0 world=""
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) count=${2:-}; shift 2 || usage ;;
    --rendezvous) rendezvous=${2:-}; shift 2 || usage ;;
    --first-rank) first=${2:-}; shift 2 || usage ;;
    --world) world=${2:-}; shift 2 || usage ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
[[ $# -gt 0 && $count =~ ^[1-9][0-9]*$ && $first =~ ^[0-9]+$ ]] || usage
world=${world:-$((first + count))}
[[ $world =~ ^[1-9][0-9]*$ && $((first + count)) -le $world ]] || { echo "$0: ranks $first..$((first + count - 1)) do not fit a world of $world" >&2; exit 2; }

directory=$(mktemp -d)
trap 'rm -rf "$directory"' EXIT
rendezvous=${rendezvous:-$directory/rendezvous}

pids=()
for ((rank = first; rank < first + count; ++rank)); do
  KSCOPE_RANK=$rank KSCOPE_WORLD=$world KSCOPE_RENDEZVOUS=$rendezvous KSCOPE_LOCAL_RANK=$((rank - first)) "$@" \
    > >(sed -u "s/^/[rank $rank] /") 2>&1 &
  pids+=($!)
done

status=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "launch.sh: rank $((first + i)) failed" >&2
    status=1
  fi
done
wait  # the output filters
exit $status
