//! Several `courier serve` processes on one PostgreSQL database behave as one service: a cursor
//! from one continues on another, a rotation through one is refused by the others at once, the
//! DLQ's size limit stays exact under concurrent inserts through several, statistics count every
//! process's requests, and a process killed in the middle of a bulk delete loses and duplicates
//! nothing while the others go on; and what courier does with the connection string
//! (`connection_string.rs`). Real processes on a real database (`COURIER_TEST_POSTGRES`; skipped
//! with one printed line without it, required in CI).

use crate::common;
mod connection_string;

use common::{Courier, serve_on_postgres};
use courier_service::test_database::TestDatabase;
use std::collections::BTreeSet;

const TOKEN: &str = "pg-processes-service-token";
const CUSTOMER: &str = "pg-processes@courier.dev";
const KEY: &str = "pg-processes-management-key";
const ADMIN: &str = "pg-processes-admin-token";
const ACCOUNT: [&str; 4] = [TOKEN, CUSTOMER, KEY, ADMIN];

/// `count` processes serving the service in a fresh schema, or `None` without a database.
fn processes(count: usize) -> Option<(TestDatabase, Vec<Courier>)> {
    let database = TestDatabase::create()?;
    let started = (0..count)
        .map(|_| serve_on_postgres(database.url(), ACCOUNT))
        .collect();
    Some((database, started))
}

