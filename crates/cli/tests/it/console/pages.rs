//! What the console shows and does: its filters and pages equal to the API's listing, bulk
//! delete and cancel as the API sees them, every page with demo data, and where it is served.

use super::{
    api_get_status, api_list, attribute_after, client, page, row_ids, send, signed_in, start,
    submit,
};
use crate::common::Courier;
use reqwest::StatusCode;

#[tokio::test]
async fn filters_and_pages_show_exactly_what_the_api_lists() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let queries = [
        "label=billing",
        "label=billing,etl&count=25",
        "failureFunctionState=CALLBACK_FAIL&failureFunctionState=CALLBACK_SUCCESS&count=50",
        "callerIp=203.0.113.7&flowControlKey=tenant-acme",
        "workflowUrl=https%3A%2F%2Fshop.example.com%2Fapi%2Fworkflows%2Fcheckout&count=10",
        "workflowRunId=wfr_demo01010",
    ];
    for query in queries {
        let (status, api_ids, api_cursor) = api_list(base, query).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert!(!api_ids.is_empty(), "the demo data matches {query}");
        let (status, html) = page(base, &format!("/console/dlq?{query}"), &cookie).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert_eq!(row_ids(&html), api_ids, "{query}");
        // The next page follows the API's cursor.
        if let Some(cursor) = api_cursor {
            let next = attribute_after(&html, "id=\"next-page\"", "href")
                .expect("a next-page link")
                .replace("&amp;", "&");
            assert!(next.ends_with(&format!("cursor={cursor}")), "{next}");
            let (_, api_next, _) = api_list(base, &format!("{query}&cursor={cursor}")).await;
            let (_, next_html) = page(base, &next, &cookie).await;
            assert_eq!(row_ids(&next_html), api_next, "second page of {query}");
        } else {
            assert!(!html.contains("id=\"next-page\""), "{query}");
            let count = attribute_after(&html, "id=\"match-count\"", "data-count").unwrap();
            assert_eq!(count, api_ids.len().to_string(), "the count of {query}");
        }
    }
    // Empty form fields mean "no filter" (a form sends every field).
    let (status, html) = page(base, "/console/dlq?label=&callerIp=&count=10", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(row_ids(&html), api_list(base, "count=10").await.1);
    // What the API refuses, the console refuses, with the API's reason.
    let (status, html) = page(base, "/console/dlq?failureFunctionState=NOPE", &cookie).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        html.contains("failureFunctionState"),
        "the message names the filter"
    );
    assert_eq!(
        api_list(base, "failureFunctionState=NOPE").await.0,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        page(base, "/console/dlq?cursor=not-a-cursor", &cookie)
            .await
            .0,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn bulk_delete_states_the_count_and_deletes_what_the_api_matches() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let filter = "label=beta&callerIp=192.0.2.44";
    let (_, matching, cursor) = api_list(base, filter).await;
    assert!(cursor.is_none() && !matching.is_empty());
    let (_, all_before, _) = api_list(base, "count=100").await;

    let (status, html) = page(base, &format!("/console/bulk-delete?{filter}"), &cookie).await;
    assert_eq!(status, StatusCode::OK);
    let stated = attribute_after(&html, "id=\"bulk-count\"", "data-count").unwrap();
    assert_eq!(stated, matching.len().to_string());
    assert!(html.contains(&format!("Delete {} entr", matching.len())));

    let action = format!("/console/bulk-delete?{filter}");
    let redirected = submit(base, &action, &cookie, &html).await;
    assert_eq!(redirected, format!("/console/dlq?{filter}"));
    assert!(
        api_list(base, filter).await.1.is_empty(),
        "every match is gone"
    );
    let (_, all_after, _) = api_list(base, "count=100").await;
    let survivors: Vec<_> = all_before
        .iter()
        .filter(|id| !matching.contains(id))
        .collect();
    assert!(
        survivors.iter().all(|id| all_after.contains(id)),
        "nothing else went"
    );
    let (_, html) = page(base, &redirected, &cookie).await;
    assert!(html.contains(&format!("Deleted {} entr", matching.len())));
}

