#!/usr/bin/env bash
# Runs schemathesis with every check against a freshly started `courier serve --demo`, once per
# seed (ST_SEEDS, default "1 2 3"; a fixed list, so a failure reproduces), the seeds at once. Each seed gets its own
# demo data, and a generated config (scripts/schemathesis-config.py) that binds path parameters
# to ids that exist, so every operation gets past its 404s. Destructive operations run after the
# reading ones, single-entry changes before bulk ones; management goes last (it rotates the
# token). Each run is bounded by ST_MAX_TIME seconds. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
max_time=${ST_MAX_TIME:-20}
read -r -a seeds <<<"${ST_SEEDS:-1 2 3}"
source scripts/demo-service.sh
# The service logs every request with its status at debug level; the check below reads it.
export RUST_LOG=courier_service=debug
bearer='Authorization: Bearer demo-service-token'

run_seed() {
  local seed=$1 port=$2
  start_demo_service "$port"
  python3 scripts/schemathesis-config.py "$base" demo-service-token >"$data/schemathesis.toml"
  st() {
    echo "--- seed $seed: $*"
    SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}" \
      schemathesis --config-file "$data/schemathesis.toml" run spec/openapi.yaml -u "$base" \
      --checks all --max-time "$max_time" --seed "$seed" --no-color "$@"
  }
  st --include-operation-id listWorkflowDlq --include-operation-id getWorkflowDlq \
    --include-operation-id getUrlGroup --include-operation-id listDlqCompat -H "$bearer"
  # The single-entry changes run before the bulk ones: a bulk cancel beside them had, on one seed,
  # cancelled every run before a single cancel reached an id it bound, so that cancel never
  # answered 200.
  st --include-operation-id deleteDlqMessage --include-operation-id deleteWorkflowDlqMessage \
    --include-operation-id cancelWorkflowRun -H "$bearer"
  # The bulk cancel's negative cases are often valid on the wire: every parameter of it is
  # optional and a query carries strings, so an integer drawn as an object goes out as
  # `toDate=0` and run ids drawn as a boolean as `workflowRunIds=false`, both valid, which the
  # service rightly answers 200 (ST201 on seed 2). Its refusals of bad values are held by the
  # generated parsers' property tests (crates/server/tests/it/hostile_input) instead.
  st --include-operation-id cancelWorkflowRuns -H "$bearer" --exclude-checks negative_data_rejection
  st --include-operation-id deleteWorkflowDlqBulk -H "$bearer"
  st --include-tag management -a demo@courier.dev:demo-management-key
  # Every operation got past its 404s: each route answered 200 at least once.
  local route missing=0
  # The routes come from the spec, through its one reader: `METHOD path-regex` per operation.
  local routes
  routes=$(cargo run --quiet -p xtask -- operations | awk '{ gsub(/\{[^}]+\}/, "[^/ ]+", $2); print $1, $2 }')
  [ -n "$routes" ] || { echo "seed $seed: no operations listed" >&2; return 1; }
  while read -r method path; do
    local route="$method $path"
    local count
    count=$(grep -cE "request method=$method path=$path status=200 " "$data/serve.log" || true)
    echo "seed $seed: $route answered 200 $count times"
    [ "$count" -gt 0 ] || missing=1
  done <<<"$routes"
  [ "$missing" = 0 ] || { echo "seed $seed: some operation never reached its success path" >&2; return 1; }
}

# The seeds run side by side, each with its own service, port and data: one after another they
# took over five minutes of CI, most of it each run waiting out its --max-time. Each seed's
# output is shown whole once it is done.
logs=$(mktemp -d)
pids=()
for i in "${!seeds[@]}"; do
  (run_seed "${seeds[$i]}" $((${ST_PORT:-18181} + i))) >"$logs/seed-$i.log" 2>&1 &
  pids+=("$!")
done
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { failed=1; echo "seed ${seeds[$i]} failed" >&2; }
  cat "$logs/seed-$i.log"
done
rm -rf "$logs"
exit "$failed"
