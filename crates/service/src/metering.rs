//! What an interface request costs the account: the usage counters of the statistics, counted
//! for authenticated, admitted requests only, with the bytes actually read and sent.
//!
//! Anonymous requests must never spend the account's usage: the daily limiter is seeded from
//! these counters at start, so counting a stranger's 404s would let anyone lock the account out.
//! A declared `Content-Length` is never trusted either: only bytes that crossed the socket count.

use crate::api::Service;
use crate::stats;
use crate::time::now_ms;
use axum::body::HttpBody as _;
use axum::http::StatusCode;
use axum::response::Response;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

/// Marks the response to a request whose credentials were right and which the rate limit
/// admitted; set by the admission middleware, read by [`Meter`]. Only such requests are counted.
#[derive(Clone, Copy, Debug)]
pub struct Admitted;

/// Meters every request: the usage counters (requests now, bandwidth once the response body is
/// sent) and a debug log line. Only the path is logged: the query may carry a `service_token`.
///
/// A layer of its own rather than `axum::middleware::from_fn`, which boxes each request's future
/// and copies the inner service for it: every request passes here, and on a get-one request
/// those copies were a measurable share of the work (`bench/findings.md`, "Where a get-one
/// request's time goes").
#[derive(Clone)]
pub struct MeterLayer {
    service: Arc<Service>,
}

impl MeterLayer {
    pub fn new(service: Arc<Service>) -> MeterLayer {
        MeterLayer { service }
    }
}

impl<S> tower::Layer<S> for MeterLayer {
    type Service = Meter<S>;

    fn layer(&self, inner: S) -> Meter<S> {
        Meter {
            service: self.service.clone(),
            inner,
        }
    }
}

/// [`MeterLayer`]'s service.
#[derive(Clone)]
pub struct Meter<S> {
    service: Arc<Service>,
    inner: S,
}

impl<S> tower::Service<axum::extract::Request> for Meter<S>
where
    S: tower::Service<axum::extract::Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Metered<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: axum::extract::Request) -> Self::Future {
        let (visit, request) = Visit::begin(self.service.clone(), request);
        Metered {
            inner: self.inner.call(request),
            visit: Some(visit),
        }
    }
}

pin_project_lite::pin_project! {
    /// The inner service's answer, counted when it arrives.
    pub struct Metered<F> {
        #[pin]
        inner: F,
        visit: Option<Visit>,
    }
}

impl<F, E> Future for Metered<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = std::task::ready!(this.inner.poll(cx))?;
        Poll::Ready(Ok(match this.visit.take() {
            Some(visit) => visit.end(response),
            None => response,
        }))
    }
}

/// One request as the meter sees it, from its head to its answer.
pub struct Visit {
    service: Arc<Service>,
    started: std::time::Instant,
    interface: bool,
    workflows: bool,
    logged: Option<(axum::http::Method, String)>,
    bytes_read: Option<Arc<AtomicU64>>,
}

impl Visit {
    fn begin(
        service: Arc<Service>,
        request: axum::extract::Request,
    ) -> (Visit, axum::extract::Request) {
        let path = request.uri().path();
        let interface = path.starts_with("/v2/");
        let workflows = path.starts_with("/v2/workflows") || path.starts_with("/v2/dlq");
        // Kept only for the log line, which is off unless asked for.
        let logged = tracing::enabled!(tracing::Level::DEBUG)
            .then(|| (request.method().clone(), path.to_owned()));
        // A body known to be empty (every interface operation's) crosses the socket as
        // nothing; only the others are counted as they are read.
        let (bytes_read, request) = if request.body().size_hint().exact() == Some(0) {
            (None, request)
        } else {
            let bytes_read = Arc::new(AtomicU64::new(0));
            let counter = bytes_read.clone();
            let request = request.map(move |body| {
                axum::body::Body::new(Counted::new(body, move |bytes| {
                    counter.fetch_add(bytes as u64, Ordering::Relaxed);
                }))
            });
            (Some(bytes_read), request)
        };
        let visit = Visit {
            service,
            started: std::time::Instant::now(),
            interface,
            workflows,
            logged,
            bytes_read,
        };
        (visit, request)
    }

    fn end(self, response: Response) -> Response {
        let status = response.status();
        if let Some((method, path)) = &self.logged {
            tracing::debug!(%method, %path, status = status.as_u16(), micros = self.started.elapsed().as_micros() as u64, "request");
        }
        let counted = self.interface
            && status != StatusCode::TOO_MANY_REQUESTS
            && response.extensions().get::<Admitted>().is_some();
        if !counted {
            return response;
        }
        let now = now_ms();
        let usage = self.service.usage();
        usage.add(stats::REQUESTS, now, 1.0);
        if self.workflows {
            usage.add(stats::WORKFLOW_REQUESTS, now, 1.0);
        }
        let mut bandwidth = Bandwidth {
            service: self.service,
            bytes_read: self.bytes_read,
            bytes_sent: 0,
        };
        response.map(move |body| {
            axum::body::Body::new(Counted::new(body, move |bytes| bandwidth.sent(bytes)))
        })
    }
}

pin_project_lite::pin_project! {
    /// A body that tells `count` the length of each data frame as it passes, and otherwise is
    /// its inner body: its exact size above all, so that a metered response keeps its
    /// `Content-Length` instead of being sent chunked, as `BodyExt::map_frame`'s body would be
    /// (it cannot know that the frames keep their length).
    struct Counted<C> {
        #[pin]
        inner: axum::body::Body,
        count: C,
    }
}

impl<C: FnMut(usize)> Counted<C> {
    fn new(inner: axum::body::Body, count: C) -> Counted<C> {
        Counted { inner, count }
    }
}

impl<C: FnMut(usize)> http_body::Body for Counted<C> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.project();
        let frame = std::task::ready!(this.inner.poll_frame(cx));
        if let Some(data) = frame
            .as_ref()
            .and_then(|frame| frame.as_ref().ok()?.data_ref())
        {
            (this.count)(data.len());
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The bytes of one metered exchange, added to the `bandwidth` counter when the response body
/// is dropped: after its last byte was written, or when the client went away mid-way.
struct Bandwidth {
    service: Arc<Service>,
    bytes_read: Option<Arc<AtomicU64>>,
    bytes_sent: u64,
}

impl Bandwidth {
    // A method, so that the closure calling it owns the whole value and drops it with the body.
    fn sent(&mut self, bytes: usize) {
        self.bytes_sent += bytes as u64;
    }
}

impl Drop for Bandwidth {
    fn drop(&mut self) {
        let read = self
            .bytes_read
            .as_ref()
            .map_or(0, |bytes| bytes.load(Ordering::Relaxed));
        let total = read + self.bytes_sent;
        self.service
            .usage()
            .add(stats::BANDWIDTH, now_ms(), total as f64);
    }
}
