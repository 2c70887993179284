#!/usr/bin/env bash
# The drills of README "Changing the spec", each on a fresh copy of this tree: change the spec,
# regenerate, and check that the compiler names exactly the places a human must decide.
#
# 1. A multi-value filter added to the spec's shared `DlqFilter` group: the only compile errors
#    are in the store's filter mapping (crates/service/src/store/). Everything else (models
#    struct, client builders, server parsing, query-key tables, tests, fuzz targets) follows.
# 2. A plain parameter added to one operation (an optional `dryRun` on the bulk delete): the only
#    compile errors are in the service's handlers (crates/service/src/api/, a module per
#    interface), which destructure every generated request without `..`, so the new parameter
#    cannot be silently ignored.
#
# Exits non-zero when the compiler is silent (a parameter could be ignored, widening a bulk
# delete) or names any other place.
set -euo pipefail
cd "$(dirname "$0")/.."
# One copy, at one path, for every drill: cargo judges freshness by mtime, so files restored
# with their old mtimes would pass for fresh. Hence extraction with new mtimes (`tar -m`).
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
# The tree's own xtask generates into each copy (COURIER_XTASK_ROOT), so no copy builds one.
cargo build --quiet -p xtask
# The tree's target directory, then its members, from one `cargo metadata`.
mapfile -t metadata < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
metadata = json.load(sys.stdin)
print(metadata["target_directory"])
for package in metadata["packages"]:
    print(package["name"])')
target=${metadata[0]}
xtask=$target/debug/xtask
[ -x "$xtask" ] || { echo "spec-drill: no xtask at $xtask (cargo metadata failed?)" >&2; exit 1; }
# The copies are checked in the tree's target directory, so the dependencies checked there
# already (by clippy) are not checked again. Cargo keys path packages by their path relative
# to the workspace root, so a copy's packages would pass for the tree's own: every member gets a
# profile override that changes nothing in a check (codegen units), which keys them apart.
apart=()
for member in "${metadata[@]:1}"; do
  apart+=(--config "profile.dev.package.$member.codegen-units=255")
done

# drill NAME EXPECTED_PREFIX PYTHON_EDIT: copies the tree, applies the edit to the spec,
# regenerates, and checks that every compile error is under EXPECTED_PREFIX (and that there is one).
drill() {
  local name=$1 expected=$2 edit=$3
  find "$copy" -mindepth 1 -delete
  # The working tree as it is (committed or not), without build output.
  git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xmf - -C "$copy"
  (
    cd "$copy"
    python3 -c "$edit"
    COURIER_XTASK_ROOT=$copy "$xtask" codegen
    errors=$(CARGO_TARGET_DIR=$target cargo check "${apart[@]}" \
      --workspace --all-targets --message-format short 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: error' || true)
    echo "compile errors after $name:"
    echo "${errors:-  (none)}"
    [ -n "$errors" ] || { echo "the compiler named no place: the change would be silently ignored" >&2; exit 1; }
    outside=$(echo "$errors" | grep -v "^$expected" || true)
    [ -z "$outside" ] || { echo "errors outside $expected (these should have followed the spec):" >&2; echo "$outside" >&2; exit 1; }
    echo "ok: only $expected needs a human"
  )
}

drill "adding a filter to the spec's DlqFilter group" "crates/service/src/store/" '
path = "spec/openapi.yaml"
spec = open(path).read()
parameter = """    MethodFilter:
      name: method
      in: query
      x-courier-group: DlqFilter
      x-courier-matches:
        fields: [method]
        compare: equals
      required: false
      description: Filter by the HTTP method of the failed step (any of the values). Added by the spec drill.
      style: form
      explode: true
      schema:
        type: array
        items:
          $ref: "#/components/schemas/NonEmptyString"
"""
spec = spec.replace("  parameters:\n    Cursor:\n", "  parameters:\n" + parameter + "    Cursor:\n", 1)
# Every operation that takes the group takes it whole (list, bulk delete, and their aliases).
reference = "        - $ref: \x27#/components/parameters/FlowControlKeyFilter\x27\n"
assert spec.count(reference) >= 2, "list and bulk delete both take the DlqFilter group"
spec = spec.replace(reference, reference + "        - $ref: \x27#/components/parameters/MethodFilter\x27\n")
open(path, "w").write(spec)
'

drill "adding an optional dryRun to the bulk delete" "crates/service/src/api/" '
path = "spec/openapi.yaml"
spec = open(path).read()
start = spec.index("operationId: deleteWorkflowDlqBulk")
anchor = "      parameters:\n"
at = spec.index(anchor, start) + len(anchor)
parameter = """        - name: dryRun
          in: query
          required: false
          description: Count what would be deleted without deleting. Added by the spec drill.
          schema:
            type: boolean
"""
spec = spec[:at] + parameter + spec[at:]
open(path, "w").write(spec)
'
