//! The filter scenarios, made from the spec's filter facts (`x-courier-matches`): for each
//! filter, values some known entries have and others do not; every entry listed with it must
//! match, and every known entry that matches must be listed. Then several values at once (OR),
//! the comma form, the compatible spellings, two filters together (AND) and a date range.

use super::catalogue::{alias_scenario, any_of_scenario, comma_scenario, filter_scenario};
use super::listing::{Known, LIST, MAX_PAGES, dlq_id, walk};
use super::{Run, Scene, scenario};
use crate::contract::{Contract, MatchFact};
use serde_json::Value;
use std::collections::BTreeSet;

/// The values known entries have for a filter, each with how many entries have it, most
/// shared first, then by value (so a run is repeatable).
fn values(known: &Known, facts: &MatchFact) -> Vec<(String, usize)> {
    let mut all: Vec<String> = Vec::new();
    for entry in &known.entries {
        let mut of_entry = facts.entry_values(entry);
        of_entry.sort();
        of_entry.dedup();
        all.extend(of_entry);
    }
    let distinct: BTreeSet<&String> = all.iter().collect();
    let mut counted: Vec<(String, usize)> = distinct
        .into_iter()
        .map(|value| (value.clone(), all.iter().filter(|v| *v == value).count()))
        .collect();
    counted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counted
}

/// A value that some known entries have and others do not (when there are such), else any.
fn telling_value(known: &Known, facts: &MatchFact) -> Option<String> {
    let total = known.entries.len();
    let counted = values(known, facts);
    counted
        .iter()
        .find(|(_, count)| *count < total)
        .or(counted.first())
        .map(|(value, _)| value.clone())
}

/// For a bound (`at-least`, `at-most`): a known entry's value in the middle, so that some
/// entries are inside and some outside.
fn middle_value(known: &Known, facts: &MatchFact) -> Option<String> {
    let mut numbers: Vec<i64> = known
        .entries
        .iter()
        .flat_map(|e| facts.entry_values(e))
        .filter_map(|v| v.parse().ok())
        .collect();
    numbers.sort_unstable();
    numbers.get(numbers.len() / 2).map(i64::to_string)
}

/// Lists with `query` and checks the answer against `matches`: every entry listed matches,
/// and every known entry that matches is listed (when the walk reached the end).
async fn check_listed(
    scene: &mut Scene<'_>,
    known: &Known,
    query: &[(&str, String)],
    what: &str,
    matches: &(dyn Fn(&Value) -> bool + Sync),
) {
    let listed = walk(scene, query, 100, MAX_PAGES).await;
    for index in 0..listed.entries.len() {
        let entry = listed.entries[index].0.clone();
        if !matches(&entry) {
            let (page, pointer) = listed.place(index);
            scene.violate(
                page,
                pointer,
                "filter",
                &Value::String(dlq_id(&entry)),
                format!("listed with {what}, which this entry does not match"),
            );
        }
    }
    let shown: BTreeSet<String> = listed.ids().into_iter().collect();
    let Some(last) = listed.last() else { return };
    if !listed.complete {
        if let Some(why) = &listed.stopped_short {
            scene.inconclusive(format!(
                "{why}: not every entry matching {what} could be looked for"
            ));
        }
        return;
    }
    for entry in &known.entries {
        let id = dlq_id(entry);
        if matches(entry) && !shown.contains(&id) {
            scene.violate(
                last,
                "/messages",
                "filter",
                &Value::String(id.clone()),
                format!("`{id}` matches {what} but is not listed with it"),
            );
        }
    }
}

