# Sourced by bench/run.sh (its functions and variables in scope): the build cost of the crates,
# cold builds in fresh target directories, appended to the report. Skipped by the smoke run and
# with BENCH_SKIP_BUILD_COST=1.
if [ "$smoke" -eq 0 ] && [ "${BENCH_SKIP_BUILD_COST:-0}" != 1 ]; then
  log "part 4: build cost"
  models_target=/tmp/courier-bench-target-models
  client_target=/tmp/courier-bench-target-client
  hyperfine --runs "$runs" --export-json "$work/build.json" \
    --prepare "rm -rf $models_target $client_target" \
    -n courier-models "CARGO_TARGET_DIR=$models_target cargo build --quiet -p courier-models" \
    -n courier-client "CARGO_TARGET_DIR=$client_target cargo build --quiet -p courier-client" \
    >"$work/hyperfine-build.txt" 2>&1
  rm -rf "$models_target" "$client_target"
  # A new program using courier-client against one using reqwest (its default features, TLS
  # included) and serde_json alone: what a user pays for the crate over the HTTP stack it needs
  # anyway. Both are fresh crates outside the workspace, with its lock file.
  for crate in with-courier-client with-reqwest; do
    mkdir -p "$work/$crate/src"
    echo 'fn main() {}' >"$work/$crate/src/main.rs"
    cp Cargo.lock "$work/$crate/"
  done
  printf '[package]\nname = "with-courier-client"\nversion = "0.1.0"\nedition = "2024"\n[dependencies]\ncourier-client = { path = "%s/crates/client" }\n' "$root" >"$work/with-courier-client/Cargo.toml"
  printf '[package]\nname = "with-reqwest"\nversion = "0.1.0"\nedition = "2024"\n[dependencies]\nreqwest = { version = "0.13", features = ["json"] }\nserde_json = "1"\n' >"$work/with-reqwest/Cargo.toml"
  user_target=/tmp/courier-bench-target-user
  hyperfine --runs "$runs" --export-json "$work/user-build.json" --prepare "rm -rf $user_target" \
    -n with-courier-client "CARGO_TARGET_DIR=$user_target cargo build --quiet --manifest-path $work/with-courier-client/Cargo.toml" \
    -n with-reqwest "CARGO_TARGET_DIR=$user_target cargo build --quiet --manifest-path $work/with-reqwest/Cargo.toml" \
    >"$work/hyperfine-user-build.txt" 2>&1
  rm -rf "$user_target"
  user_client_s=$(jq '.results[] | select(.command=="with-courier-client") | .median' "$work/user-build.json")
  user_reqwest_s=$(jq '.results[] | select(.command=="with-reqwest") | .median' "$work/user-build.json")
  user_build_ratio=$(target_ratio "$user_client_s" "$user_reqwest_s")
  models_s=$(jq '.results[] | select(.command=="courier-models") | .median' "$work/build.json")
  client_s=$(jq '.results[] | select(.command=="courier-client") | .median' "$work/build.json")
  models_deps=$(cargo tree -p courier-models -e normal --prefix none | sort -u | wc -l)
  client_deps=$(cargo tree -p courier-client -e normal --prefix none | sort -u | wc -l)
  hyperfine --runs 5 --warmup 1 --export-json "$work/codegen.json" 'cargo xtask codegen --check' \
    >"$work/hyperfine-codegen.txt" 2>&1
  codegen_s=$(jq '.results[0].median' "$work/codegen.json")
  report
  report "## 4. Build cost"
  report
  report "Clean debug builds in fresh target directories under /tmp (the main one untouched), side by side:"
  report "\`hyperfine --runs $runs --prepare 'rm -rf $models_target $client_target' -n courier-models 'CARGO_TARGET_DIR=$models_target cargo build --quiet -p courier-models' -n courier-client 'CARGO_TARGET_DIR=$client_target cargo build --quiet -p courier-client'\`"
  report "(the registry's sources already downloaded)."
  report "Dependency count: \`cargo tree -p X -e normal --prefix none | sort -u | wc -l\` (the crate itself included)."
  report
  report "| crate | clean build (median) | dependencies |"
  report "|---|---|---|"
  report "| courier-models | $(printf '%.1f' "$models_s") s | $models_deps |"
  report "| courier-client | $(printf '%.1f' "$client_s") s | $client_deps |"
  report
  report "courier-models takes **$(awk -v a="$models_s" -v b="$client_s" 'BEGIN {printf "%.2f", a / b}')** of courier-client's build time (target ≤ 0.33)."
  report
  report "A new program depending on courier-client (TLS: rustls with ring) against one depending on reqwest"
  report "(default features: rustls with aws-lc-rs) and serde_json, each a fresh crate, cold:"
  report "\`hyperfine --runs $runs --prepare 'rm -rf $user_target' -n with-courier-client 'CARGO_TARGET_DIR=$user_target cargo build --quiet --manifest-path with-courier-client/Cargo.toml' -n with-reqwest '… with-reqwest/Cargo.toml'\`"
  report "(the manifests are written by this script). courier-client: **$(printf '%.1f' "$user_client_s") s**, reqwest + serde_json:"
  report "**$(printf '%.1f' "$user_reqwest_s") s**, ratio **$user_build_ratio** (target ≤ 1.5)."
  report
  report "\`hyperfine --runs 5 --warmup 1 'cargo xtask codegen --check'\` (xtask already built; generates every file"
  report "and compares, writing nothing): **$(printf '%.2f' "$codegen_s") s** median."
fi
