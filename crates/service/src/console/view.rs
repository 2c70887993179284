//! The console's page frame and the small renderings every page shares: times, headers, bodies.

use super::viewer::{self, CSRF_FIELD, Viewer};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use maud::{DOCTYPE, Markup, html};

/// The sections of the navigation bar.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Section {
    Dlq,
    Topics,
    Search,
    Stats,
}

impl Section {
    const ALL: [(Section, &'static str, &'static str); 4] = [
        (Section::Dlq, "/console/dlq", "Failed runs"),
        (Section::Topics, "/console/topics", "Topics"),
        (Section::Search, "/console/search", "Search indexes"),
        (Section::Stats, "/console/stats", "Statistics"),
    ];
}

/// A page's `<head>`: the embedded stylesheet and script only.
fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            meta name="color-scheme" content="light dark";
            title { (title) " · courier console" }
            link rel="icon" href="data:,";
            link rel="stylesheet" href=(viewer::STYLESHEET_PATH);
            script src=(viewer::SCRIPT_PATH) defer {}
        }
    }
}

/// A whole signed-in page with navigation, the one-time notice, and `body`.
pub(super) fn page(
    status: StatusCode,
    title: &str,
    section: Option<Section>,
    viewer: &Viewer,
    flash: Option<&str>,
    body: Markup,
) -> Response {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body {
                a.skip href="#main" { "Skip to content" }
                header.top {
                    a.brand href="/console/dlq" { "courier" span.muted { " console" } }
                    nav aria-label="Console sections" {
                        ul {
                            @for (item, href, label) in Section::ALL {
                                li {
                                    @if Some(item) == section {
                                        a href=(href) aria-current="page" { (label) }
                                    } @else {
                                        a href=(href) { (label) }
                                    }
                                }
                            }
                        }
                    }
                    @if let Viewer::Session { .. } = viewer {
                        form.logout method="post" action="/console/logout" {
                            (csrf_field(viewer))
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main #main {
                    @if let Some(flash) = flash {
                        p.notice role="status" { (flash) }
                    }
                    (body)
                }
            }
        }
    };
    html_response(status, markup)
}

/// The hidden CSRF field of a POST form (nothing for a Basic viewer).
pub(super) fn csrf_field(viewer: &Viewer) -> Markup {
    html! {
        @if let Some(token) = viewer.csrf() {
            input type="hidden" name=(CSRF_FIELD) value=(token);
        }
    }
}

pub(super) fn html_response(status: StatusCode, markup: Markup) -> Response {
    let mut response = (status, markup.into_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

/// A page without navigation (login, errors before sign-in).
fn bare(status: StatusCode, title: &str, body: Markup) -> Response {
    html_response(
        status,
        html! {
            (DOCTYPE)
            html lang="en" {
                (head(title))
                body.bare {
                    main #main { (body) }
                }
            }
        },
    )
}

/// The login form; `error` says why the last attempt failed.
pub fn login(
    status: StatusCode,
    next: Option<&str>,
    username: &str,
    error: Option<&str>,
) -> Response {
    bare(
        status,
        "Sign in",
        html! {
            form.login method="post" action="/console/login" {
                h1 { "courier console" }
                p.muted { "Sign in with the management credentials: the customer id and the management key (" code { "courier serve" } " prints both)." }
                @if let Some(error) = error {
                    p.error role="alert" { (error) }
                }
                @if let Some(next) = next {
                    input type="hidden" name="next" value=(next);
                }
                label for="username" { "Customer id" }
                input #username name="username" type="text" autocomplete="username" required autofocus value=(username);
                label for="password" { "Management key" }
                input #password name="password" type="password" autocomplete="current-password" required;
                button type="submit" { "Sign in" }
            }
        },
    )
}

/// An error page that needs no session (the login link is there to recover).
pub(super) fn error_page(status: StatusCode, title: &str, message: &str) -> Response {
    bare(
        status,
        title,
        html! {
            div.login {
                h1 { (title) }
                p.error role="alert" { (message) }
                p { a href="/console/dlq" { "Back to the console" } }
            }
        },
    )
}

/// 401; with `challenge`, a Basic challenge for scripts whose credentials were wrong.
pub(super) fn unauthorized(message: &str, challenge: bool) -> Response {
    let mut response = error_page(StatusCode::UNAUTHORIZED, "Not signed in", message);
    if challenge {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"courier console\", charset=\"UTF-8\""),
        );
    }
    response
}

/// Percent-encodes a query value or path segment (everything but RFC 3986's unreserved set).
pub(super) fn encode_component(value: &str) -> String {
    const RESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(value, RESERVED).to_string()
}

/// `2025-10-23 17:34:05 UTC` of Unix milliseconds.
pub(super) fn utc_text(ms: i64) -> String {
    crate::time::utc_seconds(ms).unwrap_or_else(|| format!("{ms} ms"))
}

