//! Fuzz target: `auth::messaging_credentials` and `auth::management_credentials` on arbitrary
//! `Authorization` values — the raw input, and `Basic ` plus the base64 of the input — with the
//! input also read as a query (for `service_token`). Panics on a crash, and when Basic
//! credentials that were accepted do not re-encode to the header they came from.
#![no_main]

use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use courier_server::MessagingCredentials;
use courier_server::auth::{management_credentials, messaging_credentials};
use courier_server::query::Query;
use libfuzzer_sys::fuzz_target;

fn check(value: HeaderValue, query: &Query) {
    let text = value.to_str().ok().map(str::to_owned);
    let after_scheme = text
        .as_deref()
        .map(|text| text.split_once(' ').map_or("", |(_, rest)| rest).trim());
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, value);
    match messaging_credentials(&headers, query) {
        Ok(MessagingCredentials::Bearer(token)) => {
            assert!(!token.is_empty());
            assert_eq!(Some(token.as_str()), after_scheme);
        }
        Ok(MessagingCredentials::QueryToken(_)) => panic!("query token used despite a header"),
        Err(rejection) => assert!(!rejection.message().is_empty()),
    }
    match management_credentials(&headers, query) {
        Ok(credentials) => {
            let again = STANDARD.encode(format!("{}:{}", credentials.username, credentials.password));
            assert_eq!(Some(again.as_str()), after_scheme);
        }
        Err(rejection) => assert!(!rejection.message().is_empty()),
    }
}

fuzz_target!(|data: &[u8]| {
    let query = Query::parse(&String::from_utf8_lossy(data));
    if let Ok(value) = HeaderValue::from_bytes(data) {
        check(value, &query);
    }
    let basic = format!("Basic {}", STANDARD.encode(data));
    let value = HeaderValue::from_str(&basic).expect("base64 is a valid header value");
    check(value, &Query::default());
    let decoded = std::str::from_utf8(data).ok().and_then(|text| text.split_once(':'));
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, HeaderValue::from_str(&basic).expect("valid"));
    match (decoded, management_credentials(&headers, &Query::default())) {
        (Some((user, key)), Ok(credentials)) => {
            assert_eq!((credentials.username.as_str(), credentials.password.as_str()), (user, key));
        }
        (None, Err(_)) => {}
        (expected, got) => panic!("expected {expected:?}, got {got:?}"),
    }
    // Without a header, a query token is used only when it decodes to something non-empty.
    match messaging_credentials(&HeaderMap::new(), &query) {
        Ok(credentials) => assert!(!credentials.token().is_empty()),
        Err(rejection) => assert!(!rejection.message().is_empty()),
    }
});
