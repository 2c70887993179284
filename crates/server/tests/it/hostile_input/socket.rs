//! Over the socket: huge headers, long queries, bad escapes, truncated requests, big bodies.

use super::*;

const TOKEN: &str = "hostile-token";

/// The smallest implementation of both traits: list answers an empty page, the rest a fixed
/// error; management refuses every credential.
struct Fixed;

fn fixed() -> courier_models::ErrorBody {
    error_body("fixed answer")
}

impl MessagingApi for Fixed {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        credentials.expect_token(TOKEN, "wrong token")
    }

    async fn list_workflow_dlq(&self, _: (), _: ListWorkflowDlqRequest) -> ListWorkflowDlqResponse {
        ListWorkflowDlqResponse::Ok(
            courier_models::WorkflowDlqPage {
                cursor: None,
                messages: Vec::new(),
            }
            .into(),
        )
    }

    async fn get_workflow_dlq(&self, _: (), _: GetWorkflowDlqRequest) -> GetWorkflowDlqResponse {
        GetWorkflowDlqResponse::NotFound(fixed())
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        _: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        DeleteWorkflowDlqBulkResponse::InternalServerError(fixed())
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        _: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        DeleteDlqMessageResponse::NotFound(fixed())
    }

    async fn get_url_group(&self, _: (), _: GetUrlGroupRequest) -> GetUrlGroupResponse {
        GetUrlGroupResponse::NotFound(fixed())
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        _: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        CancelWorkflowRunResponse::NotFound(fixed())
    }

    async fn cancel_workflow_runs(
        &self,
        _: (),
        _: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResult {
            cancelled: 0,
            cursor: None,
        })
    }
}

impl ManagementApi for Fixed {
    type Principal = ();

    async fn authenticate(&self, _: ManagementCredentials) -> Result<(), Unauthorized> {
        Err(Unauthorized::basic("no management here"))
    }

    async fn get_account_stats(&self, _: (), _: GetAccountStatsRequest) -> GetAccountStatsResponse {
        GetAccountStatsResponse::InternalServerError(fixed())
    }

    async fn get_search_index(&self, _: (), _: GetSearchIndexRequest) -> GetSearchIndexResponse {
        GetSearchIndexResponse::InternalServerError(fixed())
    }

    async fn get_search_index_stats(
        &self,
        _: (),
        _: GetSearchIndexStatsRequest,
    ) -> GetSearchIndexStatsResponse {
        GetSearchIndexStatsResponse::InternalServerError(fixed())
    }

    async fn rotate_token(&self, _: (), _: RotateTokenRequest) -> RotateTokenResponse {
        RotateTokenResponse::InternalServerError(fixed())
    }
}

async fn serve() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let api = Arc::new(Fixed);
    let app = router(api.clone(), api);
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    address
}

/// What the server did with one raw request.
#[derive(Debug)]
enum Outcome {
    Answered {
        status: u16,
        body: String,
    },
    /// Closed (or reset) the connection without an answer.
    Closed,
}

/// Sends `request` (writing and reading at once, so an early answer is not lost to a reset),
/// optionally half-closes, and reads until the server closes.
async fn exchange(address: SocketAddr, request: Vec<u8>, half_close: bool) -> Outcome {
    let stream = TcpStream::connect(address).await.expect("connect");
    let (mut reader, mut writer) = stream.into_split();
    let sending = tokio::spawn(async move {
        // The server may answer and close before reading everything: a failed write is fine.
        if writer.write_all(&request).await.is_ok() && half_close {
            let _ = writer.shutdown().await;
        }
        writer
    });
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), reader.read_to_end(&mut answer)).await;
    assert!(
        read.is_ok(),
        "the server neither answered nor closed within 20 s"
    );
    drop(sending.await.expect("writer task"));
    let text = String::from_utf8_lossy(&answer);
    let Some(status) = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
    else {
        assert!(answer.is_empty(), "not an HTTP answer: {text:?}");
        return Outcome::Closed;
    };
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, body)| body)
        .to_owned();
    Outcome::Answered { status, body }
}

fn get(target: &[u8], extra_headers: &str) -> Vec<u8> {
    let mut request = b"GET ".to_vec();
    request.extend_from_slice(target);
    request.extend_from_slice(
        format!(" HTTP/1.1\r\nhost: courier\r\nconnection: close\r\n{extra_headers}\r\n")
            .as_bytes(),
    );
    request
}

fn bearer() -> String {
    format!("authorization: Bearer {TOKEN}\r\n")
}

/// A 4xx (or, where `may_close`, a closed connection); returns the JSON error message if any.
fn refused(outcome: &Outcome, may_close: bool, what: &str) -> Option<String> {
    match outcome {
        Outcome::Answered { status, body } => {
            assert!((400..500).contains(status), "{what}: {status} {body}");
            serde_json::from_str::<serde_json::Value>(body)
                .ok()
                .and_then(|json| json["error"].as_str().map(str::to_owned))
        }
        Outcome::Closed => {
            assert!(may_close, "{what}: closed without an answer");
            None
        }
    }
}

fn status(outcome: &Outcome) -> Option<u16> {
    match outcome {
        Outcome::Answered { status, .. } => Some(*status),
        Outcome::Closed => None,
    }
}

