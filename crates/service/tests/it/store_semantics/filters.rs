//! Every filter alone and combined, for listing and for deleting.

use super::*;

/// 240 entries whose attributes cycle through small sets, so every filter value matches some
/// entries and most combinations match a few.
pub(crate) fn varied_entries() -> Vec<FailedWorkflowRun> {
    let urls = [
        "https://a.example/wf",
        "https://b.example/wf",
        "https://c.example/wf",
    ];
    let ips = ["192.0.2.1", "192.0.2.2", "2001:db8::1"];
    let keys = ["tenant-a", "tenant-b"];
    let states = [
        FailureFunctionState::CallbackInprogress,
        FailureFunctionState::CallbackSuccess,
        FailureFunctionState::CallbackFail,
        FailureFunctionState::CallbackCanceled,
    ];
    let labels = ["red", "green", "blue", "gold"];
    (0..240)
        .map(|i| {
            let mut e = entry(&format!("v{i:04}"), 10_000 + (i as i64) * 10, "");
            e.workflow_run_id = format!("wfr_{}", i % 40);
            e.workflow_created_at = 5_000 + (i % 6) as i64;
            e.workflow_url = urls[i % 3].into();
            e.caller_ip = (i % 5 != 0).then(|| ips[i % 3].into());
            e.flow_control_key = (i % 4 != 0).then(|| keys[i % 2].into());
            e.failure_callback_info = (i % 3 != 0).then(|| FailureCallbackInfo {
                response_body: None,
                response_headers: None,
                response_status: Some(500),
                state: states[(i / 3) % 4],
            });
            // Deprecated `label` only, `labels` only, both, or neither.
            match i % 4 {
                0 => e.label = Some(labels[i % 4].into()),
                1 => e.labels = vec![labels[i % 4].into(), labels[(i + 1) % 4].into()],
                2 => {
                    e.label = Some(labels[(i / 4) % 4].into());
                    e.labels = vec![labels[(i + 2) % 4].into()];
                }
                _ => {}
            }
            e
        })
        .collect()
}

/// The filter's meaning, written independently of the SQL.
fn matches(filter: &DlqFilter, e: &FailedWorkflowRun) -> bool {
    let any = |values: &[String], value: Option<&String>| {
        values.is_empty() || value.is_some_and(|v| values.contains(v))
    };
    filter.from_date.is_none_or(|from| e.created_at >= from)
        && filter.to_date.is_none_or(|to| e.created_at <= to)
        && any(&filter.workflow_url, Some(&e.workflow_url))
        && filter
            .workflow_run_id
            .as_ref()
            .is_none_or(|r| *r == e.workflow_run_id)
        && filter
            .workflow_created_at
            .is_none_or(|c| c == e.workflow_created_at)
        && (filter.label.is_empty()
            || e.labels
                .iter()
                .chain(&e.label)
                .any(|l| filter.label.contains(l)))
        && (filter.failure_function_state.is_empty()
            || e.failure_callback_info
                .as_ref()
                .is_some_and(|i| filter.failure_function_state.contains(&i.state)))
        && any(&filter.caller_ip, e.caller_ip.as_ref())
        && any(&filter.flow_control_key, e.flow_control_key.as_ref())
}