#[tokio::test]
async fn a_delete_by_id_confirms_the_ids_and_goes_back_to_a_list_that_reads() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let (_, labelled, _) = api_list(base, "label=beta").await;
    let ids = &labelled[..2];
    let query = format!("dlqIds={}&dlqIds={}&label=beta", ids[0], ids[1]);

    let (status, html) = page(base, &format!("/console/bulk-delete?{query}"), &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        attribute_after(&html, "id=\"bulk-count\"", "data-count").as_deref(),
        Some("2")
    );
    // The list has no `dlqIds` filter: "Cancel" keeps the other filters, and the list reads them.
    let cancel = attribute_after(&html, "class=\"actions-row\"", "href").expect("a Cancel link");
    assert_eq!(cancel, "/console/dlq?label=beta");
    assert_eq!(page(base, &cancel, &cookie).await.0, StatusCode::OK);

    let action = attribute_after(&html, "id=\"bulk-count\"", "action")
        .expect("the confirmation's form")
        .replace("&amp;", "&");
    assert_eq!(action, format!("/console/bulk-delete?{query}"));
    let redirected = submit(base, &action, &cookie, &html).await;
    assert_eq!(redirected, "/console/dlq?label=beta");
    for id in ids {
        assert_eq!(
            api_get_status(base, id).await,
            StatusCode::NOT_FOUND,
            "{id}"
        );
    }
    let (status, html) = page(base, &redirected, &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Deleted 2 entries"), "{html}");
    assert_eq!(row_ids(&html), api_list(base, "label=beta").await.1);
}

#[tokio::test]
async fn the_run_page_shows_the_whole_run_and_cancel_removes_its_entries() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    // Entry 0 of the demo has a binary body and no failure function; entry 1 has JSON.
    let (_, ids, _) = api_list(base, "count=2").await;
    let (status, binary) = page(base, &format!("/console/dlq/{}", ids[0]), &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(binary.contains("binary, 5 bytes") && binary.contains("ff fe 00 00 80"));
    assert!(binary.contains("This run has no failure function."));
    let (_, json) = page(base, &format!("/console/dlq/{}", ids[1]), &cookie).await;
    assert!(json.contains("Request body") && json.contains("(JSON, "));
    assert!(json.contains("&quot;step&quot;:"), "pretty-printed JSON");
    assert!(json.contains("upstream answered"), "the response body");
    assert!(json.contains("Failure function response headers") || json.contains("state-CALLBACK"));

    let run_id = json
        .split("action=\"/console/runs/")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("a cancel form")
        .to_owned();
    let (_, of_run, _) = api_list(base, &format!("workflowRunId={run_id}")).await;
    assert!(!of_run.is_empty());
    let action = format!("/console/runs/{run_id}/cancel");
    submit(base, &action, &cookie, &json).await;
    assert!(
        api_list(base, &format!("workflowRunId={run_id}"))
            .await
            .1
            .is_empty()
    );

    assert_eq!(
        page(base, "/console/dlq/no-such-entry", &cookie).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn every_page_renders_the_demo_data() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let (status, topics) = page(base, "/console/topics", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        topics.contains("data-topic=\"orders\"") && topics.contains("data-topic=\"notifications\"")
    );
    assert!(topics.contains("https://warehouse.example.com/orders"));
    let (_, indexes) = page(base, "/console/search", &cookie).await;
    let index_path = format!("/console/search/{}", courier_service::demo::DEMO_INDEX_ID);
    assert!(indexes.contains(&index_path) && indexes.contains("products"));
    let (status, index) = page(base, &format!("{index_path}?period=7d"), &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        index.contains("data-series=\"query_latency_mean\""),
        "index charts"
    );
    assert!(
        !index.contains("demo-index-token"),
        "index tokens are secrets"
    );
    let (status, stats) = page(base, "/console/stats?period=3d", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        stats.contains("data-figure=\"dlq_message_count\">300<"),
        "the demo's 300 runs"
    );
    assert!(stats.contains("data-series=\"daily_requests\""));
    assert!(stats.contains("data-series=\"daily_workflow_messages.run_failed\""));
    assert!(stats.contains("<a href=\"/console/stats?period=3d\" aria-current=\"page\">"));
    let (status, _) = page(base, "/console/stats?period=2w", &cookie).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "only the API's periods");
}

#[tokio::test]
async fn no_console_turns_it_off() {
    let (courier, _data) = start(&["--no-console"]);
    let response = send(client().get(format!("{}/console/login", courier.management))).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_console_lives_on_the_management_listener() {
    let data = tempfile::tempdir().expect("tempdir");
    let courier = Courier::spawn(
        crate::common::courier_serve(data.path())
            .args(["--demo", "--management-listen", "127.0.0.1:0"])
            .env("RUST_LOG", "warn"),
    );
    assert_ne!(courier.base, courier.management);
    let on = |base: &str| {
        let url = format!("{base}/console/login");
        async move { client().get(url).send().await.unwrap().status() }
    };
    assert_eq!(on(&courier.management).await, StatusCode::OK);
    assert_eq!(on(&courier.base).await, StatusCode::NOT_FOUND);
}
