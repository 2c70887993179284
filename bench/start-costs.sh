# Sourced by bench/run.sh (its functions and variables in scope): what a fresh service costs the
# user who starts one per test or per run. TestService::start() in process, `courier serve` on an
# empty data directory, and a suite of contract tests with a fresh TestService each against the
# same tests on one shared service; appended to the report, and read by the targets table.
ms() { awk -v v="$1" 'BEGIN {printf "%.2f", v / 1000}'; }

# A fresh service per contract test: TestService::start() in process until its first answer.
log "part 3: a fresh TestService per test"
starts=200
[ "$smoke" -eq 1 ] && starts=5
: >"$work/start-time"
for _ in $(seq 1 "$runs"); do "$start_time" --starts "$starts" >>"$work/start-time"; done
start_p50=$(med "$work/start-time" 1); start_p99=$(med "$work/start-time" 2); start_max=$(med "$work/start-time" 3)
start_cpu=$(med "$work/start-time" 4)
report
report "### Starting fresh services"
report
report "A fresh service per test: \`$start_time --starts $starts\` runs \`TestService::start()\` (new temporary data"
report "directory, store written from the migrated schema's image, listener bound) and one \`GET /health\` through an"
report "already built client, $starts times one after another: p50 **$(ms "$start_p50") ms**, p99 **$(ms "$start_p99") ms**,"
report "max $(ms "$start_max") ms (medians of $runs runs; targets p50 ≤ 1 ms, p99 ≤ 5 ms). The process's CPU time in the"
report "same window (all threads, \`/proc/self/task/*/schedstat\`), p50: $(ms "$start_cpu") ms; each service is stopped before the next starts."

# `courier serve` as a process on an empty data directory, until its first answered /health.
log "part 3: courier serve on an empty data directory"
serve_starts=50
[ "$smoke" -eq 1 ] && serve_starts=5
: >"$work/serve-start"
# Each start flushes its new store twice: what earlier parts wrote and the kernel has not yet
# written back (stores of up to a million entries) goes to disk first, or those flushes wait
# behind it.
sync
for _ in $(seq 1 "$runs"); do
  "$bin/courier-serve-start" --courier "$courier" --starts "$serve_starts" --port "$port" \
    --work-dir "$work/serve-start-dirs" >>"$work/serve-start"
done
serve_p50=$(med "$work/serve-start" 1); serve_p99=$(med "$work/serve-start" 2)
report
report "\`courier serve\` on an empty data directory (the store created durably: the image, the account in it,"
report "flushed before it is named, then its directory), from spawning the process to the end of its first answered"
report "\`GET /health\` (a bare TCP client retrying its connect every 100 µs): \`$bin/courier-serve-start --courier $courier"
report "--starts $serve_starts\`: p50 **$(ms "$serve_p50") ms**, p99 $(ms "$serve_p99") ms (medians of $runs runs; target ≤ 3 ms)."

# A suite of contract tests, a fresh TestService each, against the same tests sharing one.
log "part 3: a suite of fresh services against one shared service"
suite_tests=1000
[ "$smoke" -eq 1 ] && suite_tests=20
suite_line=$("$bin/courier-suite-cost" --tests "$suite_tests" --rounds "$runs")
read -r suite_fresh suite_shared suite_ratio _ suite_parallel <<<"$suite_line"
report
report "$suite_tests contract tests (each seeds three entries through the admin API, builds a courier-client, lists,"
report "gets one, cancels the run, lists again), $suite_parallel at a time: with a fresh \`TestService\` each"
report "**$suite_fresh ms**, all on one shared service $suite_shared ms, ratio **$suite_ratio** (target ≤ 1.5; medians of"
report "$runs alternating suites of each kind: \`$bin/courier-suite-cost --tests $suite_tests --rounds $runs\`)."
