#!/usr/bin/env bash
# Builds the README's client program exactly as written there (its Cargo.toml lines and its
# main.rs, in a fresh crate) and runs it over HTTPS against `courier serve --demo --tls-cert
# --tls-key`, trusting a throwaway CA through SSL_CERT_FILE only: the path a newcomer takes.
# Twice: with the default TLS (rustls), and with `default-features = false, features =
# ["native-tls"]` (OpenSSL), the alternative the README offers, so both really reach HTTPS.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
command -v openssl >/dev/null || { apt-get update -qq && apt-get install -y -qq openssl >/dev/null; }
work=$(mktemp -d)
port=${README_CLIENT_PORT:-18383}

# The first ```toml and the first ```rust block of the "Using the client" section.
section=$(awk '/^## Using the client/{on=1; next} /^## /{on=0} on' README.md)
block() { awk -v lang="$1" '$0=="```"lang{on=1; next} on && $0=="```"{exit} on' <<<"$section"; }
mkdir -p "$work/dlq-report/src"
{
  printf '[package]\nname = "dlq-report"\nversion = "0.1.0"\nedition = "2024"\n\n'
  block toml | sed "s#\.\./courier/#$repo/#"
  printf '\n[workspace]\n'
} >"$work/dlq-report/Cargo.toml"
block rust >"$work/dlq-report/src/main.rs"
grep -q '#\[tokio::main\]' "$work/dlq-report/src/main.rs"
# Same dependency versions as the workspace, and its build cache.
cp Cargo.lock "$work/dlq-report/"
# The native-tls twin: the same program, courier-client's dependency line switched to OpenSSL.
cp -r "$work/dlq-report" "$work/dlq-report-native-tls"
sed -i -E 's#^(courier-client = \{ path = "[^"]*")#\1, default-features = false, features = ["native-tls"]#' \
  "$work/dlq-report-native-tls/Cargo.toml"
sed -i 's#^name = "dlq-report"#name = "dlq-report-native-tls"#' "$work/dlq-report-native-tls/Cargo.toml"
grep -q 'features = \["native-tls"\]' "$work/dlq-report-native-tls/Cargo.toml"
if ! pkg-config --exists openssl 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl-dev pkg-config >/dev/null
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --quiet --manifest-path "$work/dlq-report/Cargo.toml"
cargo build --quiet --manifest-path "$work/dlq-report-native-tls/Cargo.toml"

# A throwaway CA and a certificate for 127.0.0.1 it signed.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=readme throwaway CA" \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
  -keyout "$work/key.pem" -out "$work/cert.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$work/ext.cnf"
openssl x509 -req -in "$work/cert.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 1 -extfile "$work/ext.cnf" -out "$work/cert.pem" 2>/dev/null

cargo build --quiet -p courier-cli --bins
# A fresh data dir per run: each run deletes one entry and then expects the demo's count.
serve() {
  rm -rf "$work/data"
  "$CARGO_TARGET_DIR/debug/courier" serve --demo --listen "127.0.0.1:$port" --data-dir "$work/data" \
    --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do
    curl -sf --cacert "$work/ca.pem" "$base/health" >/dev/null && return
    sleep 0.1
  done
  cat "$work/serve.log" >&2; exit 1
}
stop() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
trap 'stop; rm -rf "$work"' EXIT
base="https://127.0.0.1:$port"

check() {
  local tls=$1 program=$2
  run() {
    env -u COURIER_MANAGEMENT_URL COURIER_BASE_URL="$base" COURIER_SERVICE_TOKEN=demo-service-token \
      COURIER_CUSTOMER_ID=demo@courier.dev COURIER_MANAGEMENT_KEY=demo-management-key "$@" "$program"
  }
  serve
  # Without the CA the program must fail, on one line naming the certificate problem.
  if run env -u SSL_CERT_FILE >"$work/out" 2>&1; then
    echo "the README program ($tls) reached the service without trusting its CA" >&2; exit 1
  fi
  grep -q 'certificate' "$work/out" || { cat "$work/out" >&2; exit 1; }
  run env SSL_CERT_FILE="$work/ca.pem" | tee "$work/out"
  grep -Eq '^[1-9][0-9]* failed runs labelled billing$' "$work/out"
  grep -q '^deleted ' "$work/out"
  grep -q '^the DLQ holds 299 failed runs$' "$work/out"
  stop
  echo "readme client ($tls): built from the README, listed, got, deleted and read statistics over HTTPS"
}
check rustls "$CARGO_TARGET_DIR/debug/dlq-report"
check native-tls "$CARGO_TARGET_DIR/debug/dlq-report-native-tls"
