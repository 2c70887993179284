#!/usr/bin/env bash
# Benchmarks of courier: throughput and latency against a Prism mock of our own spec and
# against the fastest of nginx (several configurations) and an in-memory server sending the very
# bytes courier answered (the physical limit, bench/anchors.sh), the same list of lean entries,
# courier-client's dlq_stream against plain reqwest, list latency at 10k/100k/1M
# entries, bulk delete against reading the same entries, restart, fresh services (in process, as
# a process, a suite of them), and the build cost of the crates. The report opens with the table
# of the performance targets.
# Usage: bench/run.sh            full run (~35 min on 2 cores, ~20 without build costs), writes BENCHMARKS.md
#        bench/run.sh --smoke    seconds-long run for CI: debug build, tiny store, 1 s loads, no
#                                thresholds, no Prism, no build cost; writes target/bench-smoke.md
# Knobs (environment): BENCH_RUNS (repeats per figure, default 3), BENCH_SECONDS (wrk duration,
# default 10), BENCH_SCALE_SECONDS (default 5), BENCH_PORT (default 18600), BENCH_SKIP_BUILD_COST=1,
# BENCH_NGINX_CONFIGS (see bench/anchors.sh), BENCH_OUT (report file). bench/findings.md (profiles, fixes with before/after) is appended.
# Every load targets 127.0.0.1 and is bounded in time (wrk -d) or count (loops with a maximum).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

smoke=0
case "${1:-}" in
  --smoke) smoke=1 ;;
  "") ;;
  *) echo "usage: bench/run.sh [--smoke]" >&2; exit 2 ;;
esac

runs=${BENCH_RUNS:-3}
seconds=${BENCH_SECONDS:-10}
scale_seconds=${BENCH_SCALE_SECONDS:-5}
port=${BENCH_PORT:-18600}
prism_port=$((port + 1))
nginx_port=$((port + 2))
sizes=(10000 100000 1000000)
out=${BENCH_OUT:-BENCHMARKS.md}
if [ "$smoke" -eq 1 ]; then
  runs=1 seconds=1 scale_seconds=1 sizes=(2000)
  out=${BENCH_OUT:-${CARGO_TARGET_DIR:-target}/bench-smoke.md}
fi
token=bench-service-token
base="http://127.0.0.1:$port"
auth="Authorization: Bearer $token"

# --- tools ----------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
  apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
if [ "$smoke" -eq 0 ] && ! command -v hyperfine >/dev/null; then
  apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null
fi
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] \
  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/courier-bench.XXXXXX)
server=""
prism=""
nginx_pid=""
# stop, log, ratio, to_ms, wrk_once, median, med.
source "$root/bench/lib.sh"
cleanup() {
  stop server
  [ -n "$prism" ] && kill -- "-$prism" 2>/dev/null
  stop nginx_pid
  rm -rf "$work"
}
trap cleanup EXIT

# The smoke only proves the script still works, so it reuses the debug build CI already has.
profile=release
[ "$smoke" -eq 1 ] && profile=debug
log "building $profile binaries"
build_binaries "$profile"
bin="${CARGO_TARGET_DIR:-target}/$profile"
courier=$bin/courier
fill=$bin/courier-fill
read_vs_delete=$bin/courier-read-vs-delete
validation_cost=$bin/courier-validation-cost
start_time=$bin/courier-start-time

# --- helpers --------------------------------------------------------------------------------

# start_server DATA_DIR: starts courier on $port and waits (at most 20 s) for /health.
start_server() {
  "$courier" serve --listen "127.0.0.1:$port" --data-dir "$1" >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 1 400); do
    curl -sf "$base/health" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "courier did not start; log:" >&2; cat "$work/serve.log" >&2; exit 1
}

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }

# The limits (nginx in several configurations, courier-anchor): start_limit, $limits.
source "$root/bench/anchors.sh"

wrk_cmd() {
  local script=${3:-}
  echo "wrk -t2 -c16 -d${2}s --latency -H '$auth'${script:+ -s $script} '$1'"
}

report() { echo "$*" >>"$work/report.md"; }