/// `3 h ago` / `in 5 min`: how far `ms` is from `now_ms`, in the largest whole unit.
pub(super) fn relative(ms: i64, now_ms: i64) -> String {
    let seconds = (now_ms - ms) / 1000;
    let (amount, future) = (seconds.unsigned_abs(), seconds < 0);
    let text = match amount {
        0..=59 => return "just now".to_owned(),
        60..=3599 => format!("{} min", amount / 60),
        3600..=86_399 => format!("{} h", amount / 3600),
        _ => format!("{} d", amount / 86_400),
    };
    if future {
        format!("in {text}")
    } else {
        format!("{text} ago")
    }
}

/// A time in UTC that the script turns into the reader's local time, with how long ago.
pub(super) fn moment(ms: i64, now_ms: i64) -> Markup {
    let iso = match time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000) {
        Ok(at) => at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    html! {
        time datetime=(iso) data-local title=(utc_text(ms)) { (utc_text(ms)) }
        " "
        span.muted.relative { "(" (relative(ms, now_ms)) ")" }
    }
}

/// A header map as a table (or "none").
pub(super) fn headers_table(caption: &str, headers: Option<&courier_models::Headers>) -> Markup {
    html! {
        @match headers.filter(|h| !h.is_empty()) {
            None => p.muted { (caption) ": none" },
            Some(headers) => table.kv {
                caption { (caption) }
                thead { tr { th scope="col" { "Name" } th scope="col" { "Value" } } }
                tbody {
                    @for (name, values) in headers.iter() {
                        @for value in values {
                            tr { th scope="row" { code { (name) } } td { code { (value) } } }
                        }
                    }
                }
            }
        }
    }
}

/// Largest number of bytes shown as a hex dump; the base64 is always there in full.
const HEX_DUMP_LIMIT: usize = 4096;

/// A body as stored: text as text (JSON pretty-printed), binary as a hex dump and base64 with
/// its size, or "empty".
pub(super) fn body(caption: &str, text: Option<&str>, base64: Option<&str>) -> Markup {
    if let Some(text) = text {
        let pretty = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .filter(|value| value.is_object() || value.is_array())
            .and_then(|value| serde_json::to_string_pretty(&value).ok());
        let kind = if pretty.is_some() { "JSON" } else { "text" };
        return html! {
            figure.body {
                figcaption { (caption) " " span.muted { "(" (kind) ", " (text.len()) " bytes)" } }
                pre tabindex="0" { code { (pretty.as_deref().unwrap_or(text)) } }
            }
        };
    }
    let Some(encoded) = base64 else {
        return html! { p.muted { (caption) ": empty" } };
    };
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(encoded) else {
        return html! {
            figure.body {
                figcaption { (caption) " " span.muted { "(stored base64 that does not decode)" } }
                pre tabindex="0" { code { (encoded) } }
            }
        };
    };
    html! {
        figure.body {
            figcaption { (caption) " " span.muted { "(binary, " (bytes.len()) " bytes)" } }
            pre.hex tabindex="0" { code { (hex_dump(&bytes)) } }
            details {
                summary { "Base64" }
                pre tabindex="0" { code { (encoded) } }
            }
        }
    }
}

/// `offset  hex bytes  printable` lines, 16 bytes each, up to [`HEX_DUMP_LIMIT`].
fn hex_dump(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (line, chunk) in bytes.chunks(16).take(HEX_DUMP_LIMIT / 16).enumerate() {
        let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        let printable: String = chunk
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        out.push_str(&format!(
            "{:08x}  {:<47}  {printable}\n",
            line * 16,
            hex.join(" ")
        ));
    }
    if bytes.len() > HEX_DUMP_LIMIT {
        out.push_str(&format!(
            "… {} more bytes (see base64)\n",
            bytes.len() - HEX_DUMP_LIMIT
        ));
    }
    out
}

/// A number for people: integers without a fraction, others with two decimals.
pub(super) fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_pick_the_largest_unit() {
        let now = 1_000_000_000_000;
        assert_eq!(relative(now - 5_000, now), "just now");
        assert_eq!(relative(now - 5 * 60_000, now), "5 min ago");
        assert_eq!(relative(now - 3 * 3_600_000, now), "3 h ago");
        assert_eq!(relative(now - 2 * 86_400_000, now), "2 d ago");
        assert_eq!(relative(now + 2 * 3_600_000, now), "in 2 h");
    }

    #[test]
    fn bodies_render_by_kind_and_escape_markup() {
        let json = body("Body", Some(r#"{"a":1}"#), None).into_string();
        assert!(
            json.contains("JSON") && json.contains("&quot;a&quot;: 1"),
            "{json}"
        );
        let text = body("Body", Some("<script>x</script>"), None).into_string();
        assert!(text.contains("&lt;script&gt;") && !text.contains("<script>"));
        let binary = body("Body", None, Some("//4AAYA=")).into_string();
        assert!(
            binary.contains("binary, 5 bytes") && binary.contains("ff fe 00 01 80"),
            "{binary}"
        );
        assert!(body("Body", None, None).into_string().contains("empty"));
    }

    #[test]
    fn components_are_percent_encoded() {
        assert_eq!(
            encode_component("/console/dlq?a=b&c"),
            "%2Fconsole%2Fdlq%3Fa%3Db%26c"
        );
        assert_eq!(encode_component("d1.2d_~"), "d1.2d_~");
    }
}
