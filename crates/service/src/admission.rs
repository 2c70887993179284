//! Who gets past the credentials and how much: the sign-in guard, the account's rate limit
//! (`docs/decisions.md#d16-order-of-checks`, `docs/decisions.md#d18-rate-limit-headers`), and
//! the deadline for reading a request's body.

use crate::api::Service;
use crate::signin::{CredentialKind, SignInGuard};
use crate::time::now_ms;
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;
use std::time::Duration;

/// Which interface's credentials a route takes.
#[derive(Clone, Copy)]
pub enum Interface {
    Messaging,
    Management,
}

/// What [`admit`] needs: the service, the sign-in guard shared by every listener, the interface.
#[derive(Clone)]
pub struct AdmitState {
    pub service: Arc<Service>,
    pub guard: Arc<SignInGuard>,
    pub interface: Interface,
}

/// The sign-in guard, then the rate limit, after the credentials (`docs/decisions.md#d16-order-of-checks`). A client the
/// sign-in guard has closed gets 429 before its credentials are compared, and wrong credentials
/// count as a failed sign-in of the client's address ([`crate::signin`]). A request whose
/// credentials are missing or wrong goes on to the generated handler, which answers 401, and
/// spends nothing of the account's limit; only an authenticated request is counted, and refused
/// with 429 before its parameters are read. The handler checks the credentials again; a
/// comparison costs nanoseconds and keeps the generated router the only place that decides the
/// 401.
pub async fn admit(
    axum::extract::State(state): axum::extract::State<AdmitState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    use courier_server::{ManagementApi, MessagingApi, auth, query::Query};
    let AdmitState {
        service,
        guard,
        interface,
    } = state;
    let client = crate::signin::client_address(request.extensions());
    let query = Query::parse(request.uri().query().unwrap_or(""));
    let closed = |guard: &SignInGuard| guard.wait(client).map(crate::signin::too_many_failures);
    let authenticated = match interface {
        Interface::Messaging => match auth::messaging_credentials(request.headers(), &query) {
            Err(_) => false,
            Ok(credentials) => {
                if let Some(refusal) = closed(&guard) {
                    return refusal;
                }
                let right = MessagingApi::authenticate(&*service, credentials)
                    .await
                    .is_ok();
                if !right {
                    guard.failed(client, CredentialKind::ServiceToken);
                }
                right
            }
        },
        Interface::Management => match auth::management_credentials(request.headers(), &query) {
            Err(_) => false,
            Ok(credentials) => {
                if let Some(refusal) = closed(&guard) {
                    return refusal;
                }
                let right = ManagementApi::authenticate(&*service, credentials)
                    .await
                    .is_ok();
                if !right {
                    guard.failed(client, CredentialKind::ManagementKey);
                }
                right
            }
        },
    };
    if !authenticated {
        return next.run(request).await;
    }
    let decision = service.rate_limit().await;
    let mut response = match decision.refused {
        None => {
            // Authenticating read the account; the handler's second check needs no new read.
            let mut response = crate::api::account_read(next.run(request)).await;
            response.extensions_mut().insert(crate::metering::Admitted);
            response
        }
        Some(refusal) => too_many_requests(refusal),
    };
    rate_limit_headers(&mut response, &decision);
    response
}

fn too_many_requests(refusal: crate::ratelimit::Refusal) -> Response {
    let message = match refusal {
        crate::ratelimit::Refusal::PerSecond => {
            "too many requests: the account's max_requests_per_second is reached; retry after the time in Retry-After"
        }
        crate::ratelimit::Refusal::Daily => {
            "too many requests: the account's max_requests_per_day_hard is reached for this UTC day; retry after the time in Retry-After"
        }
    };
    courier_server::runtime::error(StatusCode::TOO_MANY_REQUESTS, message)
}

/// The rate-limit headers of an authenticated interface response (`docs/decisions.md#d18-rate-limit-headers`): the
/// per-second window as `Burst-RateLimit-*` always; the daily limit as `RateLimit-*` on a
/// success and on its own 429, but never on a per-second 429, whose `RateLimit-*` the official
/// clients would read as the daily limit. `Retry-After` on every 429.
fn rate_limit_headers(response: &mut Response, decision: &crate::ratelimit::Decision) {
    use crate::ratelimit::Refusal;
    let now = now_ms();
    let headers = response.headers_mut();
    let mut set = |name: &'static str, value: u64| {
        headers.insert(name, axum::http::HeaderValue::from(value));
    };
    let burst = &decision.per_second;
    set("burst-ratelimit-limit", burst.limit);
    set("burst-ratelimit-remaining", burst.remaining);
    set("burst-ratelimit-reset", burst.reset_unix_seconds());
    if decision.refused != Some(Refusal::PerSecond) {
        let daily = &decision.daily;
        set("ratelimit-limit", daily.limit);
        set("ratelimit-remaining", daily.remaining);
        set("ratelimit-reset", daily.reset_unix_seconds());
    }
    match decision.refused {
        Some(Refusal::PerSecond) => set("retry-after", burst.retry_after_seconds(now)),
        Some(Refusal::Daily) => set("retry-after", decision.daily.retry_after_seconds(now)),
        None => {}
    }
}