async fn still_serving(address: SocketAddr, after: &str) {
    let outcome = exchange(address, get(b"/v2/workflows/dlq?count=5", &bearer()), false).await;
    match outcome {
        Outcome::Answered { status: 200, body } => {
            assert_eq!(body, r#"{"messages":[]}"#, "after {after}")
        }
        other => panic!("after {after}, a valid request got {other:?}"),
    }
}

#[tokio::test]
async fn hostile_requests_are_refused_and_the_server_keeps_serving() {
    let address = serve().await;
    still_serving(address, "start").await;

    // 100 KB query: past the `http` crate's 64 KiB URI limit hyper answers 414 itself.
    let target = format!("/v2/workflows/dlq?label={}", "a".repeat(100_000));
    let outcome = exchange(address, get(target.as_bytes(), &bearer()), false).await;
    refused(&outcome, false, "100 KB query");
    assert_eq!(status(&outcome), Some(414), "{outcome:?}");
    still_serving(address, "100 KB query").await;

    // Over the router's own limit but under hyper's: 400 with the error body, before routing.
    let target = format!(
        "/v2/workflows/dlq?label={}",
        "a,".repeat(MAX_QUERY_BYTES / 2)
    );
    let outcome = exchange(address, get(target.as_bytes(), &bearer()), false).await;
    let message = refused(&outcome, false, "long query").expect("JSON error");
    assert_eq!(status(&outcome), Some(400));
    assert!(message.contains("-byte limit"), "{message}");
    still_serving(address, "long query").await;

    // A query just under the limit is parsed as usual (one long value: many values would meet
    // the spec's cap on values per filter first).
    let target = format!(
        "/v2/workflows/dlq?label={}",
        "a".repeat(MAX_QUERY_BYTES - 20)
    );
    let outcome = exchange(address, get(target.as_bytes(), &bearer()), false).await;
    assert_eq!(status(&outcome), Some(200), "{outcome:?}");

    // 1 MB header: past hyper's read buffer, 431 (or a reset while the rest is still sent).
    let header = format!("x-padding: {}\r\n{}", "p".repeat(1 << 20), bearer());
    let outcome = exchange(address, get(b"/v2/workflows/dlq", &header), false).await;
    refused(&outcome, true, "1 MB header");
    assert!(matches!(status(&outcome), Some(431) | None), "{outcome:?}");
    still_serving(address, "1 MB header").await;

    // Too many headers: hyper's limit is 100.
    let header: String = (0..200).map(|n| format!("x-h{n}: v\r\n")).collect();
    let outcome = exchange(address, get(b"/v2/workflows/dlq", &header), false).await;
    refused(&outcome, true, "200 headers");
    still_serving(address, "200 headers").await;

    // A big token that hyper lets through reaches authentication and is a 401 with the body.
    let header = format!("authorization: Bearer {}\r\n", "t".repeat(200_000));
    let outcome = exchange(address, get(b"/v2/workflows/dlq", &header), false).await;
    assert_eq!(status(&outcome), Some(401), "{outcome:?}");
    assert_eq!(
        refused(&outcome, false, "big token").as_deref(),
        Some("wrong token")
    );

    // Invalid UTF-8 behind percent escapes in the path and in the query: 400 with the body.
    let outcome = exchange(
        address,
        get(b"/v2/workflows/dlq/%FF%FE?label=%C3%28", &bearer()),
        false,
    )
    .await;
    assert_eq!(status(&outcome), Some(400), "{outcome:?}");
    let message = refused(&outcome, false, "bad path escape").expect("JSON error");
    assert!(message.contains("path"), "{message}");
    let outcome = exchange(
        address,
        get(b"/v2/workflows/dlq?label=%C3%28&count=1", &bearer()),
        false,
    )
    .await;
    assert_eq!(status(&outcome), Some(400), "{outcome:?}");
    let message = refused(&outcome, false, "bad query escape").expect("JSON error");
    assert!(message.contains("`label`"), "{message}");
    // ... and before authentication the query token is simply not found: 401, not a panic.
    let outcome = exchange(
        address,
        get(b"/v2/workflows/dlq?service_token=%FF", ""),
        false,
    )
    .await;
    assert_eq!(status(&outcome), Some(401), "{outcome:?}");
    still_serving(address, "bad escapes").await;

    // Raw bytes that are not UTF-8 in the request line: malformed HTTP, refused by hyper.
    let outcome = exchange(
        address,
        get(b"/v2/workflows/\xff\xfe?label=\xc3\x28", &bearer()),
        false,
    )
    .await;
    refused(&outcome, true, "raw non-UTF-8 request line");
    still_serving(address, "raw non-UTF-8 request line").await;

    // A 20 MB body announced: 413 with the error body, without reading it.
    let request = format!(
        "DELETE /v2/workflows/dlq HTTP/1.1\r\nhost: courier\r\n{}content-length: 20000000\r\n\r\n{}",
        bearer(),
        "x".repeat(1000)
    );
    let outcome = exchange(address, request.into_bytes(), false).await;
    assert_eq!(status(&outcome), Some(413), "{outcome:?}");
    let message = refused(&outcome, false, "20 MB body").expect("JSON error");
    assert!(message.contains("limit"), "{message}");
    still_serving(address, "20 MB body").await;

    // A request cut off mid-header, then the client closes: no answer but a closed connection
    // (or a 400), and nothing left behind that stops the next request.
    let outcome = exchange(
        address,
        b"GET /v2/workflows/dlq?la HTTP/1.1\r\nhost: cou".to_vec(),
        true,
    )
    .await;
    refused(&outcome, true, "truncated request");
    // Cut off mid-body (no operation reads a body; this one has no credentials).
    let request = b"POST /v2/svc/user/rotatetoken HTTP/1.1\r\nhost: courier\r\ncontent-length: 100\r\n\r\nabc";
    let outcome = exchange(address, request.to_vec(), true).await;
    refused(&outcome, true, "truncated body");
    still_serving(address, "truncated requests").await;
}
