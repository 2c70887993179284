#!/usr/bin/env bash
# Runs the hosted service's official clients, unchanged and pinned (@upstash/workflow 1.3.3,
# @upstash/qstash 2.12.0, the `qstash` Python package 3.4.0), against a fresh
# `courier serve --demo` (`docs/decisions.md#d19-official-client-compatibility`): every call that
# touches the interface's operations or their aliases. Installs the clients itself. Exits non-zero
# on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD/scripts/official-clients
source scripts/demo-service.sh

python3 -c 'import qstash, pytest' 2>/dev/null \
  || python3 -m pip install --quiet --disable-pip-version-check 'qstash==3.4.0' 'pytest==8.3.5'
# The npm packages go into a directory of their own beside the build output, not the tree.
modules=${CARGO_TARGET_DIR:-$PWD/target}/official-clients
mkdir -p "$modules"
cp "$here/package.json" "$modules/"
(cd "$modules" && npm install --silent --no-fund --no-audit --no-package-lock >/dev/null)
cp "$here/clients.test.mjs" "$modules/"

admin_token=official-clients-admin
start_demo_service "${OFFICIAL_CLIENTS_PORT:-18283}" --admin-token "$admin_token"
export COURIER_BASE_URL=$base COURIER_ADMIN_URL=$base COURIER_ADMIN_TOKEN=$admin_token

echo "--- @upstash/workflow and @upstash/qstash (node --test)"
(cd "$modules" && node --test --test-concurrency=1 clients.test.mjs)
echo "--- qstash for Python (pytest)"
python3 -m pytest -q -p no:cacheprovider "$here/test_qstash_python.py"
