#!/usr/bin/env bash
# Runs the courier-client examples against a freshly started `courier serve --demo`, checking
# that each one succeeds and says what it should.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${EXAMPLES_PORT:-18282}
data=$(mktemp -d)
cargo build --quiet -p courier-service --bins
cargo build --quiet -p courier-client --examples
target/debug/courier serve --demo --listen "127.0.0.1:$port" --data-dir "$data" >"$data/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
  sleep 0.1
done
export COURIER_BASE_URL="http://127.0.0.1:$port" COURIER_MANAGEMENT_URL="http://127.0.0.1:$port"
run() { echo "--- $*"; "target/debug/examples/$@" | tee "$data/out"; }
run list_failed_runs billing CALLBACK_FAIL
grep -Eq '^[1-9][0-9]* failed runs$' "$data/out"
run account_stats 1d
grep -q '^DLQ now holds 300 failed runs$' "$data/out"
grep -Eq '^  failed +[1-9][0-9]*$' "$data/out"
run drain_dlq beta
grep -Eq '^done: [1-9][0-9]* deleted$' "$data/out"
run list_failed_runs beta
grep -q '^0 failed runs$' "$data/out"
echo "examples: all ran against the demo service"
