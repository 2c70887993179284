#!/usr/bin/env bash
# How long a newcomer waits for the README's test command: a fresh clone of this repository
# (the committed HEAD) with a cold target directory runs `cargo test --workspace` once (cold:
# build and run), then again with nothing changed (warm). Writes bench/results/test-time.md,
# which bench/run.sh copies into BENCHMARKS.md.
# Usage: bench/test-time.sh        (about 10 minutes on 2 cores; nothing else should run beside it)
# The crates' sources come from cargo's registry cache as on a machine that built anything
# before; the clone's target directory starts empty.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/courier-test-time.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone --quiet "file://$root" "$work/clone"
cd "$work/clone"
commit=$(git rev-parse --short HEAD)

# run LABEL: `cargo test --workspace` in the clone, its wall time in seconds and its counts.
run() {
  local label=$1 started ended
  started=$(date +%s.%N)
  cargo test --workspace >"$work/$label.log" 2>&1 || { tail -50 "$work/$label.log" >&2; exit 1; }
  ended=$(date +%s.%N)
  awk -v a="$started" -v b="$ended" 'BEGIN {printf "%.1f", b - a}' >"$work/$label.seconds"
  # Every "test result:" line: passed, failed, ignored; and how many binaries ran.
  awk '/^test result:/ {p += $4; f += $6; i += $8; n++} END {printf "%d %d %d %d\n", p, f, i, n}' \
    "$work/$label.log" >"$work/$label.counts"
}

run cold
run warm
read -r passed failed ignored binaries <"$work/warm.counts"
cold=$(cat "$work/cold.seconds")
warm=$(cat "$work/warm.seconds")
verdict() { awk -v v="$1" -v t="$2" 'BEGIN {print (v <= t) ? "met" : "NOT met"}'; }
mmss() { awk -v s="$1" 'BEGIN {printf "%d min %04.1f s", s / 60, s - 60 * int(s / 60)}'; }
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
memory=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
slowest=$(grep -E '^     Running ' "$work/warm.log" | wc -l)

cat >"$root/bench/results/test-time.md" <<EOF
# Tests in a fresh clone

Command: \`bench/test-time.sh\` ($(date -u +%F), commit $commit, $(nproc) cores ($cpu), $memory,
$(rustc --version)): \`git clone\`, then \`cargo test --workspace\` with an empty target directory
(cold), then again with nothing changed (warm). Cargo's registry cache was warm (sources
downloaded), as on any machine that has built a Rust project.

| run | wall time | target | verdict |
|---|---|---|---|
| cold (build and run) | $(mmss "$cold") ($cold s) | at most 5 min (300 s) | $(verdict "$cold" 300) |
| warm (nothing changed) | $(mmss "$warm") ($warm s) | at most 90 s | $(verdict "$warm" 90) |

Tests: **$passed passed**, $failed failed, $ignored ignored, in $binaries test binaries and doc-test
runs ($slowest \`Running\` lines).
EOF
cat "$root/bench/results/test-time.md"
