#!/usr/bin/env bash
# The PostgreSQL rows of BENCHMARKS.md: the same DLQ of 1M entries served by one courier process
# on SQLite, one on PostgreSQL and two on one PostgreSQL database, in one run, with the same
# requests and wrk settings (two processes share the 16 connections, 8 each); the limit is the
# fastest of nginx and courier-anchor sending the bytes courier answered from SQLite
# (bench/anchors.sh). Then the bulk delete of every 10th entry on a fresh copy of each store, and
# how many PostgreSQL transactions one request costs, read from pg_stat_database.
# PostgreSQL runs as a throwaway cluster with its durable defaults (fsync, synchronous commits),
# as SQLite's store is durable: scripts/pg-cluster.sh with PG_CLUSTER_DURABLE=1.
# Usage: bench/postgres.sh            writes bench/results/postgres.md (~25 min on 2 cores)
#        bench/postgres.sh --smoke    debug build, 5,000 entries, 1 s loads: proves the script runs
# Knobs: BENCH_RUNS (default 3), BENCH_SECONDS (default 10), BENCH_PG_ENTRIES (default 1000000),
# BENCH_PORT (default 18700), BENCH_OUT, BENCH_NGINX_CONFIGS (see bench/anchors.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

smoke=0
case "${1:-}" in
  --smoke) smoke=1 ;;
  "") ;;
  *) echo "usage: bench/postgres.sh [--smoke]" >&2; exit 2 ;;
esac
runs=${BENCH_RUNS:-3}
seconds=${BENCH_SECONDS:-10}
entries=${BENCH_PG_ENTRIES:-1000000}
port=${BENCH_PORT:-18700}
second_port=$((port + 1))
nginx_port=$((port + 2))
out=${BENCH_OUT:-bench/results/postgres.md}
if [ "$smoke" -eq 1 ]; then
  runs=1 seconds=1 entries=5000
  out=${BENCH_OUT:-${CARGO_TARGET_DIR:-target}/bench-postgres-smoke.md}
fi
token=bench-service-token
auth="Authorization: Bearer $token"

for tool in wrk jq curl; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
done
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] \
  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
command -v psql >/dev/null \
  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-client >/dev/null; }

