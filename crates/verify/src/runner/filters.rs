//! The filter scenarios: for each filter of the list, a value taken from the entries listed
//! (one not every entry has, so an ignored filter shows); every entry listed with it must
//! match it, and the entry it was taken from must be listed.

use super::read::{Listing, MAX_PAGES, dlq_id, text, walk};
use super::{Scene, Verifier};
use crate::report::ScenarioResult;
use serde_json::Value;
use std::time::Instant;

/// The values an entry has for a filter.
type Values = fn(&Value) -> Vec<String>;

/// A filter of the list: its scenario, query parameter, the field it matches and how to read
/// an entry's values of it.
struct Filter {
    scenario: &'static str,
    param: &'static str,
    field: &'static str,
    values: Values,
}

const FILTERS: [Filter; 7] = [
    Filter {
        scenario: "filter-label",
        param: "label",
        field: "labels",
        values: |e| {
            let mut values: Vec<String> = e["labels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(text)
                .collect();
            values.extend(text(&e["label"]));
            values
        },
    },
    Filter {
        scenario: "filter-workflow-url",
        param: "workflowUrl",
        field: "workflowUrl",
        values: |e| text(&e["workflowUrl"]).into_iter().collect(),
    },
    Filter {
        scenario: "filter-workflow-run-id",
        param: "workflowRunId",
        field: "workflowRunId",
        values: |e| text(&e["workflowRunId"]).into_iter().collect(),
    },
    Filter {
        scenario: "filter-workflow-created-at",
        param: "workflowCreatedAt",
        field: "workflowCreatedAt",
        values: |e| text(&e["workflowCreatedAt"]).into_iter().collect(),
    },
    Filter {
        scenario: "filter-failure-function-state",
        param: "failureFunctionState",
        field: "failureFunctionState",
        values: |e| {
            text(&e["failureFunctionState"])
                .or_else(|| text(&e["failureCallbackInfo"]["state"]))
                .into_iter()
                .collect()
        },
    },
    Filter {
        scenario: "filter-caller-ip",
        param: "callerIp",
        field: "callerIP",
        values: |e| text(&e["callerIP"]).into_iter().collect(),
    },
    Filter {
        scenario: "filter-flow-control-key",
        param: "flowControlKey",
        field: "flowControlKey",
        values: |e| text(&e["flowControlKey"]).into_iter().collect(),
    },
];

/// A value of the filter present in the listing, preferring one not every entry has (so a
/// filter that is ignored shows), with the entry it came from.
fn pick(listing: &Listing, values: Values) -> Option<(String, String)> {
    let mut best: Option<(usize, String, String)> = None;
    for listed in &listing.entries {
        for value in values(&listed.entry) {
            let count = listing
                .entries
                .iter()
                .filter(|l| values(&l.entry).contains(&value))
                .count();
            if best.as_ref().is_none_or(|(c, _, _)| count < *c) {
                best = Some((count, value, dlq_id(&listed.entry)));
            }
        }
    }
    best.map(|(_, value, id)| (value, id))
}

async fn check_filter(scene: &mut Scene<'_>, listing: &Listing, filter: &Filter) {
    let Some((value, source)) = pick(listing, filter.values) else {
        scene.skip(format!("no listed entry has `{}`", filter.field));
        return;
    };
    let (entries, pages, complete) =
        walk(scene, &[(filter.param, value.clone())], 100, MAX_PAGES).await;
    for (entry, place) in &entries {
        if !(filter.values)(entry).contains(&value) {
            let page = &pages[place / 1000];
            scene.violate(
                page,
                format!("/messages/{}/{}", place % 1000, filter.field),
                "filter",
                &entry[filter.field],
                format!("listed with {}={value} but does not match it", filter.param),
            );
        }
    }
    let found = entries.iter().any(|(entry, _)| dlq_id(entry) == source);
    if complete
        && !found
        && let Some(page) = pages.last()
    {
        scene.violate(
            page,
            "/messages",
            "filter",
            &Value::String(source.clone()),
            format!(
                "entry `{source}` has {}={value} but is not listed with that filter",
                filter.param
            ),
        );
    }
}

/// `fromDate` and `toDate` both set to a listed entry's `createdAt`: every entry listed has
/// exactly that `createdAt` (both bounds are inclusive), and that entry is listed.
async fn check_date_range(scene: &mut Scene<'_>, listing: &Listing) {
    let Some(source) = listing
        .entries
        .iter()
        .find(|listed| listed.entry["createdAt"].is_i64())
    else {
        scene.skip("no listed entry has `createdAt`");
        return;
    };
    let created = source.entry["createdAt"].clone();
    let query = [
        ("fromDate", created.to_string()),
        ("toDate", created.to_string()),
    ];
    let (entries, pages, complete) = walk(scene, &query, 100, MAX_PAGES).await;
    for (entry, place) in &entries {
        if entry["createdAt"] != created {
            scene.violate(
                &pages[place / 1000],
                format!("/messages/{}/createdAt", place % 1000),
                "filter",
                &entry["createdAt"],
                format!("listed with fromDate={created}&toDate={created} (inclusive)"),
            );
        }
    }
    let id = dlq_id(&source.entry);
    let found = entries.iter().any(|(entry, _)| dlq_id(entry) == id);
    if complete
        && !found
        && let Some(page) = pages.last()
    {
        scene.violate(
            page,
            "/messages",
            "filter",
            &Value::String(id.clone()),
            format!("entry `{id}` was created at {created} but is not listed in that range (both bounds are inclusive)"),
        );
    }
}

/// Runs the scenario of every filter.
pub(crate) async fn run(verifier: &Verifier, results: &mut Vec<ScenarioResult>, listing: &Listing) {
    for filter in &FILTERS {
        run_filter(verifier, results, listing, filter).await;
    }
    let started = Instant::now();
    let mut scene = Scene::new(&verifier.caller);
    check_date_range(&mut scene, listing).await;
    let result = scene.finish(
        "filter-date-range",
        "an inclusive createdAt range lists exactly the entries created in it",
        false,
        started,
    );
    if let Some(progress) = &verifier.progress {
        progress(&result);
    }
    results.push(result);
}

async fn run_filter(
    verifier: &Verifier,
    results: &mut Vec<ScenarioResult>,
    listing: &Listing,
    filter: &Filter,
) {
    let started = Instant::now();
    let mut scene = Scene::new(&verifier.caller);
    check_filter(&mut scene, listing, filter).await;
    let result = scene.finish(
        filter.scenario,
        "every entry listed with the filter matches it, and a matching entry is listed",
        false,
        started,
    );
    if let Some(progress) = &verifier.progress {
        progress(&result);
    }
    results.push(result);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Contract;

    #[test]
    fn every_filter_of_the_spec_has_a_scenario() {
        let list = Contract::courier().operation("listWorkflowDlq").unwrap();
        let mut covered: Vec<&str> = FILTERS.iter().map(|filter| filter.param).collect();
        covered.extend(["fromDate", "toDate"]);
        for parameter in &list.parameters {
            if parameter.group.as_deref() == Some("DlqFilter") {
                assert!(
                    covered.contains(&parameter.name.as_str()),
                    "the list's filter `{}` has no scenario in FILTERS",
                    parameter.name
                );
            }
        }
        assert!(
            list.parameters
                .iter()
                .any(|p| p.name == "label" && p.location == "query")
        );
    }
}
