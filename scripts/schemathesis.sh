#!/usr/bin/env bash
# Runs schemathesis with every check against a freshly started `courier serve --demo`, messaging
# first (bearer token), then management (Basic auth; it rotates the token, so it goes last).
# Bounded by ST_MAX_TIME seconds per interface. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
max_time=${ST_MAX_TIME:-60}
source scripts/demo-service.sh
start_demo_service "${ST_PORT:-18181}"
common=(spec/openapi.yaml -u "$base" --checks all --max-time "$max_time" --generation-deterministic --no-color)
schemathesis run "${common[@]}" --include-tag messaging -H 'Authorization: Bearer demo-service-token'
schemathesis run "${common[@]}" --include-tag management -a demo@courier.dev:demo-management-key
