#!/usr/bin/env bash
# Soak test: SOAK_MINUTES (default 10) of mixed load on a release `courier`, one wrk segment per
# minute; records per minute the requests, non-2xx responses, socket errors, p99 and the RSS.
# Usage: bench/soak.sh [--minutes N] [--seconds-per-segment S]   (writes bench/results/soak.md)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${SOAK_MINUTES:-10}
segment=60
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --seconds-per-segment) segment=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
cargo build --quiet --release -p courier-cli
port=${SOAK_PORT:-18484}
data=$(mktemp -d)
export SOAK_TOKEN=soak-service-token SOAK_ADMIN=soak-admin-token-0
# The upkeep's memory line each minute (SQLite's bytes, malloc's heap in use and held free).
RUST_LOG=info,courier_service::memory=debug "${CARGO_TARGET_DIR:-target}/release/courier" serve --listen "127.0.0.1:$port" --data-dir "$data" --service-token "$SOAK_TOKEN" \
  --customer-id soak@courier.dev --management-key soak-management-key --admin-token "$SOAK_ADMIN" >"$data/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
admin() { curl -sf -X "$1" -H "Authorization: Bearer $SOAK_ADMIN" -H 'content-type: application/json' --data-binary @- "$base/admin/v1$2" >/dev/null; }
echo '{"max_requests_per_second": 100000000, "max_requests_per_day_hard": 1000000000000}' | admin PATCH /account
# 5000 stable entries with known ids, in batches of 1000.
for batch in 0 1 2 3 4; do
  python3 - "$batch" <<'PY' | admin POST /dlq
import json, sys, time
b = int(sys.argv[1]); now = int(time.time() * 1000)
print(json.dumps([{"dlqId": f"soak-{i:05d}", "url": "https://soak.example/step", "method": "POST",
  "workflowRunId": f"wfr_stable_{i}", "workflowUrl": "https://soak.example/wf", "workflowCreatedAt": now,
  "createdAt": now, "maxRetries": 3, "labels": ["soak-stable"], "callerIP": f"10.0.0.{i % 4}",
  "body": json.dumps({"n": i})} for i in range(b * 1000, b * 1000 + 1000)]))
PY
done
rss() { awk '/VmRSS/ {print $2}' "/proc/$server/status"; }
# RSS in parts: the heap and stacks (anonymous), and pages of the database file that readers
# map (file-backed, shared with the page cache and bounded by the file's size).
anon() { awk '/RssAnon/ {print $2}' "/proc/$server/status"; }
rss_parts() { awk '/RssAnon/ {a = $2} /RssFile/ {f = $2} END {print a " | " f}' "/proc/$server/status"; }
# The last memory line of the service's log, in KiB: SQLite | heap in use | heap held free.
heap_parts() {
  grep 'courier_service::memory' "$data/serve.log" | tail -1 | awk '{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = int(kv[2] / 1024) }
    print v["sqlite_bytes"] " | " v["heap_in_use_bytes"] " | " v["heap_free_bytes"] }'
}
mkdir -p bench/results
out=bench/results/soak.md
rss_start=$(rss)
{
  echo "| minute | requests | req/s | non-2xx | socket errors | p50 | p99 | RSS (KiB) | of it anonymous | of it file-backed | SQLite (KiB) | heap in use (KiB) | heap held free (KiB) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$data/table"
total_errors=0
for minute in $(seq 1 "$minutes"); do
  wrk -t2 -c16 -d"${segment}s" --latency -s bench/soak.lua "$base" >"$data/wrk.txt" 2>&1
  requests=$(awk '/requests in/ {print $1}' "$data/wrk.txt")
  rate=$(awk '/Requests\/sec/ {print $2}' "$data/wrk.txt")
  non2xx=$(awk '/Non-2xx or 3xx responses/ {print $5}' "$data/wrk.txt"); non2xx=${non2xx:-0}
  socket=$(awk -F'[ ,]+' '/Socket errors/ {print $4+$6+$8+$10}' "$data/wrk.txt"); socket=${socket:-0}
  p50=$(awk '$1=="50%" {print $2}' "$data/wrk.txt")
  p99=$(awk '$1=="99%" {print $2}' "$data/wrk.txt")
  total_errors=$((total_errors + non2xx + socket))
  echo "| $minute | $requests | $rate | $non2xx | $socket | $p50 | $p99 | $(rss) | $(rss_parts) | $(heap_parts) |" | tee -a "$data/table"
  # The first segment warms SQLite's page cache and the allocator; flatness is judged after it.
  [ "$minute" -eq 1 ] && rss_warm=$(rss)
  # Growth is judged from the end of minute 2 on: the first two minutes fill caches.
  [ "$minute" -eq 2 ] && { rss_minute2=$(rss); anon_minute2=$(anon); }
done
rss_end=$(rss)
anon_end=$(anon)
{
  echo "# Soak: $minutes × ${segment}s of mixed load"
  echo
  echo "Command: \`bench/soak.sh --minutes $minutes --seconds-per-segment $segment\` ($(date -u +%Y-%m-%d), $(nproc) cores, $(rustc --version))."
  echo "Workload (bench/soak.lua, wrk -t2 -c16): per 20 requests 1 admin insert of 5 entries, 1 filtered bulk delete,"
  echo "6 unfiltered lists, 4 two-filter lists, 8 get-ones; 5000 stable entries; volatile entries from a pool of 1000 run ids"
  echo "(the store keeps every run that entered the DLQ, so new run ids would grow the data without bound); rate limits raised."
  echo
  cat "$data/table"
  echo
  echo "Errors (non-2xx + socket errors): **$total_errors** (target 0). RSS: idle before load $rss_start KiB,"
  echo "after the first (warm-up) segment $rss_warm KiB, at the end $rss_end KiB: change after warm-up"
  echo "$(awk -v a="$rss_warm" -v b="$rss_end" 'BEGIN {printf "%+.1f%%", (b - a) * 100 / a}') (target: flat within 10%); change after minute 2:"
  echo "$(awk -v a="${rss_minute2:-$rss_warm}" -v b="$rss_end" 'BEGIN {printf "%+.1f%%", (b - a) * 100 / a}'), of which anonymous memory"
  echo "$(awk -v a="${anon_minute2:-1}" -v b="$anon_end" 'BEGIN {printf "%+.1f%%", (b - a) * 100 / a}') (target: at most +2%). The file-backed part is the database's pages in"
  echo "the kernel's page cache, mapped once per connection; SQLite unmaps a connection's map when another one has"
  echo "committed since its last read, so that part rises and falls with the writes whatever the process allocates."
} >"$out"
cat "$out"
[ "$total_errors" -eq 0 ]
