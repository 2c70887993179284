#!/usr/bin/env bash
# `cargo install --path crates/cli` gives a working `courier`: installs into a throwaway
# --root, starts the installed binary with demo data and asks it for a failed run. `--debug`
# and the workspace's target dir reuse CI's build cache (a release build would cost minutes on
# 2 cores and prove nothing more about the install); `--locked` installs the tested versions.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
port=${INSTALL_CHECK_PORT:-18384}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"
cargo install --quiet --locked --debug --path crates/cli --root "$work/root"
courier="$work/root/bin/courier"
test -x "$courier"
"$courier" --version | grep -Eq '^courier [0-9]+\.[0-9]+\.[0-9]+'
"$courier" serve --demo --listen "127.0.0.1:$port" --data-dir "$work/data" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
  sleep 0.1
done
curl -sf -H 'Authorization: Bearer demo-service-token' \
  "http://127.0.0.1:$port/v2/workflows/dlq?count=1" | grep -q '"dlqId"'
echo "install check: cargo install --path crates/cli gave a courier that serves the demo DLQ"
