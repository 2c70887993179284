//! One entry: every field read back, generated ids, duplicates refused.

use super::*;

fn a_fully_populated_entry_reads_back_field_for_field(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let full = FailedWorkflowRun {
        body: Some(r#"{"order":1,"note":"crème brûlée ×2"}"#.into()),
        body_base64: Some("//4AgA==".into()),
        caller_ip: Some("2001:db8::1".into()),
        created_at: 1_752_829_295_505,
        dlq_id: "1752829295505-0".into(),
        failure_callback: Some("https://example.com/failure".into()),
        failure_callback_header: Some(headers(&[("Upstash-Callback", &["failure", "x"])])),
        failure_callback_info: Some(FailureCallbackInfo {
            response_body: Some("callback said no".into()),
            response_headers: Some(headers(&[("Content-Type", &["text/plain"])])),
            response_status: Some(502),
            state: FailureFunctionState::CallbackFail,
        }),
        flow_control_key: Some("tenant-acme".into()),
        header: headers(&[
            ("Content-Type", &["application/json"]),
            ("X-Many", &["a", "b", "c"]),
        ]),
        label: Some("legacy".into()),
        labels: vec!["billing".into(), "priority".into()],
        max_retries: 5,
        message_id: "msg_0123456789abcdef".into(),
        method: "PUT".into(),
        not_before: Some(1_752_829_290_000),
        response_body: Some("upstream error".into()),
        response_body_base64: Some("gICA".into()),
        response_header: Some(headers(&[("Retry-After", &["30"])])),
        response_status: Some(503),
        url: "https://example.com/wf/steps/charge".into(),
        workflow_created_at: 1_752_829_200_000,
        workflow_run_id: "wfr_full".into(),
        workflow_url: "https://example.com/wf".into(),
    };
    let stored = f
        .store
        .insert_dlq(std::slice::from_ref(&full), NO_LIMIT)
        .expect("insert")
        .dlq_ids;
    assert_eq!(stored, vec![full.dlq_id.clone()]);
    assert_eq!(
        f.store.get_dlq(&full.dlq_id, 0).expect("get"),
        Some(full.clone())
    );
    let page = f
        .store
        .list_dlq(PageQuery::first(&DlqFilter::default(), 10))
        .expect("list");
    assert_eq!(page.entries, vec![full.clone()]);
    assert_eq!(page.next_after, None);
    assert_eq!(f.store.get_dlq("1752829295505-1", 0).expect("get"), None);
}

fn generated_ids_are_unique_carry_created_at_and_order_by_it(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let base = 1_752_829_295_505;
    // Several entries share a millisecond; one explicit id is mixed in.
    let batch: Vec<_> = (0..30)
        .map(|i| {
            let id = if i == 7 { "explicit-7" } else { "" };
            entry(id, base + (i / 4) as i64, "wfr_ids")
        })
        .collect();
    let first = f.insert(&batch);
    let second = f.insert(&batch[..5]);
    assert_eq!(first.len(), 30);
    assert_eq!(first[7], "explicit-7", "an explicit id is kept");
    let generated: Vec<(&String, i64)> = first
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 7)
        .map(|(i, id)| (id, batch[i].created_at))
        .chain(second.iter().zip(batch[..5].iter().map(|e| e.created_at)))
        .collect();
    let mut seen = BTreeSet::new();
    for (id, created_at) in &generated {
        let (ms, seq) = id.split_once('-').expect("`<createdAt>-<seq>`");
        assert_eq!(ms.parse::<i64>().expect("ms"), *created_at, "{id}");
        seq.parse::<u64>().expect("numeric sequence");
        assert!(seen.insert(id.to_string()), "duplicate id {id}");
    }
    // In dlqId order, createdAt never goes backwards (13-digit millisecond prefixes).
    let listed = list_all(f.store.as_ref(), &DlqFilter::default(), 1000, 0);
    let created: BTreeMap<String, i64> = generated
        .iter()
        .map(|(id, c)| ((*id).clone(), *c))
        .collect();
    let in_order: Vec<i64> = listed
        .iter()
        .filter_map(|id| created.get(id))
        .copied()
        .collect();
    assert_eq!(in_order.len(), generated.len());
    assert!(in_order.windows(2).all(|w| w[0] <= w[1]), "{in_order:?}");
    // Every stored entry carries the id it was given.
    for id in &first {
        assert_eq!(
            f.store.get_dlq(id, 0).expect("get").map(|e| e.dlq_id),
            Some(id.clone())
        );
    }
}

fn a_duplicate_dlq_id_is_invalid_names_it_and_stores_nothing(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    f.insert(&[entry("dup-1", 1000, "wfr_a")]);
    let batches = [
        // A duplicate of a stored id, after a valid entry of a new run.
        (
            "dup-1",
            [entry("", 2000, "wfr_b"), entry("dup-1", 3000, "wfr_b")],
        ),
        // A duplicate inside one batch.
        (
            "twice",
            [entry("twice", 2000, "wfr_c"), entry("twice", 2001, "wfr_c")],
        ),
    ];
    for (duplicate, batch) in batches {
        let error = f.store.insert_dlq(&batch, NO_LIMIT).expect_err(duplicate);
        assert!(
            matches!(&error, StoreError::Invalid(m) if m.contains(duplicate)),
            "{error:?}"
        );
    }
    assert_eq!(f.store.dlq_count(0).expect("count"), 1);
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
        ["dup-1"]
    );
    // The runs of the refused batches were not registered either.
    assert!(!f.store.cancel_run("wfr_b", 0).expect("cancel"));
    assert!(!f.store.cancel_run("wfr_c", 0).expect("cancel"));
}

on_both_stores!(
    a_fully_populated_entry_reads_back_field_for_field,
    generated_ids_are_unique_carry_created_at_and_order_by_it,
    a_duplicate_dlq_id_is_invalid_names_it_and_stores_nothing,
);
