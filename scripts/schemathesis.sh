#!/usr/bin/env bash
# Runs schemathesis with every check against a freshly started `courier serve --demo`, messaging
# first (bearer token), then management (Basic auth; it rotates the token, so it goes last).
# Bounded by ST_MAX_TIME seconds per interface. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${ST_PORT:-18181}
max_time=${ST_MAX_TIME:-60}
data=$(mktemp -d)
cargo build --quiet -p courier-service
target/debug/courier serve --demo --listen "127.0.0.1:$port" --data-dir "$data" >"$data/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
  sleep 0.1
done
common=(spec/openapi.yaml -u "http://127.0.0.1:$port" --checks all --max-time "$max_time" --generation-deterministic --no-color)
schemathesis run "${common[@]}" --include-tag messaging -H 'Authorization: Bearer demo-service-token'
schemathesis run "${common[@]}" --include-tag management -a demo@courier.dev:demo-management-key
