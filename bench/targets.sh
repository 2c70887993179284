# Sourced by bench/run.sh after every part has run: the table of the performance targets, each
# verdict computed from the very figure its row shows, written to $work/targets.md.

# The performance targets, from the figures above (all of this run except the soak's, which
# bench/soak.sh measures for 10 minutes on its own and writes to bench/results/soak.md), each
# ratio with target_ratio's three decimals (bench/lib.sh).
list_ratio=$(target_ratio "$(med "$work/p1-courier-1" 1)" "$(awk '{print $2}' "$work/p1-best-1")")
filters_ratio=$(target_ratio "$(med "$work/p1-courier-2" 1)" "$(med "$work/p1-courier-1" 1)")
prism_ratio="– (no Prism in the smoke)"
[ "$smoke" -eq 0 ] && prism_ratio="$(ratio "$(med "$work/p1-courier-0" 1)" "$(med "$work/p1-prism-0" 1)")×"
soak_growth="– (no bench/results/soak.md)"
soak_verdict=""
if [ -f bench/results/soak.md ]; then
  # Column 9 is the RSS, column 10 its anonymous part (heap and stacks; the rest is pages of
  # the database file that readers map).
  growth() { awk -F'|' -v c="$1" '$2+0 == 2 {m2 = $c + 0} $2+0 >= 1 {last = $c + 0} END {if (m2) printf "%+.1f%%", (last - m2) * 100 / m2}' bench/results/soak.md; }
  # Judged on the anonymous part, where a leak shows; the file-backed part rises and falls
  # with the database's pages in the page cache.
  soak_growth="anonymous $(growth 10) (RSS $(growth 9))"
  soak_verdict=$(awk -v g="$(growth 10)" 'BEGIN {print (g + 0 <= 2) ? "met" : "**not met**"}')
  soak_growth="$soak_growth (bench/results/soak.md, $(sed -n 's/.*(\([0-9-]*\),.*/\1/p' bench/results/soak.md | head -1))"
fi
delete_ratio=$(printf '%.3f' "$delete_over_read")
meets() { awk -v v="$1" -v t="$2" 'BEGIN {print (v + 0 >= t) ? "met" : "**not met**"}'; }
# both_meet A B T: met when A and B are each at least T.
both_meet() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {print (a + 0 >= t && b + 0 >= t) ? "met" : "**not met**"}'; }
# every_at_most T V...: met when every V is at most T.
every_at_most() { local t=$1; shift; awk -v t="$t" -v vs="$*" 'BEGIN {n = split(vs, v, " "); ok = n > 0; for (i = 1; i <= n; i++) if (v[i] + 0 > t) ok = 0; print ok ? "met" : "**not met**"}'; }
# at_most V1 T1 [V2 T2]: met when every value is at most its threshold.
at_most() { awk -v a="$1" -v s="$2" -v b="${3:-0}" -v t="${4:-0}" 'BEGIN {print (a + 0 <= s && b + 0 <= t) ? "met" : "**not met**"}'; }
{
  echo
  echo "## Targets (this run)"
  echo
  echo "| figure | measured | target | |"
  echo "|---|---|---|---|"
  echo "| \`TestService::start()\` to a served request, p50 / p99 | $(ms "$start_p50") / $(ms "$start_p99") ms | ≤ 1 / ≤ 5 ms | $(at_most "$start_p50" 1000 "$start_p99" 5000) |"
  echo "| $suite_tests contract tests, a fresh \`TestService\` each ÷ one shared | $suite_ratio | ≤ 1.5 | $(at_most "$suite_ratio" 1.5) |"
  echo "| \`courier serve\` on an empty data directory to its first answer, p50 | $(ms "$serve_p50") ms | ≤ 3 ms | $(at_most "$serve_p50" 3000) |"
  echo "| get-one req/s ÷ the fastest limit serving the same bodies, $mid / $largest entries (always read from the store) | $get_ratio / $big_get_ratio | ≥ 0.5 | $(both_meet "$get_ratio" "$big_get_ratio" 0.5) |"
  echo "| list (count=100) req/s read from the store for every request ÷ the fastest limit serving the same page, $mid / $largest entries | $unkept_ratio / $big_list_ratio | ≥ 0.3 | $(both_meet "$unkept_ratio" "$big_list_ratio" 0.3) |"
  echo "| list with two filters ÷ unfiltered list, req/s, both read from the store, $mid / $largest entries | $mid_filters_read / $big_filters_read | ≥ 0.9 | $(both_meet "$mid_filters_read" "$big_filters_read" 0.9) |"
  echo "| one request at a time, courier p50 ÷ the in-memory limit's p50: get-one / list of 100 from the store / delete / bulk delete of 10 | ${lat_ratio[get-one]} / ${lat_ratio[list-100]} / ${lat_ratio[delete]} / ${lat_ratio[bulk-delete-10]} | ≤ 2 each | $(every_at_most 2 "${lat_ratio[get-one]}" "${lat_ratio[list-100]}" "${lat_ratio[delete]}" "${lat_ratio[bulk-delete-10]}") |"
  echo "| a cache, what an unchanged page costs: list (count=100) answered from a kept page (the same page asked again with nothing written) ÷ the fastest limit, entries of ~1 KB / lean entries of ~0.5 KB | $list_ratio / $lean_ratio | – | reported |"
  echo "| a cache: list with two filters ÷ unfiltered, both from kept pages ($mid entries) | $filters_ratio | – | reported |"
  echo "| \`dlq_stream\` over $stream_entries entries, entries/s ÷ reqwest + serde_json over the same pages | $stream_ratio | ≥ 0.9 | $(meets "$stream_ratio" 0.9) |"
  echo "| cold build of a new crate using courier-client ÷ one using reqwest + serde_json | ${user_build_ratio:-– (build cost skipped)} | ≤ 1.5 | $([ -n "${user_build_ratio:-}" ] && at_most "$user_build_ratio" 1.5) |"
  echo "| courier-client's validation: validating and decoding a 100-entry page ÷ decoding alone | $validation_cpu_ratio | ≤ 1.10 | $(at_most "$validation_cpu_ratio" 1.10) |"
  echo "| bulk delete of every 10th of $largest entries, entries/s ÷ reading them page by page | $delete_ratio | ≥ 2 | $(meets "$delete_ratio" 2) |"
  echo "| memory growth over the 10-minute soak after minute 2, judged on anonymous memory | $soak_growth | ≤ +2% | $soak_verdict |"
  echo "| courier ÷ Prism, get-one | $prism_ratio | ≥ 30× | $([ "$smoke" -eq 0 ] && meets "${prism_ratio%×}" 30) |"
} >"$work/targets.md"
