# Sourced by the benchmark scripts (bench/run.sh, bench/postgres.sh): building what they measure,
# stopping processes, the log line, and wrk runs with their medians. The caller sets $work (a
# scratch directory) and $auth (the Authorization header wrk sends).

# Stops the process whose id the variable named $1 holds (courier or nginx), if any, and empties
# the variable so that a later stop or the cleanup does not signal a reused id.
stop() {
  local pid=${!1}
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  printf -v "$1" '%s' ""
}

# Builds the benchmarks' binaries and the `courier` they measure, for profile $1 (release or
# debug), in two builds: built in one, cargo would unify the two packages' features, and the
# measured `courier` would carry courier-bench's (aws-lc-rs and its start-up, the testing hooks)
# instead of being the binary `cargo install courier-cli` gives its users.
build_binaries() {
  local flag=
  [ "$1" = release ] && flag=--release
  cargo build --quiet $flag -p courier-bench
  cargo build --quiet $flag -p courier-cli
}

log() { printf '[bench %4ss] %s\n' "$SECONDS" "$*" >&2; }

# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# target_ratio A B: A / B with the three decimals a target is judged on (0.798 must not pass
# as 0.80).
target_ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

# to_ms VALUE: a wrk latency (850.00us, 1.23ms, 1.02s) in milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v }
    else if (v ~ /m$/) { sub(/m$/, "", v); printf "%.3f", v * 60000 }
    else { sub(/s$/, "", v); printf "%.3f", v * 1000 } }'
}

# wrk_once URL_BASE PATH SECONDS [LUA]: one wrk run; prints "rps p50_ms p99_ms non2xx".
wrk_once() {
  local target=$1 path=$2 duration=$3 script=${4:-}
  local args=(-t2 -c16 "-d${duration}s" --latency -H "$auth")
  [ -n "$script" ] && args+=(-s "$script")
  wrk "${args[@]}" "$target$path" >"$work/wrk.txt" 2>&1 || { cat "$work/wrk.txt" >&2; exit 1; }
  local rps p50 p99 bad
  rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.txt")
  p50=$(to_ms "$(awk '$1=="50%" {print $2}' "$work/wrk.txt")")
  p99=$(to_ms "$(awk '$1=="99%" {print $2}' "$work/wrk.txt")")
  bad=$(awk '/Non-2xx or 3xx responses/ {print $5}' "$work/wrk.txt")
  echo "$rps $p50 $p99 ${bad:-0}"
}

# median: the median of the numbers on stdin.
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# column N of the lines in FILE, median.
med() { awk -v c="$2" '{print $c}' "$1" | median; }
