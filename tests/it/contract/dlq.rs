//! The DLQ through the client: pagination and filters, paging under writes, get, bulk delete, cancel.

use super::*;

#[tokio::test]
async fn pagination_and_filters_over_1050_entries_match_a_direct_filter() {
    let (_service, client, ids, base) = seeded(1050, 3_600_000).await;

    let all = list_all(&client, |r| r).await;
    assert_eq!(all.len(), 1050, "every entry once");
    assert_eq!(
        all.iter().collect::<BTreeSet<_>>().len(),
        1050,
        "no duplicates"
    );
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "ascending dlqId order");

    // Expected sets computed directly from the inserted data.
    let by_index = |keep: &dyn Fn(usize) -> bool| -> BTreeSet<String> {
        (0..1050)
            .filter(|i| keep(*i))
            .map(|i| ids[i].clone())
            .collect()
    };
    let filtered = list_all(&client, |r| {
        r.workflow_url(vec!["https://a.example/wf", "https://b.example/wf"])
    })
    .await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i % 3 != 2)
    );
    let filtered = list_all(&client, |r| {
        r.label(vec!["label-1"])
            .caller_ip(vec!["10.0.0.1", "10.0.0.3"])
    })
    .await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i % 5 == 1 && i % 2 == 1)
    );
    let filtered = list_all(&client, |r| {
        r.failure_function_state(vec![FailureFunctionState::CallbackFail])
            .flow_control_key(vec!["key-0"])
            .from_date(base + 100)
            .to_date(base + 900)
    })
    .await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i % 4 == 2 && i % 2 == 0 && (100..=900).contains(&i))
    );
    let filtered = list_all(&client, |r| r.workflow_run_id("wfr_00007")).await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i / 2 == 7)
    );
    let filtered = list_all(&client, |r| r.workflow_created_at(base + 41 - 1000)).await;
    assert_eq!(filtered, [ids[41].clone()]);
}

