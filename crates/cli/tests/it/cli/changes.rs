//! Commands that change things: get, delete, purge, runs cancel, topics and indexes.

use super::*;

#[tokio::test]
async fn get_shows_one_run_and_an_unknown_id_exits_4_with_the_api_message() {
    let (_data, service) = start();
    let id = ids(&all_entries(&service).await)[7].clone();
    let (_, expected) = api(&service, &format!("/v2/workflows/dlq/{id}")).await;
    let json = run(&service, &["dlq", "get", &id, "-o", "json"])
        .ok()
        .json();
    assert_eq!(json, expected);
    let ndjson = run(&service, &["dlq", "get", &id, "-o", "ndjson"]).ok();
    assert_eq!(ndjson.ndjson(), vec![expected.clone()]);
    let table = run(&service, &["dlq", "get", &id, "-o", "table"]).ok();
    assert!(
        table
            .stdout
            .contains(expected["messageId"].as_str().unwrap()),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("workflowRunId"), "{}", table.stdout);

    let (status, error) = api(&service, "/v2/workflows/dlq/no-such-id").await;
    assert_eq!(status, 404);
    let missing = run(&service, &["dlq", "get", "no-such-id"])
        .exits(4)
        .says(error["error"].as_str().unwrap());
    assert!(missing.stdout.is_empty());
}

#[tokio::test]
async fn delete_removes_each_id_and_a_missing_one_exits_4_after_the_others() {
    let (_data, service) = start();
    let all = ids(&all_entries(&service).await);
    let deleted = run(&service, &["dlq", "delete", &all[0], &all[1], "-o", "json"]).ok();
    assert_eq!(deleted.json(), json!({"deleted": 2}));
    for id in &all[..2] {
        assert_eq!(
            api(&service, &format!("/v2/workflows/dlq/{id}")).await.0,
            404
        );
    }
    assert_eq!(
        api(&service, &format!("/v2/workflows/dlq/{}", all[2]))
            .await
            .0,
        200
    );

    let again = run(
        &service,
        &["dlq", "delete", &all[0], &all[2], "-o", "ndjson"],
    )
    .exits(4)
    .says(&all[0]);
    assert_eq!(
        again.ndjson(),
        vec![json!({"dlqId": all[2], "deleted": true})]
    );
    assert_eq!(
        api(&service, &format!("/v2/workflows/dlq/{}", all[2]))
            .await
            .0,
        404
    );
    let table = run(&service, &["dlq", "delete", &all[3], "-o", "table"]).ok();
    assert_eq!(table.stdout.trim(), "deleted 1");
    assert_eq!(all_entries(&service).await.len(), DEMO_ENTRIES - 4);
}

#[tokio::test]
async fn purge_by_label_leaves_no_entry_so_labelled_and_touches_no_other() {
    let (_data, service) = start();
    let before = all_entries(&service).await;
    let (beta, others): (Vec<Value>, Vec<Value>) = before
        .into_iter()
        .partition(|entry| has_label(entry, "beta"));
    assert!(!beta.is_empty() && !others.is_empty());

    // Batches of 7 make the purge follow the cursor many times.
    let purged = run(
        &service,
        &[
            "dlq",
            "purge",
            "--label",
            "beta",
            "--yes",
            "--batch-size",
            "7",
            "-o",
            "json",
        ],
    )
    .ok();
    assert_eq!(purged.json(), json!({"deleted": beta.len()}));
    assert!(
        purged.stderr.is_empty(),
        "no progress on a pipe: {}",
        purged.stderr
    );
    let after = all_entries(&service).await;
    assert!(after.iter().all(|entry| !has_label(entry, "beta")));
    assert_eq!(
        ids(&after),
        ids(&others),
        "every other entry is still there"
    );
}