fn query_text(query: &[(&str, String)]) -> String {
    query
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

async fn one_filter(scene: &mut Scene<'_>, known: &Known, param: &str, facts: &MatchFact) {
    if known.entries.is_empty() {
        known.no_data(scene);
        return;
    }
    let value = match facts.compare.as_str() {
        "equals" => telling_value(known, facts),
        _ => middle_value(known, facts),
    };
    let Some(value) = value else {
        scene.inconclusive(format!(
            "no known entry has `{}`",
            facts.fields.join("` or `")
        ));
        return;
    };
    let query = vec![(param, value.clone())];
    let values = [value];
    let what = query_text(&query);
    check_listed(scene, known, &query, &what, &|e| facts.matches(e, &values)).await;
}

/// Two values of a multi-valued filter, each had by an entry the other is not (so a filter
/// that reads only the first value shows).
fn two_values(known: &Known, facts: &MatchFact, comma_form: bool) -> Option<(String, String)> {
    let mut counted = values(known, facts);
    if comma_form {
        // A value with a comma of its own has no spelling in the comma form.
        counted.retain(|(value, _)| !value.contains(','));
    }
    for (a, _) in &counted {
        for (b, _) in &counted {
            if a >= b {
                continue;
            }
            let both = |v: &String| {
                known
                    .entries
                    .iter()
                    .filter(|e| facts.matches(e, std::slice::from_ref(v)))
                    .map(dlq_id)
                    .collect::<BTreeSet<_>>()
            };
            let (with_a, with_b) = (both(a), both(b));
            if !with_a.is_subset(&with_b) && !with_b.is_subset(&with_a) {
                return Some((a.clone(), b.clone()));
            }
        }
    }
    None
}

async fn any_of(scene: &mut Scene<'_>, known: &Known, param: &str, facts: &MatchFact, comma: bool) {
    if known.entries.is_empty() {
        known.no_data(scene);
        return;
    }
    let Some((a, b)) = two_values(known, facts, comma) else {
        scene.inconclusive(format!(
            "no two values of `{param}` that different known entries have"
        ));
        return;
    };
    let query = if comma {
        let comma = super::http::LITERAL_COMMA;
        vec![(param, format!("{a}{comma}{b}"))]
    } else {
        vec![(param, a.clone()), (param, b.clone())]
    };
    let values = [a, b];
    let what = query_text(&query).replace(super::http::LITERAL_COMMA, ",");
    check_listed(scene, known, &query, &what, &|e| facts.matches(e, &values)).await;
}

async fn alias(scene: &mut Scene<'_>, known: &Known, alias: &str, facts: &MatchFact) {
    if known.entries.is_empty() {
        known.no_data(scene);
        return;
    }
    let Some(value) = telling_value(known, facts) else {
        scene.inconclusive(format!(
            "no known entry has `{}`",
            facts.fields.join("` or `")
        ));
        return;
    };
    let query = vec![(alias, value.clone())];
    let values = [value];
    let what = query_text(&query);
    check_listed(scene, known, &query, &what, &|e| facts.matches(e, &values)).await;
}

/// Two filters with values whose matches overlap without one holding the other.
async fn and(scene: &mut Scene<'_>, known: &Known, contract: &Contract) {
    if known.entries.is_empty() {
        known.no_data(scene);
        return;
    }
    let Some(list) = contract.operation(LIST) else {
        return;
    };
    let filters: Vec<_> = list
        .filters()
        .filter(|(_, f)| f.compare == "equals")
        .collect();
    let matching = |facts: &MatchFact, value: &String| -> BTreeSet<String> {
        known
            .entries
            .iter()
            .filter(|e| facts.matches(e, std::slice::from_ref(value)))
            .map(dlq_id)
            .collect()
    };
    for (i, (p1, f1)) in filters.iter().enumerate() {
        for (p2, f2) in filters.iter().skip(i + 1) {
            for (v1, _) in values(known, f1) {
                for (v2, _) in values(known, f2) {
                    let (m1, m2) = (matching(f1, &v1), matching(f2, &v2));
                    let both = m1.intersection(&m2).count();
                    if both > 0 && both < m1.len() && both < m2.len() {
                        let query = vec![
                            (p1.name.as_str(), v1.clone()),
                            (p2.name.as_str(), v2.clone()),
                        ];
                        let what = query_text(&query);
                        let (a, b) = ([v1], [v2]);
                        check_listed(scene, known, &query, &what, &|e| {
                            f1.matches(e, &a) && f2.matches(e, &b)
                        })
                        .await;
                        return;
                    }
                }
            }
        }
    }
    scene.inconclusive("no two filters whose known matches overlap in part");
}

/// `fromDate` and `toDate` together around a known entry's creation: both bounds inclusive.
async fn date_range(scene: &mut Scene<'_>, known: &Known, contract: &Contract) {
    if known.entries.is_empty() {
        known.no_data(scene);
        return;
    }
    let Some(list) = contract.operation(LIST) else {
        return;
    };
    let from = list.filters().find(|(_, f)| f.compare == "at-least");
    let to = list.filters().find(|(_, f)| f.compare == "at-most");
    let (Some((from, from_facts)), Some((to, to_facts))) = (from, to) else {
        return;
    };
    let Some(middle) = middle_value(known, from_facts) else {
        scene.inconclusive("no known entry has a creation time");
        return;
    };
    let query = vec![
        (from.name.as_str(), middle.clone()),
        (to.name.as_str(), middle.clone()),
    ];
    let what = query_text(&query);
    let bound = [middle];
    check_listed(scene, known, &query, &what, &|e| {
        from_facts.matches(e, &bound) && to_facts.matches(e, &bound)
    })
    .await;
}

/// Runs the scenario of every filter of the list.
pub(crate) async fn run(run: &mut Run<'_>, known: &Known) {
    let contract = Contract::courier();
    let Some(list) = contract.operation(LIST) else {
        return;
    };
    for (param, facts) in list.filters() {
        let name = param.name.as_str();
        scenario!(run, filter_scenario(name), |scene| one_filter(
            &mut scene, known, name, facts
        ));
        if param.multi_valued {
            scenario!(run, any_of_scenario(name), |scene| any_of(
                &mut scene, known, name, facts, false
            ));
            scenario!(run, comma_scenario(name), |scene| any_of(
                &mut scene, known, name, facts, true
            ));
        }
    }
    for param in &list.parameters {
        let Some(of) = &param.alias_of else { continue };
        let Some(facts) = list.parameter(of).and_then(|p| p.matches.as_ref()) else {
            continue;
        };
        scenario!(run, alias_scenario(&param.name), |scene| alias(
            &mut scene,
            known,
            &param.name,
            facts
        ));
    }
    scenario!(run, "filter-and", |scene| and(&mut scene, known, contract));
    scenario!(run, "filter-date-range", |scene| date_range(
        &mut scene, known, contract
    ));
}
