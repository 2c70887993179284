//! Every operation of both traits through the client: successes and documented errors.

use super::*;
use std::future::Future;
use std::pin::Pin;

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
    let page = ok(
        "list",
        client
            .list_workflow_dlq()
            .count(std::num::NonZeroU64::new(1).unwrap())
            .send(),
    )
    .await;
    assert_eq!(page.cursor.as_deref(), Some("page-2"));

    let run = ok("get", client.get_workflow_dlq().dlq_id("1-0").send()).await;
    assert_eq!(run, entry("1-0", "wfr_a"));

    let group = ok(
        "url group",
        client.get_url_group().url_group_name("orders group").send(),
    )
    .await;
    assert_eq!(group.name, "orders group");

    let deleted = ok(
        "bulk",
        client
            .delete_workflow_dlq_bulk()
            .dlq_ids(vec!["1-0", "nope"])
            .send(),
    )
    .await;
    assert_eq!((deleted.deleted, deleted.cursor.clone()), (1, None));

    ok(
        "cancel",
        client
            .cancel_workflow_run()
            .workflow_run_id("wfr_b")
            .cancel(true)
            .send(),
    )
    .await;
    assert!(served.api.entries.lock().unwrap().is_empty());

    served
        .api
        .entries
        .lock()
        .unwrap()
        .insert("2-0".into(), entry("2-0", "wfr_c"));
    ok(
        "delete one",
        client.delete_dlq_message().dlq_id("2-0").send(),
    )
    .await;
    assert!(served.api.entries.lock().unwrap().is_empty());
}

#[tokio::test]
async fn documented_messaging_errors_arrive_typed() {
    let served = serve().await;
    let client = messaging::Client::with_token(&served.base, TOKEN);
    let wrong = messaging::Client::with_token(&served.base, "wrong");
    let label = |label: &str| vec![label.to_owned()];

    expect_errors(vec![
        (
            "get an unknown entry",
            call(client.get_workflow_dlq().dlq_id("nope").send()),
            404,
            Says::Exactly("no DLQ entry `nope`"),
        ),
        (
            "delete an unknown entry",
            call(client.delete_dlq_message().dlq_id("nope").send()),
            404,
            Says::Anything,
        ),
        (
            "cancel an unknown run",
            call(client.cancel_workflow_run().workflow_run_id("nope").send()),
            404,
            Says::Anything,
        ),
        (
            "an unknown URL group",
            call(client.get_url_group().url_group_name("nope").send()),
            404,
            Says::Anything,
        ),
        (
            "a malformed cursor",
            call(client.list_workflow_dlq().cursor("garbage").send()),
            400,
            Says::Exactly("malformed cursor"),
        ),
        (
            "a documented 500",
            call(client.list_workflow_dlq().label(label("boom")).send()),
            500,
            Says::Anything,
        ),
        (
            "a documented 429",
            call(client.list_workflow_dlq().label(label("slow-down")).send()),
            429,
            Says::Anything,
        ),
        (
            "a panicking implementation",
            call(client.list_workflow_dlq().label(label("panic")).send()),
            500,
            Says::Mentions("internal error"),
        ),
        (
            "list with a wrong token",
            call(wrong.list_workflow_dlq().send()),
            401,
            Says::Exactly("wrong token"),
        ),
        (
            "get with a wrong token",
            call(wrong.get_workflow_dlq().dlq_id("1-0").send()),
            401,
            Says::Anything,
        ),
    ])
    .await;

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

    let index = ok("index", client.get_search_index().id("idx-1").send()).await;
    assert_eq!(
        (index.customer_id.as_str(), index.type_),
        (CUSTOMER, IndexType::Payg)
    );
    let stats_of = |id: &str| client.get_search_index_stats().id(id);
    let stats = ok(
        "30d",
        stats_of("idx-1").period(StatsPeriod::ThirtyDays).send(),
    )
    .await;
    assert_eq!(stats.query_throughput.len(), 240);
    let stats = ok("default period", stats_of("idx-1").send()).await;
    assert_eq!(stats.query_throughput.len(), 60);

    let hourly = client.get_account_stats().period(StatsPeriod::OneHour);
    let account_stats = ok("account stats", hourly.send()).await;
    assert_eq!(account_stats.dlq_message_count, 2);

    let rotated = ok("rotate", client.rotate_token().send()).await;
    assert_eq!(rotated.token, format!("{TOKEN}-rotated"));
    let new = messaging::Client::with_token(&served.base, rotated.token)
        .list_workflow_dlq()
        .send()
        .await;
    assert!(new.is_ok());

    let old = messaging::Client::with_token(&served.base, TOKEN);
    let wrong = management::Client::with_credentials(&served.base, CUSTOMER, "wrong-key");
    expect_errors(vec![
        (
            "stats of an unknown index",
            call(stats_of("nope").send()),
            404,
            Says::Anything,
        ),
        (
            "an unknown index",
            call(client.get_search_index().id("nope").send()),
            404,
            Says::Anything,
        ),
        (
            "the token rotated away",
            call(old.list_workflow_dlq().send()),
            401,
            Says::Anything,
        ),
        (
            "account stats with a wrong key",
            call(wrong.get_account_stats().send()),
            401,
            Says::Anything,
        ),
        (
            "rotation with a wrong key",
            call(wrong.rotate_token().send()),
            401,
            Says::Anything,
        ),
    ])
    .await;
}

/// One request through the generated client, its successful answer dropped: the rows of an
/// error table differ in their response types but not in what is checked.
type Call<'a> = Pin<Box<dyn Future<Output = Result<(), CourierError>> + Send + 'a>>;

fn call<'a, T>(sent: impl Future<Output = Result<T, CourierError>> + Send + 'a) -> Call<'a> {
    Box::pin(async move { sent.await.map(drop) })
}

/// What an error's `{"error": ...}` message must say.
enum Says {
    Exactly(&'static str),
    Mentions(&'static str),
    Anything,
}

/// Sends every call in turn and checks that it failed with the documented status and message.
async fn expect_errors(cases: Vec<(&str, Call<'_>, u16, Says)>) {
    for (what, call, status, says) in cases {
        let error = call.await.expect_err(what);
        assert_eq!(status_of(&error), status, "{what}: {error}");
        let message = message_of(&error);
        match says {
            Says::Exactly(expected) => assert_eq!(message, expected, "{what}"),
            Says::Mentions(part) => assert!(message.contains(part), "{what}: {message}"),
            Says::Anything => {}
        }
    }
}
