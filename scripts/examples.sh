#!/usr/bin/env bash
# Runs the courier-client examples against a freshly started `courier serve --demo`, checking
# that each one succeeds and says what it should.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/demo-service.sh
start_demo_service "${EXAMPLES_PORT:-18282}"
cargo build --quiet -p courier-client --examples
export COURIER_BASE_URL="$base" COURIER_MANAGEMENT_URL="$base"
run() { echo "--- $*"; "${CARGO_TARGET_DIR:-target}/debug/examples/$@" | tee "$data/out"; }
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
