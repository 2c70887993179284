//! Reading request bodies: only on the routes that take one (the admin API, the console's
//! forms), only after their credentials (the login form is its own credential), within a
//! deadline and a size limit, and within one budget of bytes that every body held at once
//! shares. The interface's operations take no body and never read one.

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long a client may take to send a request's body, once its headers are in. Without it a
/// body trickled a byte at a time would hold the connection and its task for as long as the
/// client likes; 30 s carry the largest body the service reads at about 4.5 Mbit/s.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The bytes of request bodies the service holds at once, over every connection: four of the
/// admin API's largest batches ([`courier_server::runtime::MAX_BODY_BYTES`], 16 MiB). Beyond it
/// a body is answered 503 with `Retry-After` instead of read.
pub const BODY_BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// The budget of [`BODY_BUDGET_BYTES`], shared by every router and listener of a service.
#[derive(Clone)]
pub struct BodyBudget(Arc<Semaphore>);

impl BodyBudget {
    pub fn new(bytes: usize) -> BodyBudget {
        BodyBudget(Arc::new(Semaphore::new(bytes)))
    }

    /// `bytes` more of the budget, or `None` when that much is not free now.
    fn take(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        let bytes = u32::try_from(bytes).ok()?;
        self.0.clone().try_acquire_many_owned(bytes).ok()
    }

    /// Adds `bytes` to `held`; `false` when the budget has not that much free.
    fn grow(&self, held: &mut OwnedSemaphorePermit, bytes: usize) -> bool {
        match self.take(bytes) {
            Some(more) => {
                held.merge(more);
                true
            }
            None => false,
        }
    }
}

/// The 503 of a body that does not fit in what is left of the budget.
pub fn over_budget() -> Response {
    let mut response = courier_server::runtime::error(
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "the service is holding as many request bodies as its budget allows ({} MiB over all \
             requests); retry after the time in Retry-After",
            BODY_BUDGET_BYTES / (1024 * 1024)
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// The 408 of a body not in by its deadline. The rest of it may still be coming, so the
/// connection cannot carry another request: hyper closes it after this answer.
fn too_late(deadline: Duration) -> Response {
    let mut response = courier_server::runtime::error(
        StatusCode::REQUEST_TIMEOUT,
        format!(
            "the request body did not arrive within {} s of its headers",
            deadline.as_secs_f64()
        ),
    );
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// How a route's request bodies are read: within `deadline` of the headers, at most `limit`
/// bytes (`too_large` the answer to a larger one), within `budget`.
#[derive(Clone)]
pub struct BodyRead {
    pub deadline: Duration,
    pub limit: usize,
    pub too_large: fn() -> Response,
    pub budget: BodyBudget,
}

impl BodyRead {
    /// The admin API's bodies: up to [`courier_server::runtime::MAX_BODY_BYTES`], 413 with the
    /// JSON error beyond.
    pub fn api(deadline: Duration, budget: BodyBudget) -> BodyRead {
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
            budget,
        }
    }
}

/// A body read whole, with its share of the budget, given back when this is dropped.
pub struct ReadBody {
    pub bytes: Bytes,
    _held: OwnedSemaphorePermit,
}

/// The declared `Content-Length`, if any.
fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok())
}