fn filters() -> Vec<(&'static str, DlqFilter)> {
    use FailureFunctionState::{
        CallbackCanceled, CallbackFail, CallbackInprogress, CallbackSuccess,
    };
    vec![
        ("none", DlqFilter::new()),
        // Both bounds are exact createdAt values: inclusive on both ends.
        (
            "date range",
            DlqFilter::new().from_date(10_500).to_date(11_000),
        ),
        ("from only", DlqFilter::new().from_date(12_300)),
        ("to only", DlqFilter::new().to_date(10_000)),
        (
            "one url",
            DlqFilter::new().workflow_url("https://b.example/wf"),
        ),
        (
            "two urls",
            DlqFilter::new().workflow_urls(["https://a.example/wf", "https://c.example/wf"]),
        ),
        ("run id", DlqFilter::new().workflow_run_id("wfr_7")),
        (
            "run created at",
            DlqFilter::new().workflow_created_at(5_003),
        ),
        ("one label", DlqFilter::new().label("red")),
        ("two labels", DlqFilter::new().labels(["green", "gold"])),
        ("unknown label", DlqFilter::new().label("mauve")),
        (
            "one state",
            DlqFilter::new().failure_function_state(CallbackFail),
        ),
        (
            "two states",
            DlqFilter::new().failure_function_states([CallbackSuccess, CallbackCanceled]),
        ),
        (
            "caller ips",
            DlqFilter::new().caller_ips(["192.0.2.1", "2001:db8::1"]),
        ),
        ("flow key", DlqFilter::new().flow_control_key("tenant-b")),
        (
            "everything at once",
            DlqFilter::new()
                .from_date(10_100)
                .to_date(12_200)
                .workflow_urls(["https://a.example/wf", "https://b.example/wf"])
                .labels(["red", "blue"])
                .failure_function_states([CallbackInprogress, CallbackFail, CallbackSuccess])
                .caller_ips(["192.0.2.1", "192.0.2.2"])
                .flow_control_keys(["tenant-a", "tenant-b"]),
        ),
        (
            "labels and run id",
            DlqFilter::new()
                .workflow_run_id("wfr_1")
                .labels(["red", "green"]),
        ),
        (
            "labels and date and key",
            DlqFilter::new()
                .from_date(10_400)
                .labels(["gold", "blue", "red"])
                .flow_control_key("tenant-a"),
        ),
        (
            "state and run created at",
            DlqFilter::new()
                .workflow_created_at(5_002)
                .failure_function_state(CallbackFail),
        ),
    ]
}

fn every_filter_alone_and_combined_matches_its_definition(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let entries = varied_entries();
    f.insert(&entries);
    for (name, filter) in filters() {
        let expected: Vec<String> = entries
            .iter()
            .filter(|e| matches(&filter, e))
            .map(|e| e.dlq_id.clone())
            .collect();
        if !name.starts_with("unknown") {
            assert!(
                !expected.is_empty(),
                "{name}: the fixture must match something"
            );
        }
        if name != "none" {
            assert!(
                expected.len() < entries.len(),
                "{name}: the filter must exclude"
            );
        }
        // One page, and small pages (which exercise the cursor on every filter path).
        let page = f
            .store
            .list_dlq(PageQuery::first(&filter, 1000))
            .expect("list");
        assert_eq!(ids(&page.entries), expected, "{name}");
        assert_eq!(
            list_all(f.store.as_ref(), &filter, 7, 0),
            expected,
            "{name}, pages of 7"
        );
    }
    // The inclusive bounds really are hit by the date filter.
    let range = f
        .store
        .list_dlq(PageQuery::first(
            &DlqFilter {
                from_date: Some(10_500),
                to_date: Some(11_000),
                ..DlqFilter::default()
            },
            1000,
        ))
        .expect("list");
    assert_eq!(range.entries.first().map(|e| e.created_at), Some(10_500));
    assert_eq!(range.entries.last().map(|e| e.created_at), Some(11_000));
}

fn delete_matching_deletes_exactly_what_the_filter_matches(backend: Backend) {
    // One store, emptied before each filter: the same as a fresh one for what is checked, and
    // a PostgreSQL schema costs a tenth of a second to make.
    let Some(f) = fixture(backend) else {
        return;
    };
    let entries = varied_entries();
    for (name, filter) in filters() {
        delete_in_batches(f.store.as_ref(), &DlqFilter::default(), 1000);
        assert!(list_all(f.store.as_ref(), &DlqFilter::default(), 1000, 0).is_empty());
        f.insert(&entries);
        let expected: BTreeSet<String> = entries
            .iter()
            .filter(|e| matches(&filter, e))
            .map(|e| e.dlq_id.clone())
            .collect();
        let batches = delete_in_batches(f.store.as_ref(), &filter, 9);
        let deleted: u64 = batches.iter().map(|(count, _)| count).sum();
        assert_eq!(deleted as usize, expected.len(), "{name}");
        let left: BTreeSet<String> = list_all(f.store.as_ref(), &DlqFilter::default(), 1000, 0)
            .into_iter()
            .collect();
        let all: BTreeSet<String> = ids(&entries).into_iter().collect();
        assert_eq!(left, all.difference(&expected).cloned().collect(), "{name}");
    }
}

on_both_stores!(
    every_filter_alone_and_combined_matches_its_definition,
    delete_matching_deletes_exactly_what_the_filter_matches,
);
