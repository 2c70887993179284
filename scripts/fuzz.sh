#!/usr/bin/env bash
# Runs every cargo-fuzz target from its committed seeds (fuzz/seeds/<target>/) for a bounded time
# and fails on any crash, timeout or out-of-memory, printing the reproducer. CI runs it with
# --seconds 60; `--seconds 3600 --record` is the documented longer run, whose figures it writes
# to fuzz/RESULTS.md. See fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

# What this run was asked, for the figures it records.
invocation="bash scripts/fuzz.sh $*"
seconds=60
record=""
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --record) record=1; shift ;;
    --target) only="$only $2"; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--record] [--target NAME]..." >&2; exit 2 ;;
  esac
done

# A debug build of the tool itself: it only starts cargo and libFuzzer, and builds in 33 s here
# instead of 55.
command -v cargo-fuzz >/dev/null \
  || cargo install --quiet --locked --debug cargo-fuzz --version '^0.13'
# The sanitizer and coverage flags cargo-fuzz passes are unstable options; the machine's one
# (stable) toolchain accepts them with this, so no nightly toolchain is needed.
export RUSTC_BOOTSTRAP=1

targets=${only:-$(cargo fuzz list)}
for target in $targets; do
  if ! compgen -G "seeds/$target/*" >/dev/null; then
    echo "fuzz: target $target has no seeds in fuzz/seeds/$target/: commit a few real inputs" >&2
    exit 1
  fi
done

echo "fuzz: building every target (address sanitizer, debug assertions)"
cargo fuzz build --debug-assertions

results=$(mktemp)
failures=$(mktemp)
# Runs one target for its time and appends its figures to $results (and its name to $failures
# when it failed).
run_target() {
  local target=$1 corpus log started verdict artifact executions coverage units
  corpus=$(mktemp -d)
  cp "seeds/$target"/* "$corpus/"
  log=$(mktemp)
  mkdir -p "artifacts/$target"
  started=$SECONDS
  # -timeout: one input may take 10 s at most (a hang is a failure); -rss_limit_mb: memory.
  if cargo fuzz run --debug-assertions "$target" "$corpus" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      >"$log" 2>&1; then
    verdict=ok
  else
    verdict=FAILED
    echo "$target" >> "$failures"
    echo "=== fuzz target $target FAILED; what broke:" >&2
    grep -E -A 4 "panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer|out-of-memory|timeout after" "$log" \
      | head -n 40 >&2 || true
    echo "=== the end of its output:" >&2
    tail -n 30 "$log" >&2
    artifact=$(ls -t "artifacts/$target"/* 2>/dev/null | head -n 1 || true)
    if [ -n "$artifact" ]; then
      echo "=== reproducer: fuzz/$artifact (base64 below); replay with:" >&2
      echo "    cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --debug-assertions $target $artifact" >&2
      base64 -w 76 "$artifact" >&2
    fi
  fi
  executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
  coverage=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
  units=$(ls "$corpus" | wc -l)
  printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "$target" "$(date -u +%Y-%m-%d)" \
    "$((SECONDS - started))" "${executions:-?}" "${coverage:-?}" "$units" "$verdict" \
    | tee -a "$results"
  rm -rf "$corpus" "$log"
}

# As many targets at once as there are cores (each keeps its own wall-clock time), so on two
# cores CI's fuzzing takes half the time it would one target after another; the figures are
# sorted by target.
parallel=${FUZZ_PARALLEL:-$(nproc)}
for target in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  run_target "$target" &
done
wait
sort -o "$results" "$results"
mapfile -t failed < "$failures"
rm -f "$failures"

if [ -n "$record" ]; then
  # Each row is its target's latest recorded run: the rows of targets this run left out are kept,
  # so the hour-long run can be done a few targets at a time.
  kept=$(mktemp)
  if [ -f RESULTS.md ]; then
    grep -E '^\| `[a-z_]+` \|' RESULTS.md | while IFS= read -r row; do
      name=$(echo "$row" | cut -d'`' -f2)
      grep -q "^| \`$name\` |" "$results" || echo "$row"
    done > "$kept"
  fi
  {
    echo "# Fuzzing figures"
    echo
    echo "Each row is the latest run of its target recorded by \`scripts/fuzz.sh --record\`, from its"
    echo "committed seeds (fuzz/seeds/), address sanitizer and debug assertions on. The run that wrote"
    echo "this file last was \`$invocation\` on $(date -u +%Y-%m-%d): $(wc -w <<< "$targets") target(s),"
    echo "$parallel at a time on $(nproc) cores, $(rustc --version | cut -d' ' -f1-2) with RUSTC_BOOTSTRAP=1,"
    echo "optimisation level ${CARGO_PROFILE_RELEASE_OPT_LEVEL:-3}. The rows of other targets are kept from"
    echo "earlier runs (this file's history says how each ran)."
    echo
    echo "| target | run on | seconds | executions | coverage (libFuzzer cov / ft) | corpus at the end | result |"
    echo "|---|---|---|---|---|---|---|"
    sort "$results" "$kept"
  } > RESULTS.md
  rm -f "$kept"
  echo "fuzz: figures written to fuzz/RESULTS.md"
fi
rm -f "$results"

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a crash, timeout or out-of-memory"
