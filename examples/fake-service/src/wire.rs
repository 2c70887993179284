//! The fake's defects that live on the wire (layers around the generated router), and its
//! cursors.

use axum::response::IntoResponse as _;
use serde_json::json;

/// Replaces `from` by `to` in the text of every answer.
pub(crate) async fn rename(
    response: axum::response::Response,
    from: &'static str,
    to: &'static str,
) -> axum::response::Response {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let renamed = String::from_utf8_lossy(&bytes).replace(from, to);
    let mut response = axum::response::Response::from_parts(parts, axum::body::Body::from(renamed));
    response
        .headers_mut()
        .remove(axum::http::header::CONTENT_LENGTH);
    response
}

/// Drops every `key=...` pair starting with `prefix` from the query, as a service that does not
/// read that parameter would.
pub(crate) async fn drop_query(
    mut request: axum::extract::Request,
    prefix: &'static str,
) -> axum::extract::Request {
    let uri = request.uri().clone();
    if let Some(query) = uri.query() {
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| !pair.starts_with(prefix))
            .collect();
        let path = match kept.is_empty() {
            true => uri.path().to_owned(),
            false => format!("{}?{}", uri.path(), kept.join("&")),
        };
        if let Ok(rewritten) = path.parse() {
            *request.uri_mut() = rewritten;
        }
    }
    request
}

/// Answers 400 for a parameter the fake does not know before anything else looks at the
/// request, credentials included.
pub(crate) async fn parameters_first(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let unknown = request
        .uri()
        .query()
        .unwrap_or_default()
        .split('&')
        .any(|pair| {
            pair.starts_with("courierVerifyUnknown=") || pair.starts_with("period=courier")
        });
    if unknown {
        let body = axum::Json(json!({"error": "unknown parameter"}));
        return (axum::http::StatusCode::BAD_REQUEST, body).into_response();
    }
    next.run(request).await
}

/// Answers the compatible list path with an empty page, as a route written apart would.
pub(crate) async fn empty_compat_list(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request.uri().path() == "/v2/dlq" && request.method() == axum::http::Method::GET {
        return axum::Json(json!({"messages": []})).into_response();
    }
    next.run(request).await
}

pub(crate) fn encode_cursor(id: &str) -> String {
    let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
    format!("d1.{hex}")
}

pub(crate) fn decode_cursor(cursor: &str) -> Option<String> {
    let hex = cursor.strip_prefix("d1.")?;
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}