#[tokio::test]
async fn purge_refuses_without_a_filter_or_a_confirmation_and_all_entries_empties_the_dlq() {
    let (_data, service) = start();
    run(&service, &["dlq", "purge", "--yes"])
        .exits(2)
        .says("--all-entries");
    // stdin is not a terminal here, so nobody could confirm: refused without --yes.
    run(&service, &["dlq", "purge", "--label", "etl"])
        .exits(2)
        .says("--yes");
    assert_eq!(
        all_entries(&service).await.len(),
        DEMO_ENTRIES,
        "nothing deleted"
    );

    let purged = run(
        &service,
        &[
            "dlq",
            "purge",
            "--all-entries",
            "--yes",
            "--batch-size",
            "64",
            "-o",
            "ndjson",
        ],
    )
    .ok();
    let batches = purged.ndjson();
    assert!(batches.len() >= 5, "{batches:?}");
    let total: i64 = batches.iter().map(|b| b["deleted"].as_i64().unwrap()).sum();
    assert_eq!(total, DEMO_ENTRIES as i64);
    assert!(all_entries(&service).await.is_empty());
    let table = run(
        &service,
        &["dlq", "purge", "--all-entries", "--yes", "-o", "table"],
    )
    .ok();
    assert_eq!(table.stdout.trim(), "deleted 0");
}

#[tokio::test]
async fn runs_cancel_removes_the_runs_entries_and_a_second_cancel_exits_4() {
    let (_data, service) = start();
    let (_, page) = api(&service, "/v2/workflows/dlq?workflowRunId=wfr_demo01000").await;
    assert!(!page["messages"].as_array().unwrap().is_empty());
    let cancelled = run(&service, &["runs", "cancel", "wfr_demo01000", "-o", "json"]).ok();
    assert_eq!(cancelled.json(), json!({"cancelled": 1}));
    let (_, page) = api(&service, "/v2/workflows/dlq?workflowRunId=wfr_demo01000").await;
    assert_eq!(page["messages"], json!([]));

    let again = run(
        &service,
        &[
            "runs",
            "cancel",
            "wfr_demo01000",
            "wfr_demo01001",
            "-o",
            "table",
        ],
    )
    .exits(4)
    .says("wfr_demo01000");
    assert_eq!(
        again.stdout.trim(),
        "cancelled 1",
        "the other run still went"
    );
}

#[tokio::test]
async fn topics_and_index_get_agree_with_the_api_and_unknown_ones_exit_4() {
    let (_data, service) = start();
    let (_, topic) = api(&service, "/v2/topics/orders").await;
    assert_eq!(
        run(&service, &["topics", "get", "orders", "-o", "json"])
            .ok()
            .json(),
        topic
    );
    let table = run(&service, &["topics", "get", "orders", "-o", "table"]).ok();
    for endpoint in topic["endpoints"].as_array().unwrap() {
        assert!(
            table.stdout.contains(endpoint["url"].as_str().unwrap()),
            "{}",
            table.stdout
        );
    }
    let (status, error) = api(&service, "/v2/topics/no-such-group").await;
    assert_eq!(status, 404);
    run(&service, &["topics", "get", "no-such-group"])
        .exits(4)
        .says(error["error"].as_str().unwrap());

    let (_, mut index) = api(&service, &format!("/v2/search/{DEMO_INDEX_ID}")).await;
    let mut listed = run(&service, &["index", "get", DEMO_INDEX_ID, "-o", "ndjson"])
        .ok()
        .ndjson();
    assert_eq!(listed.len(), 1);
    // The throughput series is bucketed by the minute, so only its shape can be compared.
    let points = |value: &mut Value| value["throughput_vector"].take().as_array().map(Vec::len);
    assert_eq!(points(&mut listed[0]), points(&mut index));
    assert_eq!(listed[0], index);
    let table = run(&service, &["index", "get", DEMO_INDEX_ID, "-o", "table"]).ok();
    assert!(
        table.stdout.contains("throughput_vector"),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains('▁'), "a sparkline: {}", table.stdout);
    let unknown = "00000000-0000-4000-8000-000000000000";
    let missing = run(&service, &["index", "get", unknown]);
    assert_eq!(missing.code, 4, "{}", missing.stderr);
    assert!(
        missing.stderr.starts_with("error: 404"),
        "{}",
        missing.stderr
    );
}
