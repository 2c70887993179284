//! Pieces the generated routers are built from: JSON responses, rejections, fallbacks, layers.

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use courier_models::ErrorBody;

/// Largest request body the service reads. No interface operation takes a body; the admin API's
/// batches of failed runs stay well below it.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Longest query string the router reads; a longer one is a 400 before routing. A bulk delete
/// of 1000 `dlqIds` (about 17 KB) fits twice over. Past 64 KiB the `http` crate refuses the
/// request line itself, so hyper answers 414 (empty body) before any of this runs.
pub const MAX_QUERY_BYTES: usize = 32 * 1024;

/// The `{"error": "..."}` body of section 2.4.
pub fn error_body(message: impl Into<String>) -> ErrorBody {
    ErrorBody {
        error: message.into(),
    }
}

/// A JSON response with `content-type: application/json`.
pub fn json<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => json_bytes(status, bytes.into()),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("response could not be serialised: {e}"),
        ),
    }
}

/// Room in a JSON response's header map for its content type and the headers a service's layers
/// commonly add (rate limits, `nosniff`, `Retry-After`): the map is allocated once at that size,
/// instead of allocated small and grown, every header rehashed, as layers add theirs.
const HEADER_ROOM: usize = 12;

/// A response of JSON `bytes` with `status`.
fn json_bytes(status: StatusCode, bytes: axum::body::Bytes) -> Response {
    let mut headers = header::HeaderMap::with_capacity(HEADER_ROOM);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let mut response = Response::new(axum::body::Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// A JSON body of type `T` (a response the spec marks `x-courier-preserialized`): either a value
/// the router serialises, or the bytes serde would write for one, which an implementation
/// already holds — e.g. stored at insert, so a hot read sends them without parsing and
/// re-serialising. The trait's signature stays typed: only a `T`'s JSON belongs here.
///
/// ```
/// use courier_models::ErrorBody;
/// use courier_server::runtime::JsonBody;
///
/// let value: JsonBody<ErrorBody> = ErrorBody { error: "x".into() }.into();
/// let stored: JsonBody<ErrorBody> = JsonBody::preserialized(r#"{"error":"x"}"#);
/// assert_eq!(stored.to_value().unwrap(), value.to_value().unwrap());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct JsonBody<T>(Repr<T>);

#[derive(Clone, Debug, PartialEq)]
enum Repr<T> {
    Value(T),
    Serialized(axum::body::Bytes),
}

impl<T> From<T> for JsonBody<T> {
    fn from(value: T) -> Self {
        JsonBody(Repr::Value(value))
    }
}

impl<T: serde::Serialize + serde::de::DeserializeOwned + Clone> JsonBody<T> {
    /// Bytes that are what `serde_json` writes for some value of `T`, sent as they are. Debug
    /// builds check that they parse as a `T`; keeping them equal to serde's output is the
    /// caller's promise (courier's store proves its own in a test).
    pub fn preserialized(bytes: impl Into<axum::body::Bytes>) -> Self {
        let bytes = bytes.into();
        debug_assert!(
            serde_json::from_slice::<T>(&bytes).is_ok(),
            "pre-serialised bytes that are not a {}: {}",
            std::any::type_name::<T>(),
            String::from_utf8_lossy(&bytes)
        );
        JsonBody(Repr::Serialized(bytes))
    }

    /// The value, parsed if it was given as bytes (for tests and for code that needs to look).
    pub fn to_value(&self) -> Result<T, serde_json::Error> {
        match &self.0 {
            Repr::Value(value) => Ok(value.clone()),
            Repr::Serialized(bytes) => serde_json::from_slice(bytes),
        }
    }

    /// The response with this body and `status`.
    pub fn into_response_with(self, status: StatusCode) -> Response {
        match self.0 {
            Repr::Value(value) => json(status, &value),
            Repr::Serialized(bytes) => json_bytes(status, bytes),
        }
    }
}

/// A response with an empty body.
pub fn empty(status: StatusCode) -> Response {
    status.into_response()
}

/// An error response with the error body.
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    json(status, &error_body(message))
}

/// A request the router refuses before the implementation sees it (400 unless said otherwise).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    status: StatusCode,
    message: String,
}

impl Rejection {
    /// A 400 whose error body says `message`.
    pub fn bad_request(message: impl Into<String>) -> Rejection {
        Rejection {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// What the error body says.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The status the rejection answers with.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        error(self.status, self.message)
    }
}

/// Which scheme a 401 asks for in `WWW-Authenticate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Challenge {
    Bearer,
    Basic,
}

/// A 401 with the error body and a `WWW-Authenticate` challenge for the interface's scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unauthorized {
    message: String,
    challenge: Challenge,
}

