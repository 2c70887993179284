//! The same lists asked again and again, as a console or a polling test asks them: after every
//! kind of write, each answer is what a list nobody asked before gives at that moment, so a page
//! the service kept (`docs/decisions.md#d21-kept-list-pages`) is never sent past a change.

use super::*;

/// The ids and cursor of one list page.
async fn ids_of(
    client: &messaging::Client,
    count: u64,
    label: Option<&str>,
    cursor: Option<&str>,
) -> (Vec<String>, Option<String>) {
    let mut request = client
        .list_workflow_dlq()
        .count(NonZeroU64::new(count).expect("nonzero"));
    if let Some(label) = label {
        request = request.label(vec![label]);
    }
    if let Some(cursor) = cursor {
        request = request.cursor(cursor);
    }
    let page = request.send().await.expect("list").into_inner();
    let ids = page.messages.into_iter().map(|m| m.dlq_id).collect();
    (ids, page.cursor.filter(|c| !c.is_empty()))
}

/// Asks three lists twice each (the whole DLQ, one label, a second page) and compares both
/// answers with the same list asked at a size never asked before (`fresh`, grown every round),
/// cut to the size. Returns the whole DLQ's ids.
async fn asked_again_and_fresh(client: &messaging::Client, fresh: &mut u64) -> Vec<String> {
    let mut all = Vec::new();
    for (count, label) in [(50, None), (50, Some("label-1")), (7, None)] {
        *fresh += 1;
        let (first, cursor) = ids_of(client, count, label, None).await;
        let (again, _) = ids_of(client, count, label, None).await;
        let (reference, _) = ids_of(client, count + *fresh, label, None).await;
        let reference: Vec<String> = reference.into_iter().take(count as usize).collect();
        assert_eq!(first, reference, "count={count} label={label:?}");
        assert_eq!(
            again, reference,
            "count={count} label={label:?}, asked again"
        );
        if count == 50 && label.is_none() {
            assert!(cursor.is_none(), "the whole DLQ fits in 50");
            all = first;
        } else if label.is_none() {
            let cursor = cursor.expect("more than 7 entries");
            let (second, _) = ids_of(client, count, None, Some(&cursor)).await;
            let (second_again, _) = ids_of(client, count, None, Some(&cursor)).await;
            assert_eq!(second, all[7..14.min(all.len())], "the second page");
            assert_eq!(second_again, second, "the second page, asked again");
        }
    }
    all
}

#[tokio::test]
async fn lists_asked_again_after_every_kind_of_write_show_the_write() {
    let service = TestService::start().await;
    let client = messaging_client(&service);
    let now = now_ms();
    // Twenty entries two hours old and twenty a minute old, so that a retention of one hour
    // later hides the first twenty and no entry is near the floor while the test runs.
    let entries: Vec<Value> = (0..40)
        .map(|i| match i < 20 {
            true => run(i, now - 7_200_000 + i as i64),
            false => run(i, now - 60_000 + i as i64),
        })
        .collect();
    let ids = service.insert_dlq(&entries).await;
    let mut fresh = 0;
    let mut expected: BTreeSet<String> = ids.iter().cloned().collect();
    let holds = |all: &[String], expected: &BTreeSet<String>| {
        assert_eq!(all.iter().cloned().collect::<BTreeSet<_>>(), *expected);
    };
    holds(&asked_again_and_fresh(&client, &mut fresh).await, &expected);

    ok(
        "delete one",
        client.delete_dlq_message().dlq_id(&ids[0]).send(),
    )
    .await;
    expected.remove(&ids[0]);
    holds(&asked_again_and_fresh(&client, &mut fresh).await, &expected);

    let by_ids = client
        .delete_workflow_dlq_bulk()
        .dlq_ids(vec![ids[2].clone(), ids[3].clone()]);
    assert_eq!(ok("delete by ids", by_ids.send()).await.deleted, 2);
    expected.remove(&ids[2]);
    expected.remove(&ids[3]);
    holds(&asked_again_and_fresh(&client, &mut fresh).await, &expected);

    let by_label = client.delete_workflow_dlq_bulk().label(vec!["label-1"]);
    assert_eq!(ok("delete by label", by_label.send()).await.deleted, 8);
    expected.retain(|id| !(0..40).any(|i| i % 5 == 1 && ids[i] == *id));
    holds(&asked_again_and_fresh(&client, &mut fresh).await, &expected);

    let added = service.insert_dlq(&[run(41, now - 30_000)]).await;
    expected.extend(added);
    holds(&asked_again_and_fresh(&client, &mut fresh).await, &expected);

    // Run wfr_00012 holds entries 24 and 25.
    ok(
        "cancel",
        client
            .cancel_workflow_run()
            .workflow_run_id("wfr_00012")
            .send(),
    )
    .await;
    expected.remove(&ids[24]);
    expected.remove(&ids[25]);
    holds(&asked_again_and_fresh(&client, &mut fresh).await, &expected);

    service
        .patch_account(json!({"max_dlq_retention_time_milis": 3_600_000}))
        .await;
    expected.retain(|id| !ids[..20].contains(id));
    holds(&asked_again_and_fresh(&client, &mut fresh).await, &expected);
}
