# Sourced by bench/run.sh after part 2 (its functions and variables in scope): the read path's
# targets at the largest store, where part 1 measured them at $mid entries, and the latency a
# test suite sees, one request at a time. Every request here is read from the store: get-one
# always is, and the lists ask a `fromDate` no request repeats (bench/unkept-pages.lua), so no
# kept page answers them. Appended to the report, and read by the targets table.

# --- the largest store against the limits that were fastest in part 1 ----------------------
log "read path: get-one and a list of 100 on the $largest-entry store"
start_server "$work/d$largest"
save_answers "$base" "$work/ids$largest.txt" "$list100" "$work/www-largest"
big_get_limit=$(awk '{print $1}' "$work/p1-best-0")
big_list_limit=$(awk '{print $1}' "$work/p1-best-1")
: >"$work/big-get"; : >"$work/big-list"; : >"$work/big-get-limit"; : >"$work/big-list-limit"
for _ in $(seq 1 "$runs"); do
  BENCH_IDS="$work/ids$largest.txt" wrk_once "$base" / "$seconds" bench/get-one.lua >>"$work/big-get"
  BENCH_LIST_PATH=$list100 wrk_once "$base" / "$seconds" bench/unkept-pages.lua >>"$work/big-list"
  start_limit "$big_get_limit" "$work/www-largest"
  BENCH_IDS="$work/ids$largest.txt" wrk_once "$nginx_base" / "$seconds" bench/get-one.lua >>"$work/big-get-limit"
  stop nginx_pid
  start_limit "$big_list_limit" "$work/www-largest"
  wrk_once "$nginx_base" "$list100" "$seconds" "" >>"$work/big-list-limit"
  stop nginx_pid
done
stop server
for file in big-get big-list big-get-limit big-list-limit; do
  bad=$(awk '{s+=$4} END {print s+0}' "$work/$file")
  if [ "$bad" -ne 0 ]; then echo "$file: $bad non-2xx answers" >&2; exit 1; fi
done
get_ratio=$(target_ratio "$(med "$work/p1-courier-0" 1)" "$(awk '{print $2}' "$work/p1-best-0")")
unkept_ratio=$(target_ratio "$(med "$work/p1-courier-4" 1)" "$(awk '{print $2}' "$work/p1-best-1")")
big_get_ratio=$(target_ratio "$(med "$work/big-get" 1)" "$(med "$work/big-get-limit" 1)")
big_list_ratio=$(target_ratio "$(med "$work/big-list" 1)" "$(med "$work/big-list-limit" 1)")
# Two filters ÷ unfiltered, both read from the store, from part 2's table (req/s, column 1).
filters_read_ratio() { target_ratio "$(med "$work/s-$1-2" 1)" "$(med "$work/s-$1-0" 1)"; }
mid_filters_read=$(filters_read_ratio "$mid")
big_filters_read=$(filters_read_ratio "$largest")
report
report "## The read path near the limit"
report
report "Every request read from the store. At $mid entries the figures are part 1's; at $largest entries"
report "the same requests against the limit that was fastest for them in part 1, serving the bytes"
report "courier answered from this store (checked byte for byte), alternating, $runs × ${seconds} s:"
report
report "| request, every one read from the store | entries | courier req/s (p50 / p99) | limit req/s | courier ÷ limit |"
report "|---|---|---|---|---|"
report "| get-one \`/v2/workflows/dlq/ID\` | $mid | $(med "$work/p1-courier-0" 1) ($(med "$work/p1-courier-0" 2) / $(med "$work/p1-courier-0" 3) ms) | $(awk '{print $2 " (" $1 ")"}' "$work/p1-best-0") | $get_ratio |"
report "| get-one | $largest | $(med "$work/big-get" 1) ($(med "$work/big-get" 2) / $(med "$work/big-get" 3) ms) | $(med "$work/big-get-limit" 1) ($big_get_limit) | $big_get_ratio |"
report "| list, count=100 \`$list100&fromDate=N\` | $mid | $(med "$work/p1-courier-4" 1) ($(med "$work/p1-courier-4" 2) / $(med "$work/p1-courier-4" 3) ms) | $(awk '{print $2 " (" $1 ")"}' "$work/p1-best-1") | $unkept_ratio |"
report "| list, count=100 | $largest | $(med "$work/big-list" 1) ($(med "$work/big-list" 2) / $(med "$work/big-list" 3) ms) | $(med "$work/big-list-limit" 1) ($big_list_limit) | $big_list_ratio |"
report
report "Two filters (\`label=billing&callerIp=203.0.113.7\`) ÷ unfiltered, both read from the store"
report "(part 2's req/s): **$mid_filters_read** at $mid entries, **$big_filters_read** at $largest."