/// Reads a whole body by `rule`, or the answer to send instead: 413 when it is over the limit
/// (at once when its declared length says so, else as soon as the bytes read pass it), 503 when
/// the budget cannot hold it (a declared length is taken from the budget before a byte is
/// read, a chunked body as it arrives), 408 when it is not in by the deadline, 400 when the
/// connection failed. After a 413 or 503 the rest of the body is read and thrown away
/// (`discard_the_rest`), so a client that sends its whole body before it reads (most do)
/// gets the answer, where closing at once would reset the connection under it.
pub async fn read_body(
    rule: &BodyRead,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Result<ReadBody, Response> {
    let until = tokio::time::Instant::now() + rule.deadline;
    let declared = declared_length(headers);
    if declared.is_some_and(|length| length > rule.limit as u64) {
        discard_the_rest(body, 0, until);
        return Err((rule.too_large)());
    }
    let declared = declared.map_or(0, |length| length as usize);
    let Some(held) = rule.budget.take(declared) else {
        discard_the_rest(body, 0, until);
        return Err(over_budget());
    };
    let reading = read_at_most(body, rule, Vec::with_capacity(declared), held);
    match tokio::time::timeout_at(until, reading).await {
        Ok(Read::Whole(bytes, held)) => Ok(ReadBody { bytes, _held: held }),
        Ok(Read::Refused { rest, read, answer }) => {
            discard_the_rest(rest, read, until);
            Err(answer)
        }
        Ok(Read::Failed(error)) => Err(courier_server::runtime::error(
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {error}"),
        )),
        Err(_) => Err(too_late(rule.deadline)),
    }
}

/// Reads the whole request body by `rule` ([`read_body`]) before the handler runs, holding its
/// share of the budget until the handler has answered. For a route whose body is its
/// credential (the console's login form); every other route reads after its credentials.
pub async fn read_body_within(
    axum::extract::State(rule): axum::extract::State<BodyRead>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let (parts, body) = request.into_parts();
    match read_body(&rule, &parts.headers, body).await {
        Ok(ReadBody { bytes, _held }) => {
            let body = axum::body::Body::from(bytes);
            let response = next
                .run(axum::extract::Request::from_parts(parts, body))
                .await;
            drop(_held);
            response
        }
        Err(answer) => answer,
    }
}

/// What [`read_at_most`] read.
enum Read {
    Whole(Bytes, OwnedSemaphorePermit),
    /// Over the limit or the budget after `read` bytes; `rest` is the body still to come.
    Refused {
        rest: axum::body::Body,
        read: usize,
        answer: Response,
    },
    Failed(axum::Error),
}

/// The body, read frame by frame into `bytes` until it ends or passes the limit or the budget;
/// `held` grows with what is read beyond what it already holds.
async fn read_at_most(
    mut body: axum::body::Body,
    rule: &BodyRead,
    mut bytes: Vec<u8>,
    mut held: OwnedSemaphorePermit,
) -> Read {
    use http_body_util::BodyExt as _;
    while let Some(frame) = body.frame().await {
        let data = match frame {
            Ok(frame) => match frame.into_data() {
                Ok(data) => data,
                // Trailers: nothing to keep.
                Err(_) => continue,
            },
            Err(error) => return Read::Failed(error),
        };
        let read = bytes.len() + data.len();
        let unheld = read.saturating_sub(held.num_permits());
        let refusal = if read > rule.limit {
            Some((rule.too_large)())
        } else if unheld > 0 && !rule.budget.grow(&mut held, unheld) {
            Some(over_budget())
        } else {
            None
        };
        if let Some(answer) = refusal {
            return Read::Refused {
                rest: body,
                read,
                answer,
            };
        }
        bytes.extend_from_slice(&data);
    }
    Read::Whole(bytes.into(), held)
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

/// Why a [`Guarded`] body stopped.
#[derive(Clone, Copy)]
enum Stopped {
    Late,
    OverBudget,
}

/// Leaves the body unread for the route to read after its own credentials check, through a
/// guard that holds it to `rule`'s deadline and budget (and limit) as it is read. When the
/// guard stopped it, the route's answer is replaced by the 408 or 503 saying why. For routes
/// that read their bodies themselves behind a sign-in (the console's signed-in forms, which
/// read at most their form limit).
pub async fn guard_body_within(
    axum::extract::State(rule): axum::extract::State<BodyRead>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let stopped = Arc::new(Mutex::new(None));
    let deadline = rule.deadline;
    let request = request.map(|inner| {
        axum::body::Body::new(Guarded {
            inner,
            until: Box::pin(tokio::time::sleep(deadline)),
            read: 0,
            held: rule.budget.take(0),
            rule,
            stopped: stopped.clone(),
        })
    });
    let response = next.run(request).await;
    let why = *stopped
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match why {
        None => response,
        Some(Stopped::Late) => too_late(deadline),
        Some(Stopped::OverBudget) => over_budget(),
    }
}

/// A body read through its route's rule: see [`guard_body_within`].
struct Guarded {
    inner: axum::body::Body,
    until: Pin<Box<tokio::time::Sleep>>,
    read: usize,
    held: Option<OwnedSemaphorePermit>,
    rule: BodyRead,
    stopped: Arc<Mutex<Option<Stopped>>>,
}

impl Guarded {
    fn stop(
        &mut self,
        why: Stopped,
        message: &str,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::BoxError>>> {
        *self
            .stopped
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(why);
        Poll::Ready(Some(Err(message.into())))
    }
}

impl hyper::body::Body for Guarded {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::BoxError>>> {
        let this = self.get_mut();
        if this.until.as_mut().poll(cx).is_ready() {
            return this.stop(Stopped::Late, "the request body did not arrive in time");
        }
        let frame = match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => frame,
            Some(Err(error)) => return Poll::Ready(Some(Err(error.into()))),
            None => return Poll::Ready(None),
        };
        let size = frame.data_ref().map_or(0, |data| data.len());
        this.read += size;
        if this.read > this.rule.limit {
            return Poll::Ready(Some(Err("the request body is over its limit".into())));
        }
        let budget = this.rule.budget.clone();
        let fits = match &mut this.held {
            Some(held) => budget.grow(held, size),
            None => false,
        };
        if !fits {
            return this.stop(Stopped::OverBudget, "the request bodies' budget is spent");
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        hyper::body::Body::is_end_stream(&self.inner)
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::Body::size_hint(&self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use tower::ServiceExt as _;

    /// A body of `chunks`, then the end, or nothing more ever when `hang`.
    struct Trickle {
        chunks: VecDeque<Bytes>,
        hang: bool,
    }

    impl hyper::body::Body for Trickle {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
            let this = self.get_mut();
            match this.chunks.pop_front() {
                Some(chunk) => Poll::Ready(Some(Ok(hyper::body::Frame::data(chunk)))),
                None if this.hang => Poll::Pending,
                None => Poll::Ready(None),
            }
        }
    }

    fn body(chunks: &[usize], hang: bool) -> axum::body::Body {
        axum::body::Body::new(Trickle {
            chunks: chunks
                .iter()
                .map(|size| Bytes::from(vec![b'x'; *size]))
                .collect(),
            hang,
        })
    }

    fn rule(budget: &BodyBudget, deadline: Duration) -> BodyRead {
        BodyRead::api(deadline, budget.clone())
    }

    fn declaring(length: usize) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
        headers
    }

    #[tokio::test]
    async fn a_declared_length_is_taken_from_the_budget_before_a_byte_is_read() {
        let budget = BodyBudget::new(100);
        let rule = rule(&budget, Duration::from_secs(5));
        let first = read_body(&rule, &declaring(60), body(&[60], false)).await;
        let first = first.expect("60 of 100 bytes");
        // A body that never comes: refused at once, not waited for.
        let refused = read_body(&rule, &declaring(60), body(&[], true)).await;
        let refused = refused.err().expect("60 more do not fit");
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
        drop(first);
        let again = read_body(&rule, &declaring(60), body(&[60], false)).await;
        assert_eq!(again.expect("the budget given back").bytes.len(), 60);
    }

    #[tokio::test]
    async fn a_chunked_body_is_refused_once_it_outgrows_the_budget() {
        let budget = BodyBudget::new(100);
        let rule = rule(&budget, Duration::from_secs(5));
        let refused = read_body(&rule, &HeaderMap::new(), body(&[40, 40, 40], true)).await;
        let refused = refused.err().expect("120 bytes in a 100-byte budget");
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        let read = read_body(&rule, &HeaderMap::new(), body(&[40, 40], false)).await;
        assert_eq!(read.expect("80 bytes").bytes.len(), 80);
    }

    /// A route that reads its body itself, after whatever it checks first.
    async fn reads_its_body(request: axum::extract::Request) -> Response {
        match axum::body::to_bytes(request.into_body(), 1000).await {
            Ok(bytes) => courier_server::runtime::error(StatusCode::OK, bytes.len().to_string()),
            Err(_) => courier_server::runtime::error(StatusCode::PAYLOAD_TOO_LARGE, "too large"),
        }
    }

    async fn guarded(budget: &BodyBudget, deadline: Duration, body: axum::body::Body) -> Response {
        let router = axum::Router::new()
            .route("/form", axum::routing::post(reads_its_body))
            .layer(axum::middleware::from_fn_with_state(
                rule(budget, deadline),
                guard_body_within,
            ));
        let request = axum::http::Request::post("/form")
            .body(body)
            .expect("request");
        router.oneshot(request).await.expect("infallible")
    }

    #[tokio::test]
    async fn a_guarded_body_is_held_to_the_deadline_and_the_budget_as_the_route_reads_it() {
        let budget = BodyBudget::new(100);
        let deadline = Duration::from_millis(200);
        let read = guarded(&budget, deadline, body(&[30, 30], false)).await;
        assert_eq!(read.status(), StatusCode::OK);
        let late = guarded(&budget, deadline, body(&[30], true)).await;
        assert_eq!(late.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(late.headers()[header::CONNECTION], "close");
        let over = guarded(&budget, deadline, body(&[60, 60], false)).await;
        assert_eq!(over.status(), StatusCode::SERVICE_UNAVAILABLE);
        // Each gave its share back.
        let read = guarded(&budget, deadline, body(&[50, 50], false)).await;
        assert_eq!(read.status(), StatusCode::OK);
    }
}