work=$(mktemp -d /tmp/courier-bench-pg.XXXXXX)
# The cluster's server runs as `postgres` when this runs as root: it must reach the directory.
chmod 755 "$work"
server=""
second=""
nginx_pid=""
source "$root/bench/lib.sh"
cleanup() {
  stop server
  stop second
  stop nginx_pid
  [ -d "$work/pg" ] && bash scripts/pg-cluster.sh stop "$work/pg" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

profile=release
[ "$smoke" -eq 1 ] && profile=debug
log "building $profile binaries"
build_binaries "$profile"
bin="${CARGO_TARGET_DIR:-target}/$profile"
courier=$bin/courier
source "$root/bench/anchors.sh"

report() { echo "$*" >>"$work/report.md"; }

# --- stores ---------------------------------------------------------------------------------
log "starting a durable PostgreSQL cluster"
pg_url=$(PG_CLUSTER_DURABLE=1 PG_CLUSTER_OPTIONS="-c shared_buffers=1GB" \
  bash scripts/pg-cluster.sh start "$work/pg")
pg_version=$(psql "$pg_url" -Atc 'show server_version')
psql "$pg_url" -qc 'CREATE DATABASE bench' >/dev/null
bench_url=${pg_url%/*}/bench
copy_url=${pg_url%/*}/bench_copy

log "filling SQLite and PostgreSQL with $entries entries each"
declare -A fill_seconds
fill() {
  local name=$1; shift
  local start; start=$(date +%s.%N)
  "$bin/courier-fill" "$@" --entries "$entries" --ids-file "$work/ids-$name.txt" >"$work/fill-$name.log"
  fill_seconds[$name]=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.0f", e - s}')
}
fill sqlite --data-dir "$work/sqlite"
fill postgres --store "$bench_url"
psql "$bench_url" -qc 'VACUUM ANALYZE' >/dev/null

# start_courier VAR PORT STORE: `courier serve` on PORT over STORE (a data directory, or a
# PostgreSQL URL given in COURIER_STORE, as a password belongs), its pid in VAR, once /health answers.
start_courier() {
  local var=$1 at=$2 store=$3
  if [ "${store#postgres://}" != "$store" ]; then
    COURIER_STORE=$store "$courier" serve --listen "127.0.0.1:$at" >"$work/serve-$at.log" 2>&1 &
  else
    "$courier" serve --listen "127.0.0.1:$at" --data-dir "$store" >"$work/serve-$at.log" 2>&1 &
  fi
  printf -v "$var" '%s' "$!"
  for _ in $(seq 1 400); do
    curl -sf -o /dev/null "http://127.0.0.1:$at/health" && return 0
    sleep 0.05
  done
  echo "courier did not start; log:" >&2; cat "$work/serve-$at.log" >&2; exit 1
}

# wrk_pair PATH SECONDS [LUA]: the same load as wrk_once (2 threads, 16 connections) split over
# the two processes (a thread and 8 connections each), at the same time; prints "rps p50_ms
# p99_ms non2xx": the summed rate, the mean of the medians, the worse p99, the summed non-2xx.
wrk_pair() {
  local path=$1 duration=$2 script=${3:-} at pids=() pid
  for at in "$port" "$second_port"; do
    local args=(-t1 -c8 "-d${duration}s" --latency -H "$auth")
    [ -n "$script" ] && args+=(-s "$script")
    wrk "${args[@]}" "http://127.0.0.1:$at$path" >"$work/wrk-$at.txt" 2>&1 &
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || { cat "$work/wrk-$port.txt" "$work/wrk-$second_port.txt" >&2; exit 1; }
  done
  for at in "$port" "$second_port"; do
    echo "$(awk '/^Requests\/sec/ {print $2}' "$work/wrk-$at.txt")" \
      "$(to_ms "$(awk '$1=="50%" {print $2}' "$work/wrk-$at.txt")")" \
      "$(to_ms "$(awk '$1=="99%" {print $2}' "$work/wrk-$at.txt")")" \
      "$(awk '/Non-2xx or 3xx responses/ {print $5}' "$work/wrk-$at.txt")"
  done | awk '{r += $1; p50 += $2 / 2; if ($3 > p99) p99 = $3; bad += $4} END {printf "%.2f %.3f %.3f %d\n", r, p50, p99, bad}'
}

# The requests, as in bench/run.sh.
list100='/v2/workflows/dlq?count=100'
two_filters='/v2/workflows/dlq?count=100&label=billing&callerIp=203.0.113.7'
names=("get one failed run" "list, count=100" "list, two filters")
paths=("/v2/workflows/dlq/ID" "$list100" "$two_filters")
scripts=("bench/get-one.lua" "" "")
configs=(sqlite postgres postgres2)
export BENCH_TOKEN="$token"

# transactions_per_request PATH: PostgreSQL transactions (commits and rollbacks in the bench
# database, pg_stat_database) per answered request, over 2 s of one connection on one process.
transactions_per_request() {
  local before after requests
  sleep 1.5
  before=$(psql "$pg_url" -Atc "select xact_commit + xact_rollback from pg_stat_database where datname = 'bench'")
  wrk -t1 -c1 -d2s -H "$auth" ${2:+-s "$2"} "http://127.0.0.1:$port$1" >"$work/wrk-count.txt"
  requests=$(awk '/requests in/ {print $1}' "$work/wrk-count.txt")
  # Backends report their counters when idle for a second at most.
  sleep 1.5
  after=$(psql "$pg_url" -Atc "select xact_commit + xact_rollback from pg_stat_database where datname = 'bench'")
  awk -v b="$before" -v a="$after" -v n="$requests" 'BEGIN {printf "%.2f", (a - b) / n}'
}

log "the limits: courier's answers from SQLite, sent by nginx and courier-anchor"
start_courier server "$port" "$work/sqlite"
save_answers "http://127.0.0.1:$port" "$work/ids-sqlite.txt" "$list100" "$work/www"
stop server
for i in 0 1; do
  path=${paths[$i]}; [ -n "${scripts[$i]}" ] && path=/
  for k in "${!limits[@]}"; do
    : >"$work/limit-$i-$k"
    for _ in $(seq 1 "$runs"); do
      start_limit "${limits[$k]}" "$work/www"
      BENCH_IDS="$work/ids-sqlite.txt" wrk_once "http://127.0.0.1:$nginx_port" "$path" "$seconds" "${scripts[$i]}" >>"$work/limit-$i-$k"
      stop nginx_pid
    done
    bad=$(awk '{s+=$4} END {print s+0}' "$work/limit-$i-$k")
    [ "$bad" -eq 0 ] || { echo "${limits[$k]} answered $bad non-2xx for ${names[$i]}" >&2; exit 1; }
    echo "${limits[$k]} $(med "$work/limit-$i-$k" 1)"
  done | sort -k2 -g | tail -1 >"$work/best-$i"
done

declare -A transactions
for config in "${configs[@]}"; do
  log "loads on $config"
  case $config in
    sqlite) start_courier server "$port" "$work/sqlite"; ids="$work/ids-sqlite.txt" ;;
    postgres) start_courier server "$port" "$bench_url"; ids="$work/ids-postgres.txt" ;;
    postgres2)
      start_courier server "$port" "$bench_url"; start_courier second "$second_port" "$bench_url"
      ids="$work/ids-postgres.txt" ;;
  esac
  export BENCH_IDS="$ids"
  for i in "${!names[@]}"; do
    path=${paths[$i]}; [ -n "${scripts[$i]}" ] && path=/
    : >"$work/load-$config-$i"
    for _ in $(seq 1 "$runs"); do
      if [ "$config" = postgres2 ]; then
        wrk_pair "$path" "$seconds" "${scripts[$i]}" >>"$work/load-$config-$i"
      else
        wrk_once "http://127.0.0.1:$port" "$path" "$seconds" "${scripts[$i]}" >>"$work/load-$config-$i"
      fi
    done
    bad=$(awk '{s+=$4} END {print s+0}' "$work/load-$config-$i")
    [ "$bad" -eq 0 ] || { echo "$config answered $bad non-2xx for ${names[$i]}" >&2; exit 1; }
    if [ "$config" = postgres ]; then
      transactions[$i]=$(transactions_per_request "$path" "${scripts[$i]}")
    fi
  done
  stop server
  stop second
done

# delete_every_tenth BASE...: deletes `flowControlKey=tenant-00` (every 10th entry) in pages of
# count=1000 following the cursor, each page through the next BASE in turn; prints
# "seconds_summed slowest_ms deleted requests".
delete_every_tenth() {
  local bases=("$@") cursor="" total=0 requests=0
  : >"$work/delete-times"
  for _ in $(seq 1 $(( entries / 10000 + 10 ))); do
    local at=${bases[$(( requests % ${#bases[@]} ))]}
    curl -sf -X DELETE -H "$auth" -o "$work/delete.json" -w '%{time_total}\n' \
      "$at/v2/workflows/dlq?flowControlKey=tenant-00&count=1000${cursor:+&cursor=$cursor}" >>"$work/delete-times"
    requests=$((requests + 1))
    total=$((total + $(jq .deleted "$work/delete.json")))
    cursor=$(jq -r '.cursor // empty' "$work/delete.json")
    [ -z "$cursor" ] && break
  done
  [ "$total" -eq $(( entries / 10 )) ] \
    || { echo "the bulk delete removed $total entries, expected $(( entries / 10 ))" >&2; exit 1; }
  echo "$(awk '{s+=$1} END {printf "%.2f", s}' "$work/delete-times") $(sort -g "$work/delete-times" | tail -1 | awk '{printf "%.0f", $1 * 1000}') $total $requests"
}

log "bulk deletes of every 10th entry, each on a fresh copy of its store"
for config in "${configs[@]}"; do
  : >"$work/delete-$config"
  for _ in $(seq 1 "$runs"); do
    if [ "$config" = sqlite ]; then
      rm -rf "$work/copy" && cp -r "$work/sqlite" "$work/copy"
      sync
      start_courier server "$port" "$work/copy"
      delete_every_tenth "http://127.0.0.1:$port" >>"$work/delete-$config"
    else
      psql "$pg_url" -qc 'DROP DATABASE IF EXISTS bench_copy' -c 'CREATE DATABASE bench_copy TEMPLATE bench' >/dev/null
      sync
      start_courier server "$port" "$copy_url"
      if [ "$config" = postgres2 ]; then
        start_courier second "$second_port" "$copy_url"
        delete_every_tenth "http://127.0.0.1:$port" "http://127.0.0.1:$second_port" >>"$work/delete-$config"
      else
        delete_every_tenth "http://127.0.0.1:$port" >>"$work/delete-$config"
      fi
    fi
    stop server
    stop second
  done
done

# --- report ---------------------------------------------------------------------------------
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
label() {
  case $1 in
    sqlite) echo "SQLite, 1 process" ;;
    postgres) echo "PostgreSQL, 1 process" ;;
    postgres2) echo "PostgreSQL, 2 processes" ;;
  esac
}
{
  echo "# PostgreSQL: one process on SQLite, one and two on PostgreSQL"
  echo
  echo "Produced by \`bench/postgres.sh$([ "$smoke" -eq 1 ] && echo ' --smoke')\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores ($cpu),"
  echo "$(rustc --version), $profile builds, PostgreSQL $pg_version on the same machine (a throwaway cluster,"
  echo "durable defaults: fsync and synchronous commits on; \`shared_buffers=1GB\`), wrk $(wrk --version 2>&1 | awk 'NR==1 {print $2}')."
  echo "The same $entries entries in each store, written by \`courier-fill --data-dir DIR\` (${fill_seconds[sqlite]} s)"
  echo "and \`courier-fill --store URL\` (${fill_seconds[postgres]} s). Every figure is the median of $runs runs of $seconds s;"
  echo "a run with any non-2xx answer stops the script (the fill lifts the account's rate limits)."
  echo "One process: \`wrk -t2 -c16 -d${seconds}s --latency -H '$auth' URL\`; two processes: the same 16"
  echo "connections split, \`wrk -t1 -c8\` against each at the same time (req/s summed, p50 the mean of"
  echo "the two, p99 the worse). wrk, courier and PostgreSQL share the $(nproc) cores. The limit is the"
  echo "fastest of nginx and courier-anchor sending the bytes courier answered from SQLite (bench/anchors.sh)."
  echo
  echo "| request | $(for c in "${configs[@]}"; do printf '%s req/s (p50 / p99 ms) | ' "$(label "$c")"; done)limit req/s | ÷ limit: SQLite / PostgreSQL / 2 × PostgreSQL |"
  echo "|---|---|---|---|---|---|"
  for i in "${!names[@]}"; do
    row="| ${names[$i]} \`${paths[$i]}\` |"
    for c in "${configs[@]}"; do
      row="$row $(med "$work/load-$c-$i" 1) ($(med "$work/load-$c-$i" 2) / $(med "$work/load-$c-$i" 3)) |"
    done
    if [ -f "$work/best-$i" ]; then
      best=$(awk '{print $2}' "$work/best-$i")
      row="$row $(awk '{print $2 " (" $1 ")"}' "$work/best-$i") | $(for c in "${configs[@]}"; do printf '%s / ' "$(ratio "$(med "$work/load-$c-$i" 1)" "$best")"; done | sed 's# / $##') |"
    else
      row="$row – | – |"
    fi
    echo "$row"
  done
  echo
  echo "Bulk delete of every 10th entry (\`DELETE /v2/workflows/dlq?flowControlKey=tenant-00&count=1000\`,"
  echo "following the cursor; with two processes the pages alternate between them), $(( entries / 10 )) of $entries"
  echo "entries, each run on a fresh copy of its store (a copied data directory; \`CREATE DATABASE … TEMPLATE\`)."
  echo "Server time is the sum of the requests' curl \`time_total\`."
  echo
  echo "| store | requests | server time | slowest request |"
  echo "|---|---|---|---|"
  for c in "${configs[@]}"; do
    echo "| $(label "$c") | $(awk 'NR==1 {print $4}' "$work/delete-$c") | $(med "$work/delete-$c" 1) s | $(med "$work/delete-$c" 2) ms |"
  done
  echo
  echo "What a request costs on PostgreSQL: PostgreSQL transactions per answered request (one"
  echo "connection, 2 s, pg_stat_database's commits and rollbacks of the database):"
  echo "get one $(printf '%s' "${transactions[0]}"), list $(printf '%s' "${transactions[1]}"), list with two filters $(printf '%s' "${transactions[2]}")."
  echo "Each is a round trip SQLite does not make: on a store other processes share, every request"
  echo "reads the account (a rotation or a new limit made through another process holds at once),"
  echo "spends its rate-limit budget in the database (\`spend_request\`: one budget for all processes),"
  echo "and then runs its operation; a connection taken from the pool is checked first (an empty query)."
  echo "SQLite answers the same request inside the process with none of these; that, and PostgreSQL's"
  echo "own processes sharing the two cores, is the gap between the columns. Two processes do not"
  echo "add cores: the point of the third column is that they are correct together and what each costs."
} >"$work/report.md"
mkdir -p "$(dirname "$out")"
cp "$work/report.md" "$out"
log "wrote $out"