/// How long a client may take to send a request's body, once its headers are in. Without it a
/// body trickled a byte at a time would hold the connection and its task for as long as the
/// client likes; 30 s carry the largest body the service reads at about 4.5 Mbit/s.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How a router's request bodies are read ([`read_body_within`]): within `deadline` of the
/// headers, at most `limit` bytes, with `too_large` the answer to a larger one.
#[derive(Clone, Copy)]
pub struct BodyRead {
    pub deadline: Duration,
    pub limit: usize,
    pub too_large: fn() -> Response,
}

impl BodyRead {
    /// The interfaces' bodies: up to [`courier_server::runtime::MAX_BODY_BYTES`], 413 with the
    /// JSON error beyond.
    pub fn api(deadline: Duration) -> BodyRead {
        BodyRead {
            deadline,
            limit: courier_server::runtime::MAX_BODY_BYTES,
            too_large: || {
                courier_server::runtime::error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "request body is larger than the {}-byte limit",
                        courier_server::runtime::MAX_BODY_BYTES
                    ),
                )
            },
        }
    }
}

/// Reads the whole request body within the deadline (at most the limit, see [`BodyRead`])
/// before the handler runs: a body not in by then is answered 408 and the connection closed.
/// One over the limit is answered at once when its declared length says so, else as soon as the
/// bytes read pass the limit: never buffered to its end. Every handler reads its body whole
/// anyway, so nothing streams that could not wait.
///
/// After such a 413 the rest of the body is read and thrown away ([`discard_the_rest`]), as far
/// as the interfaces' own limit and the deadline go: a client that sends its whole body before
/// it reads (most do) then gets the answer, where closing at once would reset the connection
/// under it.
pub async fn read_body_within(
    axum::extract::State(rule): axum::extract::State<BodyRead>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let BodyRead {
        deadline,
        limit,
        too_large,
    } = rule;
    let until = tokio::time::Instant::now() + deadline;
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let (parts, body) = request.into_parts();
    if declared.is_some_and(|length| length > limit as u64) {
        discard_the_rest(body, 0, until);
        return too_large();
    }
    match tokio::time::timeout_at(until, read_at_most(body, limit)).await {
        Ok(Read::Whole(bytes)) => {
            let body = axum::body::Body::from(bytes);
            next.run(axum::extract::Request::from_parts(parts, body))
                .await
        }
        Ok(Read::TooLarge { rest, read }) => {
            discard_the_rest(rest, read, until);
            too_large()
        }
        Ok(Read::Failed(error)) => courier_server::runtime::error(
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {error}"),
        ),
        Err(_) => {
            let mut response = courier_server::runtime::error(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s of its headers",
                    deadline.as_secs_f64()
                ),
            );
            // The rest of the body may still be coming: the connection cannot carry another
            // request, so hyper closes it after this answer.
            response.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
            response
        }
    }
}

/// What [`read_at_most`] read.
enum Read {
    Whole(axum::body::Bytes),
    /// Beyond the limit after `read` bytes; `rest` is the body still to come.
    TooLarge {
        rest: axum::body::Body,
        read: usize,
    },
    Failed(axum::Error),
}

/// The body, read frame by frame until it ends or passes `limit`.
async fn read_at_most(mut body: axum::body::Body, limit: usize) -> Read {
    use http_body_util::BodyExt as _;
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let data = match frame {
            Ok(frame) => match frame.into_data() {
                Ok(data) => data,
                // Trailers: nothing to keep.
                Err(_) => continue,
            },
            Err(error) => return Read::Failed(error),
        };
        if bytes.len() + data.len() > limit {
            let read = bytes.len() + data.len();
            return Read::TooLarge { rest: body, read };
        }
        bytes.extend_from_slice(&data);
    }
    Read::Whole(bytes.into())
}

/// Reads what is left of a refused body, `read` bytes in, and keeps none of it, until it ends,
/// the interfaces' limit ([`courier_server::runtime::MAX_BODY_BYTES`]) is reached or `until`
/// passes. Then the connection carries the next request, or, the body dropped unfinished, hyper
/// closes it.
fn discard_the_rest(mut body: axum::body::Body, read: usize, until: tokio::time::Instant) {
    use http_body_util::BodyExt as _;
    let mut left = courier_server::runtime::MAX_BODY_BYTES.saturating_sub(read);
    if left == 0 {
        return;
    }
    tokio::spawn(tokio::time::timeout_at(until, async move {
        while let Some(Ok(frame)) = body.frame().await {
            let size = frame.data_ref().map_or(0, |data| data.len());
            if size >= left {
                return;
            }
            left -= size;
        }
    }));
}
