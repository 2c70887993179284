//! The recording server and the assertions every test makes on what it recorded.

use super::*;
use std::pin::Pin;

/// One canned answer: a status and a body (JSON, or nothing).
pub(super) struct Reply {
    pub status: u16,
    pub body: Option<String>,
}

impl Reply {
    pub(super) fn json(status: u16, body: Value) -> Reply {
        Reply {
            status,
            body: Some(body.to_string()),
        }
    }

    pub(super) fn empty(status: u16) -> Reply {
        Reply { status, body: None }
    }
}

/// A request as it arrived on the wire.
#[derive(Clone, Debug)]
pub(super) struct Recorded {
    pub method: String,
    /// The raw request target: path and query, exactly as sent.
    pub target: String,
    /// Header names lowercased, values trimmed, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub(super) fn path(&self) -> &str {
        self.target
            .split_once('?')
            .map_or(&self.target, |(path, _)| path)
    }

    pub(super) fn raw_query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, query)| query)
    }

    /// The query as ordered, percent-decoded `(key, value)` pairs.
    pub(super) fn query(&self) -> Vec<(String, String)> {
        parse_query(self.raw_query())
    }

    /// The query pairs sorted by key only (a stable sort keeps the order of repeated keys),
    /// so assertions do not depend on the order in which the client writes different keys.
    pub(super) fn query_by_key(&self) -> Vec<(String, String)> {
        let mut pairs = self.query();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs
    }

    /// The value of a header that must occur at most once.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        assert!(
            values.len() <= 1,
            "header {name} sent {} times",
            values.len()
        );
        values.first().copied()
    }
}

/// A wiremock server on `127.0.0.1` that answers the canned replies in order (each once) and
/// records every request it reads.
pub(super) struct RecordingServer {
    pub base_url: String,
    pub server: MockServer,
}

impl RecordingServer {
    pub(super) async fn start(responses: Vec<Reply>) -> RecordingServer {
        let server = MockServer::start().await;
        // Mocks of equal priority answer in the order they were mounted; once used up, each
        // steps aside for the next.
        for reply in responses {
            let answer = ResponseTemplate::new(reply.status);
            let answer = match reply.body {
                Some(body) => answer.set_body_raw(body, "application/json"),
                None => answer,
            };
            Mock::given(matchers::any())
                .respond_with(answer)
                .up_to_n_times(1)
                .mount(&server)
                .await;
        }
        RecordingServer {
            base_url: server.uri(),
            server,
        }
    }

    pub(super) async fn requests(&self) -> Vec<Recorded> {
        let received = self.server.received_requests().await;
        received
            .expect("request recording is on")
            .into_iter()
            .map(|request| Recorded {
                method: request.method.to_string(),
                target: match request.url.query() {
                    Some(query) => format!("{}?{query}", request.url.path()),
                    None => request.url.path().to_owned(),
                },
                headers: request
                    .headers
                    .iter()
                    .map(|(name, value)| {
                        let value = value.to_str().expect("header value is text");
                        (name.as_str().to_owned(), value.trim().to_owned())
                    })
                    .collect(),
                body: request.body,
            })
            .collect()
    }

    /// The one request the server received.
    pub(super) async fn only_request(&self) -> Recorded {
        let requests = self.requests().await;
        assert_eq!(requests.len(), 1, "expected one request: {requests:#?}");
        requests.into_iter().next().expect("one request")
    }

    pub(super) fn messaging(&self) -> messaging::Client {
        messaging::Client::with_token(&self.base_url, TOKEN)
    }

    pub(super) fn management(&self) -> management::Client {
        management::Client::with_credentials(&self.base_url, CUSTOMER_ID, MANAGEMENT_KEY)
    }
}

/// A client with credentials for the server, and the check that a request carried them.
pub(super) type Credentials<C> = (fn(&RecordingServer) -> C, fn(&Recorded));

/// One call, expected to succeed, against a server that answers `reply`: the answer and the one
/// request the server received, whose credentials `client_of` made it send (checked by `auth`).
pub(super) async fn exchange<C, T, Fut>(
    reply: Reply,
    (client_of, auth): Credentials<C>,
    call: impl FnOnce(C) -> Fut,
) -> (ResponseValue<T>, Recorded)
where
    Fut: Future<Output = Result<ResponseValue<T>, CourierError>>,
{
    let server = RecordingServer::start(vec![reply]).await;
    let response = call(client_of(&server)).await.expect("the call succeeds");
    let request = server.only_request().await;
    auth(&request);
    (response, request)
}

/// [`exchange`] answered by the canned JSON `canned` (a 200): the decoded answer, which must
/// serialise back to `canned` exactly, and the request.
pub(super) async fn round_trip<C, T, Fut>(
    canned: Value,
    credentials: Credentials<C>,
    call: impl FnOnce(C) -> Fut,
) -> (T, Recorded)
where
    T: serde::Serialize,
    Fut: Future<Output = Result<ResponseValue<T>, CourierError>>,
{
    let (response, request) = exchange(Reply::json(200, canned.clone()), credentials, call).await;
    let decoded = response.into_inner();
    assert_round_trip(&decoded, &canned);
    (decoded, request)
}

/// One request through a client, its successful answer dropped, so that calls of different
/// operations fit in one list.
pub(super) type Call<'a> = Pin<Box<dyn Future<Output = Result<(), CourierError>> + 'a>>;

pub(super) fn call<'a, T: 'a>(
    sent: impl Future<Output = Result<T, CourierError>> + 'a,
) -> Call<'a> {
    Box::pin(async move { sent.await.map(drop) })
}

/// A messaging client with the bearer token, for [`exchange`].
pub(super) const BEARER: Credentials<messaging::Client> =
    (RecordingServer::messaging, assert_bearer);

/// A management client with Basic credentials, for [`exchange`].
pub(super) const BASIC_AUTH: Credentials<management::Client> =
    (RecordingServer::management, assert_basic);

/// The request's method and its target: path and query exactly as sent.
pub(super) fn assert_sent(request: &Recorded, method: &str, target: &str) {
    assert_eq!(
        (request.method.as_str(), request.target.as_str()),
        (method, target),
        "{request:#?}"
    );
}

/// Splits a raw query into percent-decoded pairs (`+` is a space), in order.
pub(super) fn parse_query(raw: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(raw.as_bytes())
        .into_owned()
        .collect()
}

/// Owned `(key, value)` pairs from a literal list.
pub(super) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A messaging request authenticated by the bearer header only.
pub(super) fn assert_bearer(request: &Recorded) {
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str()),
        "{request:#?}"
    );
    assert!(
        !request.query().iter().any(|(k, _)| k == "service_token"),
        "bearer clients must not also send the query token: {request:#?}"
    );
}

/// A management request authenticated by Basic credentials.
pub(super) fn assert_basic(request: &Recorded) {
    assert_eq!(request.header("authorization"), Some(BASIC), "{request:#?}");
    assert!(
        !request.query().iter().any(|(k, _)| k == "service_token"),
        "{request:#?}"
    );
}

/// Decoded values serialise back to the canned body: every field was read, none was lost.
pub(super) fn assert_round_trip<T: serde::Serialize>(decoded: &T, canned: &Value) {
    assert_eq!(
        &serde_json::to_value(decoded).expect("serialise"),
        canned,
        "decoded value differs from the canned body"
    );
}