# --- stores ---------------------------------------------------------------------------------
declare -A fill_seconds
for n in "${sizes[@]}"; do
  log "filling a store of $n entries"
  start=$(date +%s.%N)
  "$fill" --data-dir "$work/d$n" --entries "$n" --ids-file "$work/ids$n.txt" >"$work/fill$n.log"
  fill_seconds[$n]=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
done
mid=${sizes[$(( ${#sizes[@]} > 1 ? 1 : 0 ))]}
largest=${sizes[-1]}

# The requests of part 1 and 2 (filters picked from crates/bench/src/lib.rs's distributions).
list100='/v2/workflows/dlq?count=100'
one_filter='/v2/workflows/dlq?count=100&label=billing'
two_filters='/v2/workflows/dlq?count=100&label=billing&callerIp=203.0.113.7'
url_group='/v2/topics/orders'

# --- header ---------------------------------------------------------------------------------
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
mem=$(free -h | awk '/^Mem:/ {print $2 " total, " $7 " available"}')
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`bench/run.sh$([ "$smoke" -eq 1 ] && echo ' --smoke')\` on $(date -u '+%Y-%m-%d %H:%M UTC'):"
  echo "$(nproc) cores ($cpu), memory $mem, $(rustc --version), release builds; wrk $(wrk --version 2>&1 | awk 'NR==1 {print $2}')."
  echo "The machine is shared with other builds, so every figure is the **median of $runs runs**, and"
  echo "comparisons are ratios of runs interleaved in the same script run. wrk, the service (and Prism)"
  echo "share the same $(nproc) cores: absolute figures are lower than on a dedicated load-generator host."
  echo
  echo "Stores are made by \`target/release/courier-fill --data-dir DIR --entries N --ids-file IDS\`"
  echo "(crates/bench): realistic entries (16 workflow URLs, 1–2 of 8 labels, 8 caller IPs, 9 flow"
  echo "control keys + none, 4 failure states + none, text and binary bodies), createdAt spread over"
  echo "the last 3 days, inserted by \`SqliteStore::insert_dlq\` in transactions of 20,000. The fill"
  echo "writes the account with \`max_dlq_size\` ≥ N, **\`max_requests_per_second\` = 1,000,000,000 and"
  echo "\`max_requests_per_day_hard\` = 10^12, so neither rate limit interferes** (every figure counts 2xx only: a run stops on any non-2xx). Fill times: $(for n in "${sizes[@]}"; do printf '%s entries %s s; ' "$n" "${fill_seconds[$n]}"; done)"
  echo
  echo "All wrk runs: \`wrk -t2 -c16 -dDs --latency -H 'Authorization: Bearer $token' URL\` (16 connections);"
  echo "latencies are wrk's (client side, including wrk's own queueing) in ms."
} >"$work/report.md"

# --- part 1: courier against Prism ----------------------------------------------------------
log "part 1: throughput and latency on the $mid-entry store"
start_server "$work/d$mid"
# BENCH_LIST_PATH: the list bench/unkept-pages.lua asks in part 1 (part 2 names one per call).
export BENCH_IDS="$work/ids$mid.txt" BENCH_TOKEN="$token" BENCH_LIST_PATH=$list100
if [ "$smoke" -eq 0 ]; then
  log "starting Prism (npx @stoplight/prism-cli@5.14.2)"
  setsid npx --yes @stoplight/prism-cli@5.14.2 mock spec/openapi.yaml -h 127.0.0.1 -p "$prism_port" \
    >"$work/prism.log" 2>&1 &
  prism=$!
  for _ in $(seq 1 1200); do
    curl -s -o /dev/null "http://127.0.0.1:$prism_port/v2/topics/orders" -H "$auth" && break
    sleep 0.1
  done
  curl -s -o /dev/null "http://127.0.0.1:$prism_port/v2/topics/orders" -H "$auth" \
    || { echo "Prism did not start" >&2; cat "$work/prism.log" >&2; exit 1; }
fi
# The physical limits: nginx serving, from files, the very bodies courier answered (every get-one
# id of the wrk script, and the first list page), and courier-anchor serving them from memory,
# with the same wrk settings.
log "saving courier's answers for the limits"
save_answers "$base" "$work/ids$mid.txt" "$list100" "$work/www"
nginx_base="http://127.0.0.1:$nginx_port"
# The lists repeat one request, answered from a kept page after the first; the last row asks
# the same page under a key no request repeats, so it reads the store (bench/unkept-pages.lua).
names=("get one failed run" "list, count=100" "list, two filters" "URL group get" "list, count=100, read from the store each time")
paths=("/v2/workflows/dlq/ID" "$list100" "$two_filters" "$url_group" "$list100&fromDate=1")
scripts=("bench/get-one.lua" "" "" "" "bench/unkept-pages.lua")
# Which rows the limits also serve (the same bytes).
with_nginx=(1 1 0 0 0)
for i in "${!names[@]}"; do
  : >"$work/p1-courier-$i" ; : >"$work/p1-prism-$i"
  for k in "${!limits[@]}"; do : >"$work/p1-limit-$i-$k"; done
  for _ in $(seq 1 "$runs"); do
    path=${paths[$i]}; [ -n "${scripts[$i]}" ] && path=/
    wrk_once "$base" "$path" "$seconds" "${scripts[$i]}" >>"$work/p1-courier-$i"
    if [ "${with_nginx[$i]}" -eq 1 ]; then
      for k in "${!limits[@]}"; do
        start_limit "${limits[$k]}" "$work/www"
        wrk_once "$nginx_base" "$path" "$seconds" "${scripts[$i]}" >>"$work/p1-limit-$i-$k"
        stop nginx_pid
      done
    fi
    if [ "$smoke" -eq 0 ]; then
      wrk_once "http://127.0.0.1:$prism_port" "$path" "$seconds" "${scripts[$i]}" >>"$work/p1-prism-$i"
    fi
  done
  # The row's limit: the fastest median of the limits ("name rps" in p1-best-$i).
  if [ "${with_nginx[$i]}" -eq 1 ]; then
    for k in "${!limits[@]}"; do
      bad=$(awk '{s+=$4} END {print s+0}' "$work/p1-limit-$i-$k")
      if [ "$bad" -ne 0 ]; then echo "${limits[$k]} answered $bad non-2xx for ${names[$i]}" >&2; exit 1; fi
      echo "${limits[$k]} $(med "$work/p1-limit-$i-$k" 1)"
    done | sort -k2 -g | tail -1 >"$work/p1-best-$i"
  fi
done
{
  report
  report "## 1. Throughput and latency: courier against a Prism mock of spec/openapi.yaml"
  report
  report "courier on the $mid-entry store; Prism: \`npx --yes @stoplight/prism-cli@5.14.2 mock spec/openapi.yaml -h 127.0.0.1 -p $prism_port\`"
  report "(answers from the spec's examples; same requests, same token). The limits send the bodies courier"
  report "answered for the same requests (checked byte for byte before the runs): nginx $("$nginx_bin" -v 2>&1 | sed 's#.*/##')"
  report "(\`nginx -c nginx.conf\`, $(nproc) workers, no access log, unlimited keep-alive) from files in each configuration"
  report "of bench/anchors.sh ($(printf '%s ' "${nginx_configs[@]}")), and \`courier-anchor\` (crates/bench: hyper, the bytes in memory)."
  report "Each row's limit is the fastest of them in this run. Runs alternate courier / the limits / Prism,"
  report "$runs × ${seconds} s each. Get-one draws ids at random from 1000 stored ones (\`-s bench/get-one.lua\`)."
  report
  report "| request | courier req/s | courier p50 | courier p99 | limit req/s (fastest) | courier ÷ limit | Prism req/s | Prism p99 | courier ÷ Prism | response bytes courier / Prism |"
  report "|---|---|---|---|---|---|---|---|---|---|"
}
for i in "${!names[@]}"; do
  c_rps=$(med "$work/p1-courier-$i" 1); c50=$(med "$work/p1-courier-$i" 2); c99=$(med "$work/p1-courier-$i" 3)
  bad=$(awk '{s+=$4} END {print s+0}' "$work/p1-courier-$i")
  if [ "$bad" -ne 0 ]; then echo "courier answered $bad non-2xx for ${names[$i]}" >&2; exit 1; fi
  if [ "$smoke" -eq 0 ]; then
    p_rps=$(med "$work/p1-prism-$i" 1); p99=$(med "$work/p1-prism-$i" 3)
    pbad=$(awk '{s+=$4} END {print s+0}' "$work/p1-prism-$i")
    ratio=$(awk -v a="$c_rps" -v b="$p_rps" 'BEGIN {printf "%.1f×", a / b}')
    [ "$pbad" -ne 0 ] && p_rps="$p_rps ($pbad non-2xx)"
  else
    p_rps="–" p99="–" ratio="–"
  fi
  n_rps="–" n_ratio="–"
  if [ "${with_nginx[$i]}" -eq 1 ]; then
    n_rps="$(awk '{print $2 " (" $1 ")"}' "$work/p1-best-$i")"
    n_ratio=$(ratio "$c_rps" "$(awk '{print $2}' "$work/p1-best-$i")")
  fi
  # One answer's size: Prism answers the spec's example, courier real pages of 100 entries.
  one=${paths[$i]/ID/$(head -1 "$work/ids$mid.txt")}
  c_bytes=$(curl -s -o /dev/null -w '%{size_download}' -H "$auth" "$base$one")
  p_bytes="–"
  [ "$smoke" -eq 0 ] && p_bytes=$(curl -s -o /dev/null -w '%{size_download}' -H "$auth" "http://127.0.0.1:$prism_port$one")
  report "| ${names[$i]} \`${paths[$i]}\` | $c_rps | $c50 ms | $c99 ms | $n_rps | $n_ratio | $p_rps | $p99 ms | $ratio | $c_bytes / $p_bytes |"
done
get99=$(med "$work/p1-courier-0" 3)
report
report "Every limit, req/s (median of $runs): $(for i in "${!names[@]}"; do [ "${with_nginx[$i]}" -eq 1 ] || continue
  printf '%s: ' "${names[$i]}"; for k in "${!limits[@]}"; do printf '%s %s; ' "${limits[$k]}" "$(med "$work/p1-limit-$i-$k" 1)"; done; done)"
report
report "Get-one p99: **$get99 ms** (target < 5 ms)."
[ -n "$prism" ] && { kill -- "-$prism" 2>/dev/null || true; prism=""; }
stop server

# Lists of lean entries (about half the bytes: no request headers or body, no answer, no failure callback) against
# the same limits, since the share of a list's time that is not JSON grows as entries shrink.
lean=${sizes[0]}
log "part 1: a list of $lean lean entries against the limits"
"$fill" --data-dir "$work/lean" --entries "$lean" --ids-file "$work/ids-lean.txt" --lean >"$work/fill-lean.log"
start_server "$work/lean"
save_answers "$base" "$work/ids-lean.txt" "$list100" "$work/www-lean"
: >"$work/lean-courier"
for k in "${!limits[@]}"; do : >"$work/lean-limit-$k"; done
for _ in $(seq 1 "$runs"); do
  wrk_once "$base" "$list100" "$seconds" "" >>"$work/lean-courier"
  for k in "${!limits[@]}"; do
    start_limit "${limits[$k]}" "$work/www-lean"
    wrk_once "$nginx_base" "$list100" "$seconds" "" >>"$work/lean-limit-$k"
    stop nginx_pid
  done
done
for k in "${!limits[@]}"; do
  bad=$(awk '{s+=$4} END {print s+0}' "$work/lean-limit-$k")
  if [ "$bad" -ne 0 ]; then echo "${limits[$k]} answered $bad non-2xx for the lean list" >&2; exit 1; fi
  echo "${limits[$k]} $(med "$work/lean-limit-$k" 1)"
done | sort -k2 -g | tail -1 >"$work/lean-best"
bad=$(awk '{s+=$4} END {print s+0}' "$work/lean-courier")
if [ "$bad" -ne 0 ]; then echo "courier answered $bad non-2xx for the lean list" >&2; exit 1; fi
lean_bytes=$(stat -c %s "$work/www-lean/list100.json")
lean_rps=$(med "$work/lean-courier" 1)
lean_ratio=$(target_ratio "$lean_rps" "$(awk '{print $2}' "$work/lean-best")")
stop server
report
report "The same list (\`$list100\`) on a store of $lean lean entries (\`$fill --lean\`: no request headers or body, no"
report "answer, no failure callback; a page of $lean_bytes bytes against $(stat -c %s "$work/www/list100.json") above), against every limit"
report "serving that page, in turns, $runs × ${seconds} s: courier **$lean_rps** req/s (p50 $(med "$work/lean-courier" 2) ms),"
report "the fastest limit $(awk '{print $2 " (" $1 ")"}' "$work/lean-best") req/s, ratio **$lean_ratio**; every limit: $(for k in "${!limits[@]}"; do printf '%s %s; ' "${limits[$k]}" "$(med "$work/lean-limit-$k" 1)"; done)"

# The client's stream over a whole DLQ against the plainest code reading the same pages.
log "part 1: dlq_stream over the $mid-entry store"
start_server "$work/d$mid"
stream_line=$("$bin/courier-stream-cost" --base-url "$base" --token "$token" --rounds "$runs")
read -r stream_entries stream_s plain_s stream_ratio <<<"$stream_line"
stop server
report
report "Reading a whole DLQ: courier-client's \`dlq_stream\` over all $stream_entries entries of the $mid-entry"
report "store against reqwest and serde_json reading the same pages into the same models, following the"
report "cursor by hand, in turns (\`$bin/courier-stream-cost --base-url $base --token $token --rounds $runs\`,"
report "medians): the stream $stream_s s ($(awk -v n="$stream_entries" -v s="$stream_s" 'BEGIN {printf "%.0f", n / s}') entries/s), by hand $plain_s s"
report "($(awk -v n="$stream_entries" -v s="$plain_s" 'BEGIN {printf "%.0f", n / s}') entries/s): the stream's rate ÷ the plain one's **$stream_ratio**."

# --- part 2: scale --------------------------------------------------------------------------
log "part 2: list latency at ${sizes[*]} entries"
report
report "## 2. Scale: list latency by DLQ size"
report
report "Each store served alone; ${runs} × ${scale_seconds} s of wrk per cell (first page, count=100), every"
report "request read from the store: a \`fromDate\` no request repeats (far below every entry) keeps the"
report "service from answering with a kept page (bench/unkept-pages.lua)."
report "Filters: one = \`label=billing\` (~18% of entries), two = \`label=billing&callerIp=203.0.113.7\` (~2.3%)."
report
report "| entries | unfiltered p50 / p99 | one filter p50 / p99 | two filters p50 / p99 | unfiltered req/s | one filter req/s | two filters req/s |"
report "|---|---|---|---|---|---|---|"
scale_paths=("$list100" "$one_filter" "$two_filters")
for n in "${sizes[@]}"; do
  start_server "$work/d$n"
  row="| $n |"; rps_row=""
  for j in "${!scale_paths[@]}"; do
    : >"$work/s-$n-$j"
    for _ in $(seq 1 "$runs"); do
      BENCH_LIST_PATH=${scale_paths[$j]} wrk_once "$base" / "$scale_seconds" bench/unkept-pages.lua >>"$work/s-$n-$j"
    done
    row="$row $(med "$work/s-$n-$j" 2) / $(med "$work/s-$n-$j" 3) ms |"
    rps_row="$rps_row $(med "$work/s-$n-$j" 1) |"
  done
  report "$row$rps_row"
  if [ "$n" = "$largest" ]; then
    rss=$(rss_kib)
    # Restart with the largest store: from spawning the process to the first served request.
    log "restart with $n entries"
    stop server
    first_id=$(head -1 "$work/ids$n.txt")
    : >"$work/restart"
    for _ in $(seq 1 "$runs"); do
      t0=$(date +%s%N)
      "$courier" serve --listen "127.0.0.1:$port" --data-dir "$work/d$n" >"$work/serve.log" 2>&1 &
      server=$!
      for _ in $(seq 1 2000); do
        curl -sf -o /dev/null -H "$auth" "$base/v2/workflows/dlq/$first_id" && break
        sleep 0.005
      done
      t1=$(date +%s%N)
      curl -sf -o /dev/null -H "$auth" "$base/v2/workflows/dlq/$first_id"
      echo "$(( (t1 - t0) / 1000000 ))" >>"$work/restart"
      stop server
    done
  else
    stop server
  fi
done
ratio_cells=""
for j in "${!scale_paths[@]}"; do
  small=$(med "$work/s-${sizes[0]}-$j" 2); big=$(med "$work/s-$largest-$j" 2)
  ratio_cells="$ratio_cells $(awk -v a="$big" -v b="$small" 'BEGIN {printf "%.2f×", a / b}') |"
done
report "| ratio of p50, $largest / ${sizes[0]} (target ≤ 1.5×) |$ratio_cells | | | |"
report
report "RSS of courier after the load on the $largest-entry store: **$((rss / 1024)) MiB** (VmRSS $rss KiB, /proc/PID/status)."

# --- part 3: restart and bulk delete ---------------------------------------------------------
restart_ms=$(median <"$work/restart")
report
report "## 3. Restart and bulk delete"
report
report "Restart with $largest entries (warm page cache): from spawning \`courier serve\` to the first"
report "answered \`GET /v2/workflows/dlq/{id}\` (curl polled every 5 ms): **$restart_ms ms** median of $runs"
report "($(paste -sd' ' "$work/restart") ms; target ≤ 2000 ms)."

log "part 3: bulk delete"
# bulk_delete QUERY: on a fresh copy of the largest store, deletes every entry matching QUERY in
# pages of count=1000 following the cursor; appends "seconds_summed slowest_ms deleted requests".
bulk_delete() {
  rm -rf "$work/del" && cp -r "$work/d$largest" "$work/del"
  # Written back before the run: otherwise the copy's gigabytes go to disk during it, and each
  # commit's fsync waits behind them (delete rates then varied 5× from run to run).
  sync
  start_server "$work/del"
  local cursor="" total=0 requests=0 url
  : >"$work/delete-times"
  for _ in $(seq 1 $(( largest / 10000 + 10 ))); do
    url="$base/v2/workflows/dlq?$1&count=1000${cursor:+&cursor=$cursor}"
    curl -sf -X DELETE -H "$auth" -o "$work/delete.json" -w '%{time_total}\n' "$url" >>"$work/delete-times"
    requests=$((requests + 1))
    total=$((total + $(jq .deleted "$work/delete.json")))
    cursor=$(jq -r '.cursor // empty' "$work/delete.json")
    [ -z "$cursor" ] && break
  done
  stop server
  rm -rf "$work/del"
  if [ "$total" -ne $(( largest / 10 )) ]; then
    echo "bulk delete ($1) removed $total entries, expected $(( largest / 10 ))" >&2; exit 1
  fi
  echo "$(awk '{s+=$1} END {printf "%.2f", s}' "$work/delete-times") $(sort -g "$work/delete-times" | tail -1 | awk '{printf "%.0f", $1 * 1000}') $total $requests"
}
# Entries are created in createdAt order, so entry largest/10 starts the second tenth; the ids
# file holds every (largest/1000)-th id, line 101 is that entry.
cutoff=$(( $(sed -n 101p "$work/ids$largest.txt" | cut -d- -f1) - 1 ))
delete_names=("every 10th entry: \`flowControlKey=tenant-00\`" "the oldest tenth: \`toDate=$cutoff\`")
delete_queries=("flowControlKey=tenant-00" "toDate=$cutoff")
report
report "Bulk delete of $(( largest / 10 )) of $largest entries through the API, in pages of the maximum \`count=1000\`"
report "following the cursor, each run on a fresh copy of the store:"
report "\`curl -X DELETE -H '$auth' '$base/v2/workflows/dlq?FILTER&count=1000[&cursor=C]'\`."
report "Server time is the sum of the requests' curl \`time_total\` (on loopback, the server's time"
report "plus well under a millisecond per request); medians of $runs runs."
report
report "| entries deleted | requests | server time (target ≤ 2 s) | slowest request |"
report "|---|---|---|---|"
for i in "${!delete_queries[@]}"; do
  : >"$work/deletes-$i"
  for _ in $(seq 1 "$runs"); do bulk_delete "${delete_queries[$i]}" >>"$work/deletes-$i"; done
  report "| ${delete_names[$i]} | $(awk 'NR==1 {print $4}' "$work/deletes-$i") | **$(med "$work/deletes-$i" 1) s** | $(med "$work/deletes-$i" 2) ms |"
done

# Reading against deleting the same entries (every 10th), one client in one process
# (courier-read-vs-delete: a list walk at count=100, then the bulk delete at count=1000), each
# run on a fresh copy of the largest store.
log "part 3: reading and deleting the same entries"
: >"$work/read-vs-delete"
for _ in $(seq 1 "$runs"); do
  rm -rf "$work/del" && cp -r "$work/d$largest" "$work/del"
  # Written back before the run: otherwise the copy's gigabytes go to disk during it, and each
  # commit's fsync waits behind them (delete rates then varied 5× from run to run).
  sync
  start_server "$work/del"
  "$read_vs_delete" --base-url "$base" --token "$token" --flow-control-key tenant-00 \
    | awk '{printf "%s %.0f %.0f %s\n", $0, $1 / $2, $3 / $4, ($3 / $4) / ($1 / $2)}' >>"$work/read-vs-delete"
  stop server
  rm -rf "$work/del"
done
read_rate=$(med "$work/read-vs-delete" 5); delete_rate=$(med "$work/read-vs-delete" 6)
delete_over_read=$(med "$work/read-vs-delete" 7)
report
report "The same $(awk 'NR==1 {print $1}' "$work/read-vs-delete") entries (every 10th) read page by page through the list API and then"
report "bulk-deleted, by one courier-client in one process, on a fresh copy of the store each run:"
report "\`$read_vs_delete --base-url $base --token $token --flow-control-key tenant-00\` (list count=100,"
report "delete count=1000). Read: **$read_rate entries/s**, delete: **$delete_rate entries/s**, delete ÷ read"
report "**$(printf '%.2f' "$delete_over_read")** (medians of $runs runs; per run: $(awk '{printf "%s ", $7}' "$work/read-vs-delete"))."

# The read path at the largest store and one request at a time (bench/read-path.sh).
source "$root/bench/read-path.sh"

# courier-client's validation, fresh services (in process, as a process, a suite of them); then
# part 4, the build cost.
source "$root/bench/client-costs.sh"
source "$root/bench/start-costs.sh"
source "$root/bench/build-cost.sh"

# Findings (profiles, fixes with before/after), the soak, the PostgreSQL rows and the test
# suite's time in a fresh clone are kept in their own files, written by hand, by bench/soak.sh,
# bench/postgres.sh and bench/test-time.sh (each needs a quiet quarter of an hour of its own),
# and copied in so BENCHMARKS.md has every figure.
if [ "$smoke" -eq 0 ]; then
  for extra in bench/findings.md bench/results/soak.md bench/results/postgres.md bench/results/test-time.md; do
    # Demote their headings one level under this report's title.
    [ -f "$extra" ] && { echo; sed 's/^#/##/' "$extra"; } >>"$work/report.md"
  done
fi
# The targets table (bench/targets.sh), from the figures above.
source "$root/bench/targets.sh"
# Right after the header, before section 1.
awk -v t="$work/targets.md" '/^## 1\./ && !done {while ((getline line < t) > 0) print line; print ""; done = 1} {print}' \
  "$work/report.md" >"$work/report.tmp" && mv "$work/report.tmp" "$work/report.md"
mkdir -p "$(dirname "$out")"
cp "$work/report.md" "$out"
log "wrote $out"
cat "$out"