impl Unauthorized {
    /// For the messaging interface (bearer token).
    pub fn bearer(message: impl Into<String>) -> Unauthorized {
        Unauthorized {
            message: message.into(),
            challenge: Challenge::Bearer,
        }
    }

    /// For the management interface (HTTP Basic).
    pub fn basic(message: impl Into<String>) -> Unauthorized {
        Unauthorized {
            message: message.into(),
            challenge: Challenge::Basic,
        }
    }

    /// What the error body says.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl IntoResponse for Unauthorized {
    fn into_response(self) -> Response {
        let challenge = match self.challenge {
            Challenge::Bearer => "Bearer realm=\"courier\"",
            Challenge::Basic => "Basic realm=\"courier\", charset=\"UTF-8\"",
        };
        let mut response = error(StatusCode::UNAUTHORIZED, self.message);
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
        response
    }
}

/// Path parameters by name; a path that does not decode is a 400 with the error body rather
/// than axum's plain-text rejection.
#[derive(Clone, Debug, Default)]
pub struct PathParams(Vec<(String, String)>);

impl PathParams {
    /// Path parameters as the route would extract them, for calling a `*Request::parse`
    /// outside a router (tests, fuzz targets).
    pub fn new(params: Vec<(String, String)>) -> PathParams {
        PathParams(params)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for PathParams {
    type Rejection = Rejection;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Path::<Vec<(String, String)>>::from_request_parts(parts, state).await {
            Ok(Path(params)) => Ok(PathParams(params)),
            Err(rejection) => Err(Rejection::bad_request(format!(
                "the path could not be decoded: {}",
                rejection.body_text()
            ))),
        }
    }
}

/// A path parameter the route guarantees; missing only if the route and spec disagree.
pub fn path_param(path: &PathParams, name: &str) -> Result<String, Rejection> {
    path.0
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
        .ok_or_else(|| Rejection::bad_request(format!("path parameter `{name}` is missing")))
}

/// Known path, method not served: 405 with the error body (axum adds `Allow`).
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} is not allowed on {}", uri.path()),
    )
}

/// Unknown path: 404 with the error body.
pub async fn not_found(uri: axum::http::Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("no such path: {}", uri.path()),
    )
}

fn panic_response(_panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    // The panic message may carry request data; it goes nowhere near the caller.
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error: the request handler failed unexpectedly",
    )
}

/// Why a request is refused before it is routed: a query string over [`MAX_QUERY_BYTES`] (400),
/// then a declared body over [`MAX_BODY_BYTES`] (413).
fn oversized(request: &axum::extract::Request) -> Option<Response> {
    let length = request.uri().query().map_or(0, str::len);
    if length > MAX_QUERY_BYTES {
        return Some(error(
            StatusCode::BAD_REQUEST,
            format!(
                "the query string is {length} bytes, longer than the {MAX_QUERY_BYTES}-byte limit"
            ),
        ));
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Some(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body is larger than the {MAX_BODY_BYTES}-byte limit"),
        ));
    }
    None
}

/// [`oversized`] as a layer of its own, not `axum::middleware::from_fn`: a check that never
/// waits needs no boxed future and no copy of the inner service per request, which the two
/// `from_fn` layers it replaces cost every request.
#[derive(Clone, Copy)]
struct RefuseOversizedLayer;

impl<S> tower::Layer<S> for RefuseOversizedLayer {
    type Service = RefuseOversized<S>;

    fn layer(&self, inner: S) -> RefuseOversized<S> {
        RefuseOversized(inner)
    }
}

#[derive(Clone)]
struct RefuseOversized<S>(S);

impl<S> tower::Service<axum::extract::Request> for RefuseOversized<S>
where
    S: tower::Service<axum::extract::Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future =
        futures_util::future::Either<std::future::Ready<Result<Response, S::Error>>, S::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: axum::extract::Request) -> Self::Future {
        match oversized(&request) {
            Some(refusal) => futures_util::future::Either::Left(std::future::ready(Ok(refusal))),
            None => futures_util::future::Either::Right(self.0.call(request)),
        }
    }
}

/// Adds what every courier router needs: the JSON 404 for unknown paths, 413 for oversized
/// bodies, 400 for query strings over [`MAX_QUERY_BYTES`], a 500 with the error body when a
/// handler panics (instead of a dropped connection), and `X-Content-Type-Options: nosniff` on
/// every answer, so a browser never runs a JSON error that echoes input as a script or page.
pub fn finish(router: axum::Router) -> axum::Router {
    // One stack, outermost first, laid over the routes in one pass: each `Router::layer` wraps
    // every route again, and a test suite that starts a service per test builds these often.
    let stack = tower::ServiceBuilder::new()
        .layer(
            tower_http::set_header::SetResponseHeaderLayer::if_not_present(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        )
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            panic_response,
        ))
        .layer(RefuseOversizedLayer)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES));
    router.fallback(not_found).layer(stack)
}
