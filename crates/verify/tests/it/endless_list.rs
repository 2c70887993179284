//! A list that never ends, page after page of a real entry with a cursor: the scenarios that
//! need the whole list say they could not finish it instead of passing on what they read.

use courier_service::testing::TestService;
use courier_verify::{Outcome, Verifier};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A page courier's own service lists, with a cursor added so it never ends.
async fn endless_page() -> Vec<u8> {
    let service = TestService::start().await;
    service
        .insert_dlq(&[serde_json::json!({
            "workflowRunId": "wfr_1", "workflowUrl": "https://w.example/a", "workflowCreatedAt": 1,
            "url": "https://w.example/a", "method": "POST", "maxRetries": 1, "labels": ["x"]
        })])
        .await;
    let mut page: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/v2/workflows/dlq", service.base_url()))
        .bearer_auth(&service.service_token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    page["cursor"] = "more".into();
    serde_json::to_vec(&page).unwrap()
}

/// Answers every request with `page`, one request per connection.
async fn serve_forever(page: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let page = page.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buffer = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buffer[..n]),
                    }
                }
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    page.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
                let _ = socket.write_all(&page).await;
            });
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn a_filter_over_a_list_that_never_ends_is_inconclusive() {
    let url = serve_forever(endless_page().await).await;
    let report = Verifier::builder(url)
        .service_token("token")
        .scenarios(["filter-label"])
        .build()
        .unwrap()
        .run()
        .await;
    let scenario = report.scenario("filter-label").unwrap();
    assert_eq!(
        scenario.outcome,
        Outcome::Inconclusive,
        "{}",
        report.to_table()
    );
    let reason = scenario.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("stopped after 20 pages"), "{reason}");
    assert!(!report.passed());
}
