//! Who gets into the console: the management credentials, by login form (a session cookie) or
//! HTTP Basic (scripts); and the guard of every state-changing POST against cross-site requests.
//!
//! Sessions (`sessions`) are random ids with an expiry. A session also remembers the
//! management key it was opened with: once the key changes, the session ends.
//!
//! Cross-site protection has three layers, because one alone has gaps: the cookie is
//! `SameSite=Strict` (a cross-site POST carries no session), every POST must come from this
//! origin (`Sec-Fetch-Site`/`Origin`, which also covers Basic credentials a browser cached), and
//! a POST made with a session must carry that session's CSRF token as a form field.

use super::Console;
use super::view;
use super::viewer::{CSRF_FIELD, Viewer};
use crate::signin::{Closed, CredentialKind, client_address, retry_after_seconds};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use courier_server::ManagementApi;
use courier_server::auth::{ManagementCredentials, constant_time_eq, management_credentials};
use courier_server::query::Query;
use std::sync::Arc;
use std::time::Duration;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "courier_console";
/// How long a session lasts from login (the cookie's `Max-Age` too).
pub(super) const SESSION_LIFETIME: Duration = Duration::from_secs(8 * 60 * 60);
/// Largest form body read (a login or an action form is a few hundred bytes). The service reads
/// no more of a console request's body than this (`app::routers`), so a larger one is refused
/// as it arrives, not after.
pub(crate) const MAX_FORM_BYTES: usize = 16 * 1024;

/// Lets a request through with a [`Viewer`] extension, or answers: a browser without
/// credentials is sent to the login page, wrong Basic credentials get 401, and a POST that
/// fails the cross-site checks gets 403.
pub(super) async fn require_viewer(
    State(console): State<Arc<Console>>,
    jar: CookieJar,
    request: Request,
    next: Next,
) -> Response {
    let management_key = console.service.management_key();
    let client = client_address(request.extensions());
    let from_session = match jar.get(SESSION_COOKIE) {
        Some(cookie) => console.sessions.find(cookie.value(), &management_key).await,
        None => None,
    };
    let viewer = match from_session {
        Some(viewer) => viewer,
        None => match basic_viewer(&console, request.headers(), client).await {
            Ok(Some(viewer)) => viewer,
            Ok(None) => return no_credentials(&request),
            Err(refusal) => return refusal,
        },
    };
    let mut request = request;
    if request.method() != Method::GET && request.method() != Method::HEAD {
        if let Err(why) = same_origin(request.headers()) {
            return cross_site_refusal(&why);
        }
        if let Some(expected) = viewer.csrf() {
            let (parts, body) = request.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
                return form_too_large();
            };
            let form = Query::parse(std::str::from_utf8(&bytes).unwrap_or(""));
            let given = form.credential(CSRF_FIELD).unwrap_or_default();
            if !constant_time_eq(&given, expected) {
                return view::error_page(
                    StatusCode::FORBIDDEN,
                    "Form expired",
                    "the form's security token does not match your session; reload the page and try again",
                );
            }
            request = Request::from_parts(parts, axum::body::Body::from(bytes));
        }
    }
    request.extensions_mut().insert(viewer);
    next.run(request).await
}

/// `Ok(None)` without an `Authorization` header; `Err` with the answer when one is there but not
/// valid Basic management credentials, or while the sign-in guard keeps the client waiting.
async fn basic_viewer(
    console: &Console,
    headers: &HeaderMap,
    client: std::net::IpAddr,
) -> Result<Option<Viewer>, Response> {
    if !headers.contains_key(header::AUTHORIZATION) {
        return Ok(None);
    }
    let credentials = management_credentials(headers, &Query::default())
        .map_err(|e| view::unauthorized(e.message(), true))?;
    if let Some(closed) = console.guard.wait(client) {
        return Err(too_many_failures(closed));
    }
    match ManagementApi::authenticate(&*console.service, credentials).await {
        Ok(()) => Ok(Some(Viewer::Basic)),
        Err(e) => {
            console.guard.failed(client, CredentialKind::ManagementKey);
            Err(view::unauthorized(e.message(), true))
        }
    }
}

