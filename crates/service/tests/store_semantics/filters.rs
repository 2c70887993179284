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
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let none = DlqFilter::default();
    vec![
        ("none", none.clone()),
        // Both bounds are exact createdAt values: inclusive on both ends.
        (
            "date range",
            DlqFilter {
                from_date: Some(10_500),
                to_date: Some(11_000),
                ..none.clone()
            },
        ),
        (
            "from only",
            DlqFilter {
                from_date: Some(12_300),
                ..none.clone()
            },
        ),
        (
            "to only",
            DlqFilter {
                to_date: Some(10_000),
                ..none.clone()
            },
        ),
        (
            "one url",
            DlqFilter {
                workflow_url: s(&["https://b.example/wf"]),
                ..none.clone()
            },
        ),
        (
            "two urls",
            DlqFilter {
                workflow_url: s(&["https://a.example/wf", "https://c.example/wf"]),
                ..none.clone()
            },
        ),
        (
            "run id",
            DlqFilter {
                workflow_run_id: Some("wfr_7".into()),
                ..none.clone()
            },
        ),
        (
            "run created at",
            DlqFilter {
                workflow_created_at: Some(5_003),
                ..none.clone()
            },
        ),
        (
            "one label",
            DlqFilter {
                label: s(&["red"]),
                ..none.clone()
            },
        ),
        (
            "two labels",
            DlqFilter {
                label: s(&["green", "gold"]),
                ..none.clone()
            },
        ),
        (
            "unknown label",
            DlqFilter {
                label: s(&["mauve"]),
                ..none.clone()
            },
        ),
        (
            "one state",
            DlqFilter {
                failure_function_state: vec![FailureFunctionState::CallbackFail],
                ..none.clone()
            },
        ),
        (
            "two states",
            DlqFilter {
                failure_function_state: vec![
                    FailureFunctionState::CallbackSuccess,
                    FailureFunctionState::CallbackCanceled,
                ],
                ..none.clone()
            },
        ),
        (
            "caller ips",
            DlqFilter {
                caller_ip: s(&["192.0.2.1", "2001:db8::1"]),
                ..none.clone()
            },
        ),
        (
            "flow key",
            DlqFilter {
                flow_control_key: s(&["tenant-b"]),
                ..none.clone()
            },
        ),
        (
            "everything at once",
            DlqFilter {
                from_date: Some(10_100),
                to_date: Some(12_200),
                workflow_url: s(&["https://a.example/wf", "https://b.example/wf"]),
                label: s(&["red", "blue"]),
                failure_function_state: vec![
                    FailureFunctionState::CallbackInprogress,
                    FailureFunctionState::CallbackFail,
                    FailureFunctionState::CallbackSuccess,
                ],
                caller_ip: s(&["192.0.2.1", "192.0.2.2"]),
                flow_control_key: s(&["tenant-a", "tenant-b"]),
                ..none.clone()
            },
        ),
        (
            "labels and run id",
            DlqFilter {
                workflow_run_id: Some("wfr_1".into()),
                label: s(&["red", "green"]),
                ..none.clone()
            },
        ),
        (
            "labels and date and key",
            DlqFilter {
                from_date: Some(10_400),
                label: s(&["gold", "blue", "red"]),
                flow_control_key: s(&["tenant-a"]),
                ..none.clone()
            },
        ),
        (
            "state and run created at",
            DlqFilter {
                workflow_created_at: Some(5_002),
                failure_function_state: vec![FailureFunctionState::CallbackFail],
                ..none.clone()
            },
        ),
    ]
}

#[test]
fn every_filter_alone_and_combined_matches_its_definition() {
    let f = fixture();
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
        let page = f.store.list_dlq(&filter, None, 1000, 0).expect("list");
        assert_eq!(ids(&page.entries), expected, "{name}");
        assert_eq!(
            list_all(&f.store, &filter, 7, 0),
            expected,
            "{name}, pages of 7"
        );
    }
    // The inclusive bounds really are hit by the date filter.
    let range = f
        .store
        .list_dlq(
            &DlqFilter {
                from_date: Some(10_500),
                to_date: Some(11_000),
                ..DlqFilter::default()
            },
            None,
            1000,
            0,
        )
        .expect("list");
    assert_eq!(range.entries.first().map(|e| e.created_at), Some(10_500));
    assert_eq!(range.entries.last().map(|e| e.created_at), Some(11_000));
}

#[test]
fn delete_matching_deletes_exactly_what_the_filter_matches() {
    for (name, filter) in filters() {
        let f = fixture();
        let entries = varied_entries();
        f.insert(&entries);
        let expected: BTreeSet<String> = entries
            .iter()
            .filter(|e| matches(&filter, e))
            .map(|e| e.dlq_id.clone())
            .collect();
        let batches = delete_in_batches(&f.store, &filter, 9);
        let deleted: u64 = batches.iter().map(|(count, _)| count).sum();
        assert_eq!(deleted as usize, expected.len(), "{name}");
        let left: BTreeSet<String> = list_all(&f.store, &DlqFilter::default(), 1000, 0)
            .into_iter()
            .collect();
        let all: BTreeSet<String> = ids(&entries).into_iter().collect();
        assert_eq!(left, all.difference(&expected).cloned().collect(), "{name}");
    }
}
