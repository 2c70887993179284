# Sourced by bench/run.sh (its functions and variables in scope): what a user of the crates
# pays at run time beside the service, courier-client's opt-in validation on a 100-entry page,
# appended to the report.
# What courier-client's opt-in validation costs: the CPU of validating and decoding a 100-entry
# page (one checking pass, as the client does it) against decoding it alone, the full validator
# that writes the report of a broken answer, and whole list requests through the client,
# validation off and on, interleaved (courier-validation-cost), against the mid-sized store.
log "part 3: the client's validation"
: >"$work/validation"
validation_rounds=(--rounds 15 --per-round 200)
[ "$smoke" -eq 1 ] && validation_rounds=(--rounds 3 --per-round 8)
start_server "$work/d$mid"
for _ in $(seq 1 "$runs"); do
  "$validation_cost" --base-url "$base" --token "$token" "${validation_rounds[@]}" >>"$work/validation"
done
stop server
page_bytes=$(med "$work/validation" 1)
decode_us=$(med "$work/validation" 2); tree_us=$(med "$work/validation" 3)
validated_us=$(med "$work/validation" 4)
request_us=$(med "$work/validation" 5); validated_request_us=$(med "$work/validation" 6)
full_validated_us=$(med "$work/validation" 7)
# Three decimals, as every figure the targets table judges: it is judged on what it shows.
validation_cpu_ratio=$(target_ratio "$validated_us" "$decode_us")
validation_request_ratio=$(awk -v a="$validated_request_us" -v b="$request_us" 'BEGIN {printf "%.2f", a / b}')
report
report "courier-client's validation (feature \`validate\`, \`validate_responses(true)\`) on a page of 100"
report "entries ($page_bytes bytes) from the $mid-entry store:"
report "\`$validation_cost --base-url $base --token $token ${validation_rounds[*]}\` (the median round of each run, medians of $runs runs)."
report
report "| per page | µs | ÷ decoding alone |"
report "|---|---|---|"
report "| decoding alone (\`serde_json::from_slice::<WorkflowDlqPage>\`) | $decode_us | 1.00 |"
report "| parsing the JSON tree alone (\`serde_json::Value\`, what any schema validator walks) | $tree_us | $(ratio "$tree_us" "$decode_us") |"
report "| validating and decoding (\`Validator::decode\`: one checking pass, what the client does) | $validated_us | **$validation_cpu_ratio** |"
report "| the full validator, then decoding (what an answer that breaks the contract costs, for its report) | $full_validated_us | $(ratio "$full_validated_us" "$decode_us") |"
report "| a whole list request through courier-client | $request_us | 1.00 |"
report "| the same request, validating | $validated_request_us | **$validation_request_ratio** |"
report
if awk -v r="$validation_cpu_ratio" 'BEGIN {exit !(r <= 1.10)}'; then
  report "The target of at most 1.10 is met: the body is checked as the typed model reads it, in the one pass"
  report "that decodes it, and the full validator runs only for an answer the pass flags, to write its report."
else
  report "The target of at most 1.10 is **not met**: no JSON tree is built any more; what remains is the checking"
  report "pass's own work (finding each member's schema, the proxies around the typed visitors)."
fi
