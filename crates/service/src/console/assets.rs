//! The console's stylesheet and script, embedded in the binary and served by the service itself.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

const STYLESHEET: &str = include_str!("assets/console.css");
const SCRIPT: &str = include_str!("assets/console.js");

/// `GET /console/assets/{name}`: public, since they hold no data (the login page needs them).
pub(super) async fn serve(Path(name): Path<String>) -> Response {
    let (body, content_type) = match name.as_str() {
        "console.css" => (STYLESHEET, "text/css; charset=utf-8"),
        "console.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        _ => {
            return super::view::error_page(
                StatusCode::NOT_FOUND,
                "Not found",
                &format!("the console has no asset named `{name}`"),
            );
        }
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // A new binary may bring new assets under the same name: revalidate rather than trust.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
