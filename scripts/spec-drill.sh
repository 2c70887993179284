#!/usr/bin/env bash
# The drill of README "Changing the spec": on a copy of this tree, add one multi-value filter to
# the spec's shared `DlqFilter` group, regenerate, and check that the only compile errors are in
# the store's filter mapping (crates/service/src/store/). Everything else (models struct, client
# builders, server parsing, query-key tables, tests, fuzz targets) must follow by itself.
# Exits non-zero when the compiler is silent (a filter could be ignored, widening a bulk delete)
# or names any other place.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
# The working tree as it is (committed or not), without build output.
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$copy"
cd "$copy"
python3 - <<'PY'
import re
path = "spec/openapi.yaml"
spec = open(path).read()
parameter = """    TraceIdFilter:
      name: traceId
      in: query
      x-courier-group: DlqFilter
      required: false
      description: Filter by trace id (any of the values). Added by the spec drill.
      style: form
      explode: true
      schema:
        type: array
        items:
          $ref: '#/components/schemas/NonEmptyString'
"""
spec = spec.replace("  parameters:\n    Cursor:\n", "  parameters:\n" + parameter + "    Cursor:\n", 1)
# Every operation that takes the group takes it whole (list, bulk delete, and their aliases).
reference = "        - $ref: '#/components/parameters/FlowControlKeyFilter'\n"
assert spec.count(reference) >= 2, "list and bulk delete both take the DlqFilter group"
spec = spec.replace(reference, reference + "        - $ref: '#/components/parameters/TraceIdFilter'\n")
open(path, "w").write(spec)
PY
# A target directory of its own: cargo hashes path packages relative to the workspace root, so
# in the main one the copy's xtask would pass for the tree's own (compiled-in paths and all).
export CARGO_TARGET_DIR=$root/target/spec-drill
cargo xtask codegen
errors=$(cargo check --workspace --all-targets --message-format short 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: error' || true)
echo "compile errors after adding a filter to the spec's DlqFilter group:"
echo "${errors:-  (none)}"
[ -n "$errors" ] || { echo "the compiler named no place: a new filter would be silently ignored" >&2; exit 1; }
outside=$(echo "$errors" | grep -v '^crates/service/src/store/' || true)
[ -z "$outside" ] || { echo "errors outside the store's filter mapping (these should have followed the spec):" >&2; echo "$outside" >&2; exit 1; }
echo "ok: only the store's filter mapping needs a human"
