//! Fuzz target: the console's sign-in form as a hostile browser could post it. The bytes are the
//! form body, read by `read_login_form` as `POST /console/login` reads it; the page that echoes
//! the user name and `next` is rendered, and `next` goes through `safe_next`, the only way to the
//! redirect after signing in. Panics on a crash, on a redirect that leaves the console or could
//! not be a `Location` header (a control character, a dot segment), and on a page that does not
//! echo the user name and `next` escaped.
#![no_main]

use axum::http::{HeaderValue, StatusCode};
use courier_service::console::{login_form_page, read_login_form, safe_next};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    let form = read_login_form(body);

    let target = safe_next(form.next.clone());
    assert!(
        target == "/console" || target.starts_with("/console/"),
        "{target:?}"
    );
    assert!(HeaderValue::from_str(&target).is_ok(), "{target:?}");
    assert!(target.bytes().all(|byte| byte.is_ascii_graphic()), "{target:?}");
    let path = target.split(['?', '#']).next().unwrap_or("");
    assert!(
        !path
            .split('/')
            .any(|segment| matches!(segment.to_ascii_lowercase().replace("%2e", ".").as_str(), "." | "..")),
        "{target:?}"
    );

    let page = login_form_page(
        StatusCode::BAD_REQUEST,
        form.next.as_deref(),
        &form.username,
        Some("Enter the customer id and the management key."),
    );
    let html = futures::executor::block_on(axum::body::to_bytes(page.into_body(), usize::MAX))
        .expect("a rendered page");
    let html = String::from_utf8_lossy(&html);
    // Echoed values sit in attribute values, escaped, so markup in them stays text. (Looking for
    // the raw value anywhere in the page is no test: the page has a `<script` of its own.)
    let username = format!("name=\"username\" type=\"text\" autocomplete=\"username\" required autofocus value=\"{}\"", escaped(&form.username));
    assert!(html.contains(&username), "the user name is not echoed escaped: {html}");
    if let Some(next) = &form.next {
        let next = format!("name=\"next\" value=\"{}\"", escaped(next));
        assert!(html.contains(&next), "next is not echoed escaped: {html}");
    }
});

/// HTML text as maud writes it into an attribute value.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
