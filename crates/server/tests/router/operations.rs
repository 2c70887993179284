//! Every operation of both traits through the client: successes and documented errors.

use super::*;

#[tokio::test]
async fn every_messaging_operation_succeeds_through_the_client() {
    let served = serve().await;
    let client = messaging::Client::with_token(&served.base, TOKEN);

    let page = client.list_workflow_dlq().send().await.expect("list");
    assert_eq!(
        page.messages
            .iter()
            .map(|m| m.dlq_id.as_str())
            .collect::<Vec<_>>(),
        ["1-0", "1-1"]
    );
    assert_eq!(page.cursor, None);
    let page = client
        .list_workflow_dlq()
        .count(std::num::NonZeroU64::new(1).unwrap())
        .send()
        .await
        .expect("list");
    assert_eq!(page.cursor.as_deref(), Some("page-2"));

    let run = client
        .get_workflow_dlq()
        .dlq_id("1-0")
        .send()
        .await
        .expect("get");
    assert_eq!(run.into_inner(), entry("1-0", "wfr_a"));

    let group = client
        .get_url_group()
        .url_group_name("orders group")
        .send()
        .await
        .expect("url group");
    assert_eq!(group.name, "orders group");

    let deleted = client
        .delete_workflow_dlq_bulk()
        .dlq_ids(vec!["1-0".into(), "nope".into()])
        .send()
        .await
        .expect("bulk");
    assert_eq!((deleted.deleted, deleted.cursor.clone()), (1, None));

    client
        .cancel_workflow_run()
        .workflow_run_id("wfr_b")
        .cancel(true)
        .send()
        .await
        .expect("cancel");
    assert!(served.api.entries.lock().unwrap().is_empty());

    served
        .api
        .entries
        .lock()
        .unwrap()
        .insert("2-0".into(), entry("2-0", "wfr_c"));
    client
        .delete_dlq_message()
        .dlq_id("2-0")
        .send()
        .await
        .expect("delete one");
    assert!(served.api.entries.lock().unwrap().is_empty());
}

#[tokio::test]
async fn documented_messaging_errors_arrive_typed() {
    let served = serve().await;
    let client = messaging::Client::with_token(&served.base, TOKEN);

    let missing = client
        .get_workflow_dlq()
        .dlq_id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (status_of(&missing), message_of(&missing)),
        (404, "no DLQ entry `nope`".into())
    );
    let missing = client
        .delete_dlq_message()
        .dlq_id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);
    let missing = client
        .cancel_workflow_run()
        .workflow_run_id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);
    let missing = client
        .get_url_group()
        .url_group_name("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);

    let bad = client
        .list_workflow_dlq()
        .cursor("garbage")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (status_of(&bad), message_of(&bad)),
        (400, "malformed cursor".into())
    );
    let boom = client
        .list_workflow_dlq()
        .label(vec!["boom".into()])
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&boom), 500);
    let slow = client
        .list_workflow_dlq()
        .label(vec!["slow-down".into()])
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&slow), 429);
    let panicked = client
        .list_workflow_dlq()
        .label(vec!["panic".into()])
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&panicked), 500);
    assert!(
        message_of(&panicked).contains("internal error"),
        "{}",
        message_of(&panicked)
    );

    let wrong = messaging::Client::with_token(&served.base, "wrong");
    let denied = wrong.list_workflow_dlq().send().await.unwrap_err();
    assert_eq!(
        (status_of(&denied), message_of(&denied)),
        (401, "wrong token".into())
    );
    let denied = wrong
        .get_workflow_dlq()
        .dlq_id("1-0")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&denied), 401);

    let by_query = messaging::Client::with_query_token(&served.base, TOKEN);
    assert_eq!(
        by_query
            .get_workflow_dlq()
            .dlq_id("1-1")
            .send()
            .await
            .expect("query token")
            .dlq_id,
        "1-1"
    );
}

#[tokio::test]
async fn every_management_operation_and_its_errors() {
    let served = serve().await;
    let client = management::Client::with_credentials(&served.base, CUSTOMER, KEY);

    let index = client
        .get_search_index()
        .id("idx-1")
        .send()
        .await
        .expect("index");
    assert_eq!(
        (index.customer_id.as_str(), index.type_),
        (CUSTOMER, IndexType::Payg)
    );
    let stats = client
        .get_search_index_stats()
        .id("idx-1")
        .period(StatsPeriod::ThirtyDays)
        .send()
        .await
        .expect("stats");
    assert_eq!(stats.query_throughput.len(), 240);
    let stats = client
        .get_search_index_stats()
        .id("idx-1")
        .send()
        .await
        .expect("default period");
    assert_eq!(stats.query_throughput.len(), 60);
    let missing = client
        .get_search_index_stats()
        .id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);
    let missing = client
        .get_search_index()
        .id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);

    let account_stats = client
        .get_account_stats()
        .period(StatsPeriod::OneHour)
        .send()
        .await
        .expect("account stats");
    assert_eq!(account_stats.dlq_message_count, 2);

    let rotated = client
        .rotate_token()
        .send()
        .await
        .expect("rotate")
        .into_inner();
    assert_eq!(rotated.token, format!("{TOKEN}-rotated"));
    let old = messaging::Client::with_token(&served.base, TOKEN)
        .list_workflow_dlq()
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&old), 401);
    let new = messaging::Client::with_token(&served.base, rotated.token)
        .list_workflow_dlq()
        .send()
        .await;
    assert!(new.is_ok());

    let wrong = management::Client::with_credentials(&served.base, CUSTOMER, "wrong-key");
    assert_eq!(
        status_of(&wrong.get_account_stats().send().await.unwrap_err()),
        401
    );
    assert_eq!(
        status_of(&wrong.rotate_token().send().await.unwrap_err()),
        401
    );
}
