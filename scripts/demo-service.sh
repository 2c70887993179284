# Sourced by the scripts in this folder: starts `courier serve --demo` on port $1 (further
# arguments go to `courier serve`) in a temporary data directory, waits until it answers, and
# stops it (and removes the data) when the script exits. Sets $data (the data directory) and
# $base (the service's address).
start_demo_service() {
  local port=$1
  shift
  data=$(mktemp -d)
  base="http://127.0.0.1:$port"
  cargo build --quiet -p courier-cli --bins
  "${CARGO_TARGET_DIR:-target}/debug/courier" serve --demo --listen "127.0.0.1:$port" --data-dir "$data" "$@" >"$data/serve.log" 2>&1 &
  demo_server=$!
  trap 'kill "$demo_server" 2>/dev/null || true; wait "$demo_server" 2>/dev/null || true; rm -rf "$data"' EXIT
  for _ in $(seq 1 100); do
    curl -sf "$base/health" >/dev/null && return 0
    sleep 0.1
  done
  echo "courier did not start; its log:" >&2
  cat "$data/serve.log" >&2
  return 1
}
