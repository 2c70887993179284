//! Hostile input: property tests of the query parser, credential extraction
//! and every generated request parser on arbitrary input — never a panic, always Ok or a 4xx that
//! names the parameter — and raw-socket requests that hyper and the router must refuse cleanly.

use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse as _;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use courier_models::{FailureFunctionState, StatsPeriod};
use courier_server::auth::{MessagingCredentials, management_credentials, messaging_credentials};
use courier_server::query::Query;
use courier_server::runtime::{MAX_QUERY_BYTES, PathParams, Rejection, error_body};
use courier_server::*;
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// Every query key some operation declares (`service_token` among them), from the generated
/// table of operations, so a key added to the spec is fed to the parsers too.
static KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let every: BTreeSet<&'static str> = courier_models::OPERATIONS
        .iter()
        .flat_map(|operation| operation.query.iter().map(|key| key.name))
        .collect();
    every.into_iter().collect()
});
const PERIODS: &[&str] = &["1h", "3h", "12h", "1d", "3d", "7d", "30d"];
const STATES: &[&str] = &[
    "CALLBACK_INPROGRESS",
    "CALLBACK_SUCCESS",
    "CALLBACK_FAIL",
    "CALLBACK_CANCELED",
];

/// Cases per property: enough to find the classic mistakes, few enough that the suite stays fast.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// The test's own reading of which keys a raw query holds (form decoding; undecodable keys are
/// kept raw), so rejections can be checked against keys the parser did not report itself.
fn keys_of(raw: &str) -> BTreeSet<String> {
    raw.split('&')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let key = part.split_once('=').map_or(part, |(key, _)| key);
            percent_decode_str(&key.replace('+', " "))
                .decode_utf8()
                .map(|key| key.into_owned())
                .unwrap_or_else(|_| key.to_owned())
        })
        .collect()
}

fn check_rejection<'a>(
    rejection: &Rejection,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(), TestCaseError> {
    let message = rejection.message();
    prop_assert_eq!(rejection.status(), StatusCode::BAD_REQUEST, "{}", message);
    prop_assert!(!message.is_empty());
    let names: Vec<&str> = names.into_iter().collect();
    prop_assert!(
        names
            .iter()
            .any(|name| message.contains(&format!("`{name}`"))),
        "`{}` names none of {:?}",
        message,
        names
    );
    let response = rejection.clone().into_response();
    prop_assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    Ok(())
}

fn check<T>(result: &Result<T, Rejection>, name: &str) -> Result<(), TestCaseError> {
    match result {
        Ok(_) => Ok(()),
        Err(rejection) => check_rejection(rejection, [name]),
    }
}

/// Every accessor on every interesting key of `raw`: Ok with a value consistent with the query,
/// or a 400 naming the key.
fn every_accessor(raw: &str) -> Result<(), TestCaseError> {
    let query = Query::parse(raw);
    let keys = keys_of(raw);
    // The declared keys, and (bounded, so huge queries stay cheap) the keys the query has.
    let names: BTreeSet<&str> = KEYS
        .iter()
        .copied()
        .chain(keys.iter().take(16).map(String::as_str))
        .collect();
    for name in names {
        let present = keys.contains(name);
        let string = query.string(name);
        check(&string, name)?;
        match &string {
            Ok(Some(value)) => prop_assert!(present && !value.is_empty()),
            Ok(None) => prop_assert!(!present, "`{}` is in {:?}", name, raw),
            Err(_) => prop_assert!(present),
        }
        for (minimum, maximum) in [
            (None, None),
            (Some(1), Some(100)),
            (Some(i64::MIN), Some(i64::MAX)),
        ] {
            let integer = query.integer(name, minimum, maximum);
            check(&integer, name)?;
            if let Ok(Some(value)) = integer {
                prop_assert!(minimum.is_none_or(|minimum| value >= minimum));
                prop_assert!(maximum.is_none_or(|maximum| value <= maximum));
            }
        }
        check(&query.boolean(name), name)?;
        let strings = query.strings(name);
        check(&strings, name)?;
        if let Ok(values) = &strings {
            prop_assert!(values.iter().all(|value| !value.is_empty()));
            prop_assert!(present || values.is_empty());
        }
        check(&query.enum_value::<StatsPeriod>(name, PERIODS), name)?;
        check(
            &query.enum_values::<FailureFunctionState>(name, STATES),
            name,
        )?;
        if query.credential(name).is_some() {
            prop_assert!(present);
        }
    }
    for allowed in [
        &[][..],
        ListWorkflowDlqRequest::QUERY_KEYS,
        GetAccountStatsRequest::QUERY_KEYS,
        KEYS.as_slice(),
    ] {
        let unknown: Vec<&str> = keys
            .iter()
            .map(String::as_str)
            .filter(|key| !allowed.contains(key))
            .collect();
        match query.reject_unknown(allowed) {
            Ok(()) => prop_assert!(
                unknown.is_empty(),
                "{:?} let {:?} through",
                allowed,
                unknown
            ),
            Err(rejection) => {
                prop_assert!(!unknown.is_empty());
                check_rejection(&rejection, unknown)?;
            }
        }
    }
    Ok(())
}

