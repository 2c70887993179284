//! The stored wire bytes: what `get_dlq_json` and `list_dlq_json` serve as they are
//! is, byte for byte, what serde writes for the entry that was inserted (the full shape of
//! `FailedWorkflowRun` and the list shape `WorkflowDLQMessage`), for the demo's realistic failed runs.

use super::*;
use courier_models::WorkflowDlqMessage;

fn stored_bytes_are_what_serde_writes_for_the_inserted_entries(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let runs = courier_service::demo::failed_runs(1_800_000_000_000);
    assert!(runs.len() >= 100, "enough variety: {}", runs.len());
    let stored_ids = f.insert(&runs);
    let inserted: BTreeMap<String, FailedWorkflowRun> = runs
        .into_iter()
        .zip(stored_ids)
        .map(|(mut run, id)| {
            run.dlq_id = id.clone();
            (id, run)
        })
        .collect();

    for (id, run) in &inserted {
        let stored = f.store.get_dlq_json(id, 0).expect("get").expect("stored");
        assert_eq!(
            stored,
            serde_json::to_string(run).unwrap(),
            "full shape of {id}"
        );
    }

    let mut listed = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = f
            .store
            .list_dlq_json(PageQuery::first(&DlqFilter::default(), 37).after(after.as_deref()))
            .expect("list");
        listed.extend(page.messages);
        match page.next_after {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let expected: Vec<String> = inserted
        .values()
        .map(|run| serde_json::to_string(&WorkflowDlqMessage::from(run.clone())).unwrap())
        .collect();
    assert_eq!(listed, expected, "list shapes, in dlqId order");
}

on_both_stores!(stored_bytes_are_what_serde_writes_for_the_inserted_entries,);