/// Sends a request; status and JSON body (`null` when there is none).
async fn send(request: reqwest::RequestBuilder) -> (u16, serde_json::Value) {
    let response = request.send().await.expect("a response");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

/// Inserts `count` entries from `first` on through the admin API at `base`, labelled `label`.
async fn insert(http: &reqwest::Client, base: &str, first: usize, count: usize, label: &str) {
    common::insert_entries(http, base, ADMIN, first..first + count, label).await;
}

/// Every id listed with `count` per page, each page from the next process in turn.
async fn walk(http: &reqwest::Client, processes: &[Courier], token: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        let courier = &processes[page % processes.len()];
        let mut request = http
            .get(format!("{}/v2/workflows/dlq", courier.base))
            .bearer_auth(token)
            .query(&[("count", "40")]);
        if let Some(cursor) = &cursor {
            request = request.query(&[("cursor", cursor)]);
        }
        let (status, body) = send(request).await;
        assert_eq!(status, 200, "page {page}: {body}");
        for message in body["messages"].as_array().expect("messages") {
            ids.push(message["dlqId"].as_str().expect("dlqId").to_owned());
        }
        match body["cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_from_one_process_continues_on_another() {
    let Some((_database, processes)) = processes(2) else {
        return;
    };
    let http = reqwest::Client::new();
    insert(&http, &processes[0].base, 0, 130, "a").await;
    insert(&http, &processes[1].base, 130, 120, "b").await;
    let ids = walk(&http, &processes, TOKEN).await;
    let expected: Vec<String> = (0..250).map(|n| format!("e{n:06}")).collect();
    assert_eq!(
        ids, expected,
        "every entry once, in order, across both processes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotation_through_one_process_is_refused_by_the_others_at_once() {
    let Some((_database, processes)) = processes(3) else {
        return;
    };
    let http = reqwest::Client::new();
    let list = |courier: &Courier, token: &str| {
        http.get(format!("{}/v2/workflows/dlq", courier.base))
            .bearer_auth(token)
    };
    for courier in &processes {
        assert_eq!(send(list(courier, TOKEN)).await.0, 200);
    }
    let (status, account) = send(
        http.post(format!(
            "{}/v2/svc/user/rotatetoken",
            processes[1].management
        ))
        .basic_auth(CUSTOMER, Some(KEY)),
    )
    .await;
    assert_eq!(status, 200, "rotate: {account}");
    let rotated = account["token"].as_str().expect("the new token").to_owned();
    assert_ne!(rotated, TOKEN);
    // Right after the answer, on every process: no waiting, no retries.
    for courier in &processes {
        let (status, body) = send(list(courier, TOKEN)).await;
        assert_eq!(status, 401, "the old token on {}: {body}", courier.base);
        assert_eq!(send(list(courier, &rotated)).await.0, 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dlq_size_limit_is_exact_under_concurrent_inserts_through_two_processes() {
    let Some((_database, processes)) = processes(2) else {
        return;
    };
    let http = reqwest::Client::new();
    let (status, body) = send(
        http.patch(format!("{}/admin/v1/account", processes[0].base))
            .bearer_auth(ADMIN)
            .json(&serde_json::json!({ "max_dlq_size": 100 })),
    )
    .await;
    assert_eq!(status, 200, "patch: {body}");
    // Twenty batches of ten through each process at once: 400 entries for a DLQ of 100.
    let mut inserts = tokio::task::JoinSet::new();
    for (p, courier) in processes.iter().enumerate() {
        let (http, base) = (http.clone(), courier.base.clone());
        inserts.spawn(async move {
            for batch in 0..20 {
                insert(&http, &base, (p * 20 + batch) * 10, 10, "fill").await;
            }
        });
    }
    while let Some(done) = inserts.join_next().await {
        done.expect("an inserting task");
    }
    let ids = walk(&http, &processes, TOKEN).await;
    assert_eq!(ids.len(), 100, "exactly the limit is kept");
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_limits_are_one_budget_across_processes() {
    let Some((_database, processes)) = processes(2) else {
        return;
    };
    let http = reqwest::Client::new();
    // The daily limit: it cannot roll over during the test (the per-second one is counted by
    // the same call in the database, see `spend_request` in the store's schema).
    let (status, body) = send(
        http.patch(format!("{}/admin/v1/account", processes[1].base))
            .bearer_auth(ADMIN)
            .json(&serde_json::json!({ "max_requests_per_day_hard": 30 })),
    )
    .await;
    assert_eq!(status, 200, "patch: {body}");
    let mut answers = Vec::new();
    for _ in 0..20 {
        for courier in &processes {
            let list = http
                .get(format!("{}/v2/workflows/dlq", courier.base))
                .bearer_auth(TOKEN);
            answers.push(send(list).await.0);
        }
    }
    let admitted = answers.iter().filter(|&&status| status == 200).count();
    let refused = answers.iter().filter(|&&status| status == 429).count();
    assert_eq!(
        (admitted, refused),
        (30, 10),
        "thirty of forty requests through two processes: {answers:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_session_opened_through_one_process_works_on_the_others() {
    let Some((_database, processes)) = processes(2) else {
        return;
    };
    // No redirects followed: a page answered 200 is served to the session, a 303 to the login
    // form is a refusal.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let login = http
        .post(format!("{}/console/login", processes[0].management))
        .form(&[
            ("username", CUSTOMER),
            ("password", KEY),
            ("next", "/console/dlq"),
        ])
        .send()
        .await
        .expect("login");
    assert_eq!(login.status().as_u16(), 303);
    let cookie = login
        .headers()
        .get(reqwest::header::SET_COOKIE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .expect("a session cookie")
        .to_owned();
    let page = |courier: &Courier| {
        http.get(format!("{}/console/dlq", courier.management))
            .header(reqwest::header::COOKIE, &cookie)
            .send()
    };
    for courier in &processes {
        let status = page(courier).await.expect("page").status().as_u16();
        assert_eq!(status, 200, "the session on {}", courier.management);
    }
    // Signed out through the other process: gone on both. The logout form carries the
    // session's CSRF token, read from a page.
    let html = page(&processes[1])
        .await
        .expect("page")
        .text()
        .await
        .expect("html");
    let csrf = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the page's CSRF token");
    let logout = http
        .post(format!("{}/console/logout", processes[1].management))
        .header(reqwest::header::COOKIE, &cookie)
        .header(reqwest::header::ORIGIN, &processes[1].management)
        .form(&[("csrf", csrf)])
        .send()
        .await
        .expect("logout");
    assert_eq!(logout.status().as_u16(), 303);
    for courier in &processes {
        let status = page(courier).await.expect("page").status().as_u16();
        assert_eq!(
            status, 303,
            "after logout, {} sends to the login form",
            courier.management
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_count_the_requests_of_every_process() {
    let Some((_database, processes)) = processes(2) else {
        return;
    };
    let http = reqwest::Client::new();
    for (courier, requests) in processes.iter().zip([6, 4]) {
        for _ in 0..requests {
            let list = http
                .get(format!("{}/v2/workflows/dlq", courier.base))
                .bearer_auth(TOKEN);
            assert_eq!(send(list).await.0, 200);
        }
    }
    // Each process writes its counters every second.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    for courier in &processes {
        let (status, stats) = send(
            http.get(format!("{}/v2/svc/stats", courier.management))
                .basic_auth(CUSTOMER, Some(KEY)),
        )
        .await;
        assert_eq!(status, 200, "{stats}");
        let requests: f64 = stats["daily_requests"]
            .as_array()
            .expect("daily_requests")
            .iter()
            .filter_map(|point| point["y"].as_f64())
            .sum();
        assert!(
            requests >= 10.0,
            "{} counts {requests} requests of the ten made through both",
            courier.base
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_killed_during_a_bulk_delete_loses_and_duplicates_nothing() {
    let Some((_database, mut processes)) = processes(2) else {
        return;
    };
    let http = reqwest::Client::new();
    for batch in 0..10 {
        insert(&http, &processes[0].base, batch * 200, 100, "doomed").await;
        insert(&http, &processes[0].base, batch * 200 + 100, 100, "kept").await;
    }
    let victim = processes.remove(0);
    let survivor = &processes[0];
    // A bulk delete of every `doomed` entry, one batch of 1000, with SIGKILL on its way.
    let delete = http
        .delete(format!("{}/v2/workflows/dlq", victim.base))
        .bearer_auth(TOKEN)
        .query(&[("label", "doomed"), ("count", "1000")])
        .send();
    let kill = async {
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        victim.signal("-KILL");
    };
    let (answer, ()) = tokio::join!(delete, kill);
    drop(victim);
    let ids = walk(&http, std::slice::from_ref(survivor), TOKEN).await;
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "no entry listed twice");
    let kept = (0..10)
        .flat_map(|batch| (batch * 200 + 100..batch * 200 + 200).map(|n| format!("e{n:06}")))
        .collect::<BTreeSet<_>>();
    let left: BTreeSet<String> = ids.into_iter().collect();
    assert!(
        kept.is_subset(&left),
        "every entry the delete did not name is still there"
    );
    let doomed_left = left.len() - kept.len();
    // One transaction: all of the batch went, or none of it did.
    assert!(
        doomed_left == 0 || doomed_left == 1000,
        "{doomed_left} doomed entries left: a bulk delete is all or nothing (answer: {:?})",
        answer.map(|response| response.status())
    );
    // The survivor goes on serving, writes included.
    insert(&http, &survivor.base, 5_000, 1, "after").await;
}