/// A path with every parameter any route has, so request parsers fail only on the query.
fn full_path() -> PathParams {
    PathParams::new(
        [
            ("workflowRunId", "wfr_1"),
            ("dlqId", "1752829295505-0"),
            ("urlGroupName", "orders"),
            ("id", "idx-1"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .to_vec(),
    )
}

/// Ok only when every key is declared (`docs/decisions.md#d15-unknown-query-parameters`); otherwise
/// a 400 naming a declared or a given key.
fn check_parser<T>(
    result: Result<T, Rejection>,
    declared: &[&str],
    keys: &BTreeSet<String>,
) -> Result<(), TestCaseError> {
    match result {
        Ok(_) => {
            prop_assert!(keys.iter().all(|key| declared.contains(&key.as_str())));
            Ok(())
        }
        Err(rejection) => check_rejection(
            &rejection,
            declared
                .iter()
                .copied()
                .chain(keys.iter().map(String::as_str)),
        ),
    }
}

fn every_request_parser(raw: &str) -> Result<(), TestCaseError> {
    let query = Query::parse(raw);
    let keys = keys_of(raw);
    for operation in courier_models::OPERATIONS {
        let declared: Vec<&str> = operation.query.iter().map(|key| key.name).collect();
        let parsed = parse_request(operation.id, &full_path(), &query)
            .unwrap_or_else(|| panic!("the server has no parser for `{}`", operation.id));
        check_parser(parsed, &declared, &keys)?;
    }
    // Without the path parameters the route guarantees, the operations that have one never
    // succeed, and still answer with a 400 naming a parameter.
    let empty = PathParams::default();
    for operation in courier_models::OPERATIONS
        .iter()
        .filter(|operation| !operation.path_params.is_empty())
    {
        let result = parse_request(operation.id, &empty, &query).expect("a parser");
        let rejection = result.expect_err("a missing path parameter is refused");
        check_rejection(
            &rejection,
            operation
                .path_params
                .iter()
                .copied()
                .chain(keys.iter().map(String::as_str)),
        )?;
    }
    Ok(())
}

/// Pieces hostile queries are made of: stray `%`, bad escapes, lone `=`, `&&`, real keys.
fn piece() -> BoxedStrategy<String> {
    prop_oneof![
        Just("%".to_owned()),
        Just("%zz".to_owned()),
        Just("%z".to_owned()),
        Just("=".to_owned()),
        Just("&".to_owned()),
        Just("&&".to_owned()),
        Just(",".to_owned()),
        Just("+".to_owned()),
        Just("true".to_owned()),
        "%[0-9A-Fa-f]{2}",
        "-?[0-9]{1,20}",
        "[a-zA-Z0-9_]{0,6}",
        select(KEYS.as_slice()).prop_map(str::to_owned),
        select(PERIODS).prop_map(str::to_owned),
        select(STATES).prop_map(str::to_owned),
        any::<char>().prop_map(String::from),
    ]
    .boxed()
}

/// Every byte as `%XX`: arbitrary bytes, most of them not UTF-8 once decoded.
fn percent_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("%{byte:02X}")).collect()
}

fn hostile_query() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        piece(),
        vec(piece(), 0..6).prop_map(|pieces| pieces.concat()),
        vec(any::<u8>(), 0..24).prop_map(|bytes| percent_bytes(&bytes)),
    ]
    .boxed();
    prop_oneof![
        4 => any::<String>(),
        6 => vec(piece(), 0..40).prop_map(|pieces| pieces.concat()),
        // Declared keys with plausible and hostile values, so parsers also reach Ok.
        6 => vec((select(KEYS.as_slice()), value.clone()), 0..8).prop_map(|pairs| {
            pairs
                .iter()
                .map(|(key, value)| format!("{key}={value}"))
                .collect::<Vec<_>>()
                .join("&")
        }),
        // Arbitrary bytes percent-encoded as keys and as values.
        3 => vec((vec(any::<u8>(), 0..12), vec(any::<u8>(), 0..12)), 0..6).prop_map(|pairs| {
            pairs
                .iter()
                .map(|(key, value)| format!("{}={}", percent_bytes(key), percent_bytes(value)))
                .collect::<Vec<_>>()
                .join("&")
        }),
        // Huge repeats.
        1 => (piece(), 500..4000usize).prop_map(|(piece, times)| piece.repeat(times)),
        1 => (select(KEYS.as_slice()), value, 200..2000usize)
            .prop_map(|(key, value, times)| format!("{key}={value}&").repeat(times)),
    ]
}

mod credentials;
mod parsers;
mod socket;