/// The console's 429 while the sign-in guard keeps a client waiting: a page and `Retry-After`.
fn too_many_failures(closed: Closed) -> Response {
    let seconds = retry_after_seconds(closed.wait);
    let mut response = view::error_page(
        StatusCode::TOO_MANY_REQUESTS,
        "Too many failed sign-ins",
        &format!(
            "too many failed sign-ins {}: try again in {seconds} seconds",
            closed.whose()
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, seconds.into());
    response
}

/// A page request without credentials goes to the login page (and comes back after it); any
/// other request gets a 401 without a Basic challenge, so a browser shows no password dialog.
fn no_credentials(request: &Request) -> Response {
    if request.method() == Method::GET || request.method() == Method::HEAD {
        let wanted = request
            .uri()
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/console/dlq");
        let target = format!("/console/login?next={}", view::encode_component(wanted));
        return Redirect::to(&target).into_response();
    }
    view::unauthorized(
        "sign in first: this action needs the management credentials",
        false,
    )
}

/// Why a request a browser marks as coming from another site, or whose `Origin` is not this
/// host, is refused. Scripts send neither header and pass.
fn same_origin(headers: &HeaderMap) -> Result<(), String> {
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if site != "same-origin" && site != "none" {
            return Err(format!(
                "the browser says this request came from a {site} page; console actions must be sent from the console itself"
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let host = headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .unwrap_or("");
        let origin_host = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        if host.is_empty() || origin_host != Some(host) {
            return Err(format!(
                "the request's Origin `{origin}` is not this console's host `{host}`"
            ));
        }
    }
    Ok(())
}

/// The console's 413: its error page.
pub(crate) fn form_too_large() -> Response {
    view::error_page(
        StatusCode::PAYLOAD_TOO_LARGE,
        "Form too large",
        &format!("a console form is at most {MAX_FORM_BYTES} bytes"),
    )
}

fn cross_site_refusal(why: &str) -> Response {
    view::error_page(StatusCode::FORBIDDEN, "Cross-site request refused", why)
}

/// The sign-in form as the console reads it; what is missing is empty (or `None` for `next`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginForm {
    pub username: String,
    pub password: String,
    /// Where to go after signing in, as sent: pass it through [`safe_next`].
    pub next: Option<String>,
}

/// Reads a `POST /console/login` body (at most the console's form limit reaches here). Never
/// fails: bytes that are not UTF-8 or not a form read as an empty form.
pub fn read_login_form(body: &[u8]) -> LoginForm {
    let form = Query::parse(std::str::from_utf8(body).unwrap_or(""));
    LoginForm {
        username: form.credential("username").unwrap_or_default(),
        password: form.credential("password").unwrap_or_default(),
        next: form.credential("next"),
    }
}

/// Where to go after login: only a console path, so the parameter cannot send anyone elsewhere.
/// Anything but visible ASCII (a control character would not fit a `Location` header) and any
/// dot segment (which a browser resolves out of the console) fall back to the DLQ page.
pub fn safe_next(next: Option<String>) -> String {
    match next {
        Some(next)
            if (next == "/console" || next.starts_with("/console/"))
                && next.bytes().all(|byte| byte.is_ascii_graphic())
                && !next.contains('\\')
                && !has_dot_segment(&next)
                && !next.starts_with("/console/login")
                && !next.starts_with("/console/logout") =>
        {
            next
        }
        _ => "/console/dlq".to_owned(),
    }
}

/// Whether the path part of `target` has a `.` or `..` segment, spelled plainly or with `%2e`
/// (browsers resolve both).
fn has_dot_segment(target: &str) -> bool {
    let path = target.split(['?', '#']).next().unwrap_or("");
    path.split('/').any(|segment| {
        let segment = segment.to_ascii_lowercase().replace("%2e", ".");
        segment == "." || segment == ".."
    })
}

/// `GET /console/login`: the form, or straight on when already signed in.
pub(super) async fn login_page(
    State(console): State<Arc<Console>>,
    jar: CookieJar,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
) -> Response {
    let next = Query::parse(raw.as_deref().unwrap_or("")).credential("next");
    let key = console.service.management_key();
    let signed_in = match jar.get(SESSION_COOKIE) {
        Some(cookie) => console.sessions.find(cookie.value(), &key).await.is_some(),
        None => false,
    };
    if signed_in {
        return Redirect::to(&safe_next(next)).into_response();
    }
    view::login(StatusCode::OK, next.as_deref(), "", None)
}

/// `POST /console/login`: checks the management credentials and opens a session. The form is
/// read up to the console's form limit; a client the sign-in guard keeps waiting gets 429 before
/// its credentials are compared, and a wrong one counts as a failed sign-in of its address.
pub(super) async fn login(
    State(console): State<Arc<Console>>,
    jar: CookieJar,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(why) = same_origin(&parts.headers) {
        return cross_site_refusal(&why);
    }
    let Ok(body) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return form_too_large();
    };
    let LoginForm {
        username,
        password,
        next,
    } = read_login_form(&body);
    if username.is_empty() || password.is_empty() {
        return view::login(
            StatusCode::BAD_REQUEST,
            next.as_deref(),
            &username,
            Some("Enter the customer id and the management key."),
        );
    }
    let client = client_address(&parts.extensions);
    if let Some(closed) = console.guard.wait(client) {
        return too_many_failures(closed);
    }
    let credentials = ManagementCredentials {
        username: username.clone(),
        password,
    };
    if ManagementApi::authenticate(&*console.service, credentials)
        .await
        .is_err()
    {
        console.guard.failed(client, CredentialKind::ConsoleLogin);
        return view::login(
            StatusCode::UNAUTHORIZED,
            next.as_deref(),
            &username,
            Some("The customer id or the management key is wrong."),
        );
    }
    let Some(id) = console
        .sessions
        .open(&console.service.management_key())
        .await
    else {
        return view::login(
            StatusCode::SERVICE_UNAVAILABLE,
            next.as_deref(),
            &username,
            Some("The service cannot open a session right now; try again."),
        );
    };
    let cookie = Cookie::build((SESSION_COOKIE, id))
        .path("/console")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(console.secure_cookies)
        .max_age(time::Duration::seconds(SESSION_LIFETIME.as_secs() as i64));
    (jar.add(cookie), Redirect::to(&safe_next(next))).into_response()
}

/// `POST /console/logout`: ends the session and clears the cookie.
pub(super) async fn logout(
    State(console): State<Arc<Console>>,
    jar: CookieJar,
    axum::Extension(viewer): axum::Extension<Viewer>,
) -> Response {
    if let Viewer::Session { id, .. } = &viewer {
        console.sessions.close(id).await;
    }
    let jar = jar.remove(Cookie::build(SESSION_COOKIE).path("/console"));
    (jar, Redirect::to("/console/login")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_stays_inside_the_console() {
        assert_eq!(
            safe_next(Some("/console/dlq?label=a".into())),
            "/console/dlq?label=a"
        );
        for outside in [
            "https://evil.example/",
            "//evil.example/console/",
            "/console\\..\\x",
            "/consolex",
            "/console/login",
            "/console/\n",
            "/console/\0",
            "/console/\u{7f}",
            "/console/\r\nSet-Cookie: x=y",
            "/console/ dlq",
            "/console/dlé",
            "/console/../admin",
            "/console/./dlq",
            "/console/dlq/..",
            "/console/%2e%2e/admin",
            "/console/.%2E/admin",
            "/console/%2e/dlq",
        ] {
            assert_eq!(safe_next(Some(outside.into())), "/console/dlq", "{outside}");
        }
        assert_eq!(safe_next(None), "/console/dlq");
    }

    #[test]
    fn cross_site_requests_are_refused_and_scripts_pass() {
        let mut headers = HeaderMap::new();
        assert!(
            same_origin(&headers).is_ok(),
            "a script sends neither header"
        );
        headers.insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
        headers.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
        assert!(same_origin(&headers).is_ok());
        headers.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(same_origin(&headers).is_err());
        headers.insert(header::ORIGIN, "null".parse().unwrap());
        assert!(same_origin(&headers).is_err());
        headers.remove(header::ORIGIN);
        headers.insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert!(same_origin(&headers).is_err());
        headers.insert("sec-fetch-site", "same-origin".parse().unwrap());
        assert!(same_origin(&headers).is_ok());
    }

    #[test]
    fn a_session_ends_when_the_management_key_changes() {
        let sessions = super::super::sessions::Sessions::default();
        let id = sessions.open_here("key-1");
        assert!(sessions.find_here(&id, "key-1").is_some());
        assert!(sessions.find_here("not-a-session", "key-1").is_none());
        assert!(sessions.find_here(&id, "key-2").is_none());
        assert!(
            sessions.find_here(&id, "key-1").is_none(),
            "an ended session stays ended"
        );
    }
}
