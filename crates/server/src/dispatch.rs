//! The one body every generated route handler shares: authenticate, then parse, then call the
//! implementation. The generated handlers only name their operation's parser and trait method,
//! so the order of the checks (a 401 before any 400 about parameters) is written once.

use crate::query::Query;
use crate::runtime::{PathParams, Rejection, Unauthorized};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use std::future::Future;

/// What a handler reads from a request: the decoded path parameters (a path that does not
/// decode is a 400 before anything else), the headers and the parsed query string.
pub(crate) struct Incoming {
    path: PathParams,
    headers: HeaderMap,
    query: Query,
}

/// The last extractor of every generated handler, so it takes the request whole: its headers are
/// moved, not copied (a copy of every header was a measurable part of a get-one request).
impl<S: Send + Sync> FromRequest<S> for Incoming {
    type Rejection = Rejection;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let (mut parts, _body) = request.into_parts();
        let path = PathParams::from_request_parts(&mut parts, state).await?;
        let query = Query::parse(parts.uri.query().unwrap_or(""));
        Ok(Incoming {
            path,
            headers: std::mem::take(&mut parts.headers),
            query,
        })
    }
}

/// Serves one request of an operation: extracts the interface's `credentials`, checks them with
/// `authenticate` (a failure is the 401), `parse`s the operation's parameters (a failure is the
/// 400 naming the parameter), then `call`s the implementation and sends its response.
pub(crate) async fn serve<Credentials, Principal, Request, Answer, Authenticated, Called>(
    incoming: Incoming,
    credentials: fn(&HeaderMap, &Query) -> Result<Credentials, Unauthorized>,
    authenticate: impl FnOnce(Credentials) -> Authenticated,
    parse: fn(&PathParams, &Query) -> Result<Request, Rejection>,
    call: impl FnOnce(Principal, Request) -> Called,
) -> Response
where
    Authenticated: Future<Output = Result<Principal, Unauthorized>>,
    Called: Future<Output = Answer>,
    Answer: IntoResponse,
{
    let principal = match credentials(&incoming.headers, &incoming.query) {
        Ok(credentials) => match authenticate(credentials).await {
            Ok(principal) => principal,
            Err(rejection) => return rejection.into_response(),
        },
        Err(rejection) => return rejection.into_response(),
    };
    match parse(&incoming.path, &incoming.query) {
        Ok(request) => call(principal, request).await.into_response(),
        Err(rejection) => rejection.into_response(),
    }
}