# --- latency where tests wait: one client, one request at a time ----------------------------
log "read path: one request at a time"
# The client and the server on a core each, the same two for courier and for its limit. Left to
# the scheduler, whether the two woke on one core decided the limit's get-one p50 (21 µs on one
# core, 56-65 µs on two, 57-78 µs unpinned), so the ratio moved with the scheduler, not with
# either server.
# Two of the CPUs this script may use (Cpus_allowed_list, e.g. "0-3,6"): a container's may not
# start at 0. With one, both run on it.
mapfile -t lat_cpus < <(awk '/^Cpus_allowed_list/ {
  n = split($2, parts, ",")
  for (i = 1; i <= n; i++) { m = split(parts[i], r, "-"); for (c = r[1]; c <= r[m]; c++) print c }
}' /proc/self/status)
lat_client_cpu=${lat_cpus[0]}
lat_server_cpu=${lat_cpus[1]:-${lat_cpus[0]}}
pin_to_server_cpu() { taskset -a -p -c "$lat_server_cpu" "$1" >/dev/null; }
rm -rf "$work/lat" && cp -r "$work/d$mid" "$work/lat"
sync
start_server "$work/lat"
pin_to_server_cpu "$server"
# courier's answers to a delete of one entry and of ten, saved for the limit to send: made on
# entries of this copy that the timed gets do not read (none of the ids file's).
lat_ids=$(curl -sf -H "$auth" "$base/v2/workflows/dlq?count=100" | jq -r '.messages[].dlqId' \
  | grep -vxF -f "$work/ids$mid.txt" | head -11)
curl -sf -X DELETE -H "$auth" -o "$work/www/delete-one.answer" "$base/v2/workflows/dlq/$(echo "$lat_ids" | head -1)"
curl -sf -X DELETE -H "$auth" -o "$work/www/delete-bulk.answer" \
  "$base/v2/workflows/dlq?$(echo "$lat_ids" | tail -10 | sed 's/^/dlqIds=/' | paste -sd'&')"
lat_requests=2000; lat_deletes=1000
[ "$smoke" -eq 1 ] && { lat_requests=50; lat_deletes=20; }
: >"$work/lat-courier"
for _ in $(seq 1 "$runs"); do
  taskset -c "$lat_client_cpu" "$bin/courier-latency" --base-url "$base" --token "$token" \
    --ids "$work/ids$mid.txt" --requests "$lat_requests" --deletes "$lat_deletes" \
    >>"$work/lat-courier"
done
stop server
rm -rf "$work/lat"
: >"$work/lat-limit"
start_anchor "$work/www"
pin_to_server_cpu "$nginx_pid"
for _ in $(seq 1 "$runs"); do
  taskset -c "$lat_client_cpu" "$bin/courier-latency" --base-url "$nginx_base" --token "$token" \
    --ids "$work/ids$mid.txt" --requests "$lat_requests" --deletes "$lat_deletes" --limit \
    >>"$work/lat-limit"
done
stop nginx_pid
# lat_cell FILE NAME COLUMN: the median over the runs of one request's p50 (2) or p99 (3), µs.
lat_cell() { awk -v n="$2" -v c="$3" '$1 == n {print $c}' "$1" | median; }
lat_names=(get-one list-100 delete bulk-delete-10)
lat_titles=("get-one" "list of 100, read from the store" "delete one entry" "bulk delete of 10 by ids")
declare -A lat_ratio
report
report "### Latency where tests wait"
report
report "One client, one request at a time over one kept-alive connection, as a contract test sends"
report "them (\`$bin/courier-latency --base-url URL --ids IDS --requests $lat_requests --deletes $lat_deletes\`): courier on a"
report "copy of the $mid-entry store (the deletes take entries it lists; every delete is flushed to disk"
report "before its answer), and \`courier-anchor\` answering the same requests from memory with the"
report "bytes courier answered (\`--limit\`). The client runs on CPU $lat_client_cpu and the server on CPU"
report "$lat_server_cpu (\`taskset\`), for courier and for the limit alike. Medians of $runs runs of each"
report "percentile, in µs."
report
report "| request | courier p50 / p99 | limit p50 / p99 | courier p50 ÷ limit p50 |"
report "|---|---|---|---|"
for i in "${!lat_names[@]}"; do
  n=${lat_names[$i]}
  c50=$(lat_cell "$work/lat-courier" "$n" 2); c99=$(lat_cell "$work/lat-courier" "$n" 3)
  l50=$(lat_cell "$work/lat-limit" "$n" 2); l99=$(lat_cell "$work/lat-limit" "$n" 3)
  lat_ratio[$n]=$(target_ratio "$c50" "$l50")
  report "| ${lat_titles[$i]} | $c50 / $c99 | $l50 / $l99 | ${lat_ratio[$n]} |"
done