#[tokio::test]
async fn paging_while_others_insert_and_delete_never_repeats_or_skips_stable_entries() {
    let (service, client, ids, base) = seeded(600, 3_600_000).await;
    // Entries 0..300 stay for the whole scan; 300..600 are deleted while paging.
    let stable: BTreeSet<String> = ids[..300].iter().cloned().collect();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut round = 0;
    loop {
        let mut request = client
            .list_workflow_dlq()
            .count(NonZeroU64::new(50).expect("nonzero"));
        if let Some(cursor) = &cursor {
            request = request.cursor(cursor.clone());
        }
        let page = request.send().await.expect("list").into_inner();
        seen.extend(page.messages.into_iter().map(|m| m.dlq_id));
        round += 1;
        // Concurrent changes between pages: new entries arrive, volatile ones go.
        service
            .insert_dlq(&[run(10_000 + round, base + 5000 + round as i64)])
            .await;
        let volatile: Vec<String> = ids[300..]
            .iter()
            .skip(round * 20)
            .take(20)
            .cloned()
            .collect();
        ok(
            "delete",
            client.delete_workflow_dlq_bulk().dlq_ids(volatile).send(),
        )
        .await;
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let seen_set: BTreeSet<String> = seen.iter().cloned().collect();
    assert_eq!(seen.len(), seen_set.len(), "no entry was served twice");
    assert!(
        stable.is_subset(&seen_set),
        "every entry present throughout was served"
    );
}

#[tokio::test]
async fn get_one_returns_every_field_and_404_when_gone() {
    let service = TestService::start().await;
    let mut input = run(1, now_ms() - 1000);
    input["bodyBase64"] = json!("//4AAQ==");
    input.as_object_mut().expect("object").remove("body");
    input["label"] = json!("legacy");
    input["failureCallbackHeader"] = json!({"X-Callback": ["1"]});
    input["notBefore"] = json!(now_ms());
    input["responseBodyBase64"] = json!("gAE=");
    input["responseStatus"] = json!(502);
    let id = service.insert_dlq(&[input.clone()]).await.remove(0);
    let client = messaging_client(&service);
    let run = ok("get", client.get_workflow_dlq().dlq_id(&id).send()).await;
    let got = serde_json::to_value(&run).expect("json");
    for (key, value) in input.as_object().expect("object") {
        assert_eq!(&got[key], value, "field {key}");
    }
    assert_eq!(run.dlq_id, id);
    assert!(!run.message_id.is_empty());
    assert_eq!(
        run.failure_callback_info.as_ref().map(|i| i.state),
        Some(FailureFunctionState::CallbackSuccess)
    );

    let listed = ok("list", client.list_workflow_dlq().send()).await;
    assert_eq!(
        listed.messages[0].failure_function_state,
        Some(FailureFunctionState::CallbackSuccess)
    );
    assert_eq!(listed.messages[0].body_base64.as_deref(), Some("//4AAQ=="));
    assert_eq!(
        listed.cursor, None,
        "the cursor key is omitted on the last page"
    );

    ok("delete one", client.delete_dlq_message().dlq_id(&id).send()).await;
    let gone = refused("get gone", client.get_workflow_dlq().dlq_id(&id).send()).await;
    assert_eq!(gone, 404);
    let again = refused(
        "delete gone",
        client.delete_dlq_message().dlq_id(&id).send(),
    )
    .await;
    assert_eq!(again, 404);
}

#[tokio::test]
async fn bulk_delete_in_batches_until_empty_and_by_ids() {
    let (_service, client, ids, _) = seeded(450, 3_600_000).await;

    let by_ids = ok(
        "by ids",
        client
            .delete_workflow_dlq_bulk()
            .dlq_ids(vec![ids[0].clone(), ids[1].clone(), "nope".into()])
            .label(vec!["ignored"])
            .send(),
    )
    .await;
    assert_eq!((by_ids.deleted, by_ids.cursor.clone()), (2, None));

    // Filter: label-2 only (90 entries), batches of 25.
    let mut deleted = 0;
    let mut batches = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut request = client
            .delete_workflow_dlq_bulk()
            .label(vec!["label-2"])
            .count(NonZeroU64::new(25).expect("nonzero"));
        if let Some(c) = &cursor {
            request = request.cursor(c.clone());
        }
        let result = request.send().await.expect("batch").into_inner();
        assert!(result.deleted <= 25);
        deleted += result.deleted;
        batches += 1;
        match result.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(deleted, 90);
    assert!(batches >= 4, "{batches} batches");
    assert!(
        list_all(&client, |r| r.label(vec!["label-2"]))
            .await
            .is_empty()
    );
    assert_eq!(list_all(&client, |r| r).await.len(), 450 - 2 - 90);

    let bad = refused(
        "bad cursor",
        client
            .delete_workflow_dlq_bulk()
            .cursor("not-a-cursor")
            .send(),
    )
    .await;
    assert_eq!(bad, 400);
}

#[tokio::test]
async fn cancel_removes_the_run_and_its_entries_then_404() {
    let (service, client, _, base) = seeded(6, 1000).await;
    let cancel = |run: &str| client.cancel_workflow_run().workflow_run_id(run);
    ok("cancel", cancel("wfr_00001").cancel(true).send()).await;
    assert!(
        list_all(&client, |r| r.workflow_run_id("wfr_00001"))
            .await
            .is_empty()
    );
    assert_eq!(list_all(&client, |r| r).await.len(), 4);
    let again = refused("cancel again", cancel("wfr_00001").send()).await;
    assert_eq!(again, 404);

    let (status, answer) = service.admin_call(reqwest::Method::POST, "/runs", &json!([{"workflowRunId": "wfr_active", "workflowUrl": "https://a.example/wf", "workflowCreatedAt": base}])).await;
    assert_eq!(status, 201, "{answer}");
    ok("cancel an active run", cancel("wfr_active").send()).await;
}
