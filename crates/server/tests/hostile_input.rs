//! Hostile input (issue 8, part 3): property tests of the query parser, credential extraction
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

/// Ok only when every key is declared (decision 15); otherwise a 400 naming a declared or a
/// given key.
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

proptest! {
    #![proptest_config(config(384))]

    #[test]
    fn the_query_parser_and_every_accessor_take_anything(raw in hostile_query()) {
        every_accessor(&raw)?;
    }

    #[test]
    fn every_generated_request_parser_takes_anything(raw in hostile_query()) {
        every_request_parser(&raw)?;
    }
}

/// What a client must percent-encode inside one value of a multi-value parameter.
const IN_VALUE: &AsciiSet = &CONTROLS
    .add(b',')
    .add(b'&')
    .add(b'=')
    .add(b'%')
    .add(b'+')
    .add(b'#');

proptest! {
    #![proptest_config(config(256))]

    /// Decision 12: repeated keys and the comma form mix freely; encoded separators stay inside
    /// their value; order is kept; any empty value is a 400 naming the key, never dropped.
    #[test]
    fn multi_values_round_trip_in_any_mix_of_forms(
        key in select(&["label", "workflowUrl", "dlqIds", "callerIp", "flowControlKey"][..]),
        values in vec((any::<String>(), any::<bool>(), any::<bool>()), 0..10),
        noise in any::<bool>(),
        encoded_key in any::<bool>(),
    ) {
        let spelled_key = if encoded_key { percent_bytes(key.as_bytes()) } else { key.to_owned() };
        let mut raw = String::new();
        for (index, (value, new_pair, plus_for_space)) in values.iter().enumerate() {
            let mut encoded = utf8_percent_encode(value, IN_VALUE).to_string();
            if *plus_for_space {
                encoded = encoded.replace(' ', "+");
            }
            if index == 0 || *new_pair {
                if index > 0 {
                    raw.push('&');
                }
                if noise {
                    raw.push_str("other=a,b&&");
                }
                raw.push_str(&spelled_key);
                raw.push('=');
            } else {
                raw.push(',');
            }
            raw.push_str(&encoded);
        }
        let parsed = Query::parse(&raw).strings(key);
        if values.iter().any(|(value, ..)| value.is_empty()) {
            let refused = parsed.expect_err("an empty value is refused");
            prop_assert!(refused.message().starts_with(&format!("`{key}` has an empty value")), "{}: {}", raw, refused.message());
        } else {
            let expected: Vec<&str> = values.iter().map(|(value, ..)| value.as_str()).collect();
            prop_assert_eq!(parsed.as_ref().map(|v| v.iter().map(String::as_str).collect::<Vec<_>>()), Ok(expected), "{}", raw);
        }
    }
}

fn authorization(value: HeaderValue) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, value);
    headers
}

/// The part after the scheme, as a Basic or Bearer header carries it.
fn after_scheme(value: &str) -> &str {
    value.split_once(' ').map_or("", |(_, rest)| rest).trim()
}

fn check_unauthorized(
    rejection: courier_server::Unauthorized,
    scheme: &str,
) -> Result<(), TestCaseError> {
    prop_assert!(!rejection.message().is_empty());
    let response = rejection.into_response();
    prop_assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let challenge = response
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    prop_assert!(challenge.starts_with(scheme), "{}", challenge);
    Ok(())
}

/// Both interfaces' extraction on one Authorization header: Ok only for what the header really
/// says, else a 401 with the interface's challenge.
fn check_credentials(value: HeaderValue, query: &Query) -> Result<(), TestCaseError> {
    let text = value.to_str().ok().map(str::to_owned);
    let headers = authorization(value);
    match messaging_credentials(&headers, query) {
        Ok(MessagingCredentials::Bearer(token)) => {
            let text = text
                .as_deref()
                .expect("a token is only read from a visible-ASCII header");
            prop_assert!(text.len() >= 6 && text[..6].eq_ignore_ascii_case("bearer"));
            prop_assert!(!token.is_empty());
            prop_assert_eq!(token.as_str(), after_scheme(text));
        }
        Ok(MessagingCredentials::QueryToken(_)) => {
            prop_assert!(false, "the query token was used although a header was sent")
        }
        Err(rejection) => check_unauthorized(rejection, "Bearer")?,
    }
    match management_credentials(&headers, query) {
        Ok(credentials) => {
            let text = text
                .as_deref()
                .expect("Basic credentials are only read from a visible-ASCII header");
            prop_assert!(text.len() >= 5 && text[..5].eq_ignore_ascii_case("basic"));
            let again =
                STANDARD.encode(format!("{}:{}", credentials.username, credentials.password));
            prop_assert_eq!(again.as_str(), after_scheme(text));
        }
        Err(rejection) => check_unauthorized(rejection, "Basic")?,
    }
    Ok(())
}

/// Bytes a header value may hold: visible ASCII, space, tab and obs-text.
fn header_byte() -> impl Strategy<Value = u8> {
    prop_oneof![8 => 0x20u8..0x7f, 1 => 0x80u8..=0xff, 1 => Just(b'\t')]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn credential_extraction_takes_any_header_value(
        scheme in select(&["", "Basic ", "basic ", "BASIC  ", "Bearer ", "bearer\t", "Bearer", " Basic ", "Bearer  "][..]),
        bytes in vec(header_byte(), 0..80),
        raw in hostile_query(),
    ) {
        let mut full = scheme.as_bytes().to_vec();
        full.extend(bytes);
        let value = HeaderValue::from_bytes(&full).expect("only header-value bytes were generated");
        check_credentials(value, &Query::parse(&raw))?;
    }

    #[test]
    fn basic_credentials_of_any_base64_decode_exactly_or_are_refused(
        scheme in select(&["Basic", "basic", "BASIC", "bAsIc"][..]),
        bytes in prop_oneof![
            vec(any::<u8>(), 0..64),
            (any::<String>(), any::<String>()).prop_map(|(user, key)| format!("{user}:{key}").into_bytes()),
        ],
        spaces in 1..3usize,
        trailing in 0..3usize,
    ) {
        let encoded = STANDARD.encode(&bytes);
        let header = format!("{scheme}{}{encoded}{}", " ".repeat(spaces), " ".repeat(trailing));
        let value = HeaderValue::from_str(&header).expect("base64 is a valid header value");
        check_credentials(value.clone(), &Query::default())?;
        let result = management_credentials(&authorization(value), &Query::default());
        match (std::str::from_utf8(&bytes).ok().and_then(|text| text.split_once(':')), result) {
            (Some((user, key)), Ok(credentials)) => {
                prop_assert_eq!(credentials.username.as_str(), user);
                prop_assert_eq!(credentials.password.as_str(), key);
            }
            (None, Err(_)) => {}
            (expected, got) => prop_assert!(false, "expected {:?}, got {:?}", expected, got),
        }
    }

    #[test]
    fn the_query_token_is_used_only_without_a_header(raw in hostile_query()) {
        let query = Query::parse(&raw);
        match messaging_credentials(&HeaderMap::new(), &query) {
            Ok(MessagingCredentials::QueryToken(token)) => {
                prop_assert!(!token.is_empty());
                prop_assert_eq!(Some(token), query.credential("service_token"));
            }
            Ok(MessagingCredentials::Bearer(_)) => prop_assert!(false, "a bearer token without a header"),
            Err(rejection) => {
                prop_assert!(query.credential("service_token").is_none_or(|token| token.is_empty()));
                check_unauthorized(rejection, "Bearer")?;
            }
        }
        // Management never takes the query token (decision 4).
        prop_assert!(management_credentials(&HeaderMap::new(), &query).is_err());
    }
}

#[test]
fn edge_queries_from_the_brief_never_panic_and_name_the_key() {
    for raw in [
        "%",
        "label=%",
        "label=a%",
        "%zz",
        "label=%zz",
        "count=%zz",
        "=",
        "==",
        "=x",
        "&&",
        "&=&",
        "label=%FF",
        "%FF=1",
        "count=%2B1",
        "count=99999999999999999999",
        "count=-9223372036854775808",
    ] {
        every_accessor(raw).unwrap_or_else(|error| panic!("{raw}: {error}"));
        every_request_parser(raw).unwrap_or_else(|error| panic!("{raw}: {error}"));
    }
    // A lone `=` is an empty key, which no operation declares.
    let rejection = ListWorkflowDlqRequest::parse(&full_path(), &Query::parse("="))
        .expect_err("an empty key is unknown");
    assert!(
        rejection
            .message()
            .starts_with("unknown query parameter ``"),
        "{}",
        rejection.message()
    );
    let rejection = Query::parse("count=%zz")
        .integer("count", Some(1), Some(100))
        .expect_err("not an integer");
    assert_eq!(rejection.message(), "`count` must be an integer, got `%zz`");
}

// ---------------------------------------------------------------------------------------------
// Over the socket.

const TOKEN: &str = "hostile-token";

/// The smallest implementation of both traits: list answers an empty page, the rest a fixed
/// error; management refuses every credential.
struct Fixed;

fn fixed() -> courier_models::ErrorBody {
    error_body("fixed answer")
}

impl MessagingApi for Fixed {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        if courier_server::auth::constant_time_eq(credentials.token(), TOKEN) {
            Ok(())
        } else {
            Err(Unauthorized::bearer("wrong token"))
        }
    }

    async fn list_workflow_dlq(&self, _: (), _: ListWorkflowDlqRequest) -> ListWorkflowDlqResponse {
        ListWorkflowDlqResponse::Ok(courier_models::ListWorkflowDlqResponse {
            cursor: None,
            messages: Vec::new(),
        })
    }

    async fn get_workflow_dlq(&self, _: (), _: GetWorkflowDlqRequest) -> GetWorkflowDlqResponse {
        GetWorkflowDlqResponse::NotFound(fixed())
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        _: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        DeleteWorkflowDlqBulkResponse::InternalServerError(fixed())
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        _: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        DeleteDlqMessageResponse::NotFound(fixed())
    }

    async fn get_url_group(&self, _: (), _: GetUrlGroupRequest) -> GetUrlGroupResponse {
        GetUrlGroupResponse::NotFound(fixed())
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        _: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        CancelWorkflowRunResponse::NotFound(fixed())
    }

    async fn cancel_workflow_runs(
        &self,
        _: (),
        _: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResponse {
            cancelled: 0,
            cursor: None,
        })
    }
}

impl ManagementApi for Fixed {
    type Principal = ();

    async fn authenticate(&self, _: ManagementCredentials) -> Result<(), Unauthorized> {
        Err(Unauthorized::basic("no management here"))
    }

    async fn get_account_stats(&self, _: (), _: GetAccountStatsRequest) -> GetAccountStatsResponse {
        GetAccountStatsResponse::InternalServerError(fixed())
    }

    async fn get_search_index(&self, _: (), _: GetSearchIndexRequest) -> GetSearchIndexResponse {
        GetSearchIndexResponse::InternalServerError(fixed())
    }

    async fn get_search_index_stats(
        &self,
        _: (),
        _: GetSearchIndexStatsRequest,
    ) -> GetSearchIndexStatsResponse {
        GetSearchIndexStatsResponse::InternalServerError(fixed())
    }

    async fn rotate_token(&self, _: (), _: RotateTokenRequest) -> RotateTokenResponse {
        RotateTokenResponse::InternalServerError(fixed())
    }
}

async fn serve() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let api = Arc::new(Fixed);
    let app = router(api.clone(), api);
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    address
}

/// What the server did with one raw request.
#[derive(Debug)]
enum Outcome {
    Answered {
        status: u16,
        body: String,
    },
    /// Closed (or reset) the connection without an answer.
    Closed,
}

/// Sends `request` (writing and reading at once, so an early answer is not lost to a reset),
/// optionally half-closes, and reads until the server closes.
async fn exchange(address: SocketAddr, request: Vec<u8>, half_close: bool) -> Outcome {
    let stream = TcpStream::connect(address).await.expect("connect");
    let (mut reader, mut writer) = stream.into_split();
    let sending = tokio::spawn(async move {
        // The server may answer and close before reading everything: a failed write is fine.
        if writer.write_all(&request).await.is_ok() && half_close {
            let _ = writer.shutdown().await;
        }
        writer
    });
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), reader.read_to_end(&mut answer)).await;
    assert!(
        read.is_ok(),
        "the server neither answered nor closed within 20 s"
    );
    drop(sending.await.expect("writer task"));
    let text = String::from_utf8_lossy(&answer);
    let Some(status) = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
    else {
        assert!(answer.is_empty(), "not an HTTP answer: {text:?}");
        return Outcome::Closed;
    };
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, body)| body)
        .to_owned();
    Outcome::Answered { status, body }
}

fn get(target: &[u8], extra_headers: &str) -> Vec<u8> {
    let mut request = b"GET ".to_vec();
    request.extend_from_slice(target);
    request.extend_from_slice(
        format!(" HTTP/1.1\r\nhost: courier\r\nconnection: close\r\n{extra_headers}\r\n")
            .as_bytes(),
    );
    request
}

fn bearer() -> String {
    format!("authorization: Bearer {TOKEN}\r\n")
}

/// A 4xx (or, where `may_close`, a closed connection); returns the JSON error message if any.
fn refused(outcome: &Outcome, may_close: bool, what: &str) -> Option<String> {
    match outcome {
        Outcome::Answered { status, body } => {
            assert!((400..500).contains(status), "{what}: {status} {body}");
            serde_json::from_str::<serde_json::Value>(body)
                .ok()
                .and_then(|json| json["error"].as_str().map(str::to_owned))
        }
        Outcome::Closed => {
            assert!(may_close, "{what}: closed without an answer");
            None
        }
    }
}

fn status(outcome: &Outcome) -> Option<u16> {
    match outcome {
        Outcome::Answered { status, .. } => Some(*status),
        Outcome::Closed => None,
    }
}

async fn still_serving(address: SocketAddr, after: &str) {
    let outcome = exchange(address, get(b"/v2/workflows/dlq?count=5", &bearer()), false).await;
    match outcome {
        Outcome::Answered { status: 200, body } => {
            assert_eq!(body, r#"{"messages":[]}"#, "after {after}")
        }
        other => panic!("after {after}, a valid request got {other:?}"),
    }
}

#[tokio::test]
async fn hostile_requests_are_refused_and_the_server_keeps_serving() {
    let address = serve().await;
    still_serving(address, "start").await;

    // 100 KB query: past the `http` crate's 64 KiB URI limit hyper answers 414 itself.
    let target = format!("/v2/workflows/dlq?label={}", "a".repeat(100_000));
    let outcome = exchange(address, get(target.as_bytes(), &bearer()), false).await;
    refused(&outcome, false, "100 KB query");
    assert_eq!(status(&outcome), Some(414), "{outcome:?}");
    still_serving(address, "100 KB query").await;

    // Over the router's own limit but under hyper's: 400 with the error body, before routing.
    let target = format!(
        "/v2/workflows/dlq?label={}",
        "a,".repeat(MAX_QUERY_BYTES / 2)
    );
    let outcome = exchange(address, get(target.as_bytes(), &bearer()), false).await;
    let message = refused(&outcome, false, "long query").expect("JSON error");
    assert_eq!(status(&outcome), Some(400));
    assert!(message.contains("-byte limit"), "{message}");
    still_serving(address, "long query").await;

    // A query just under the limit is parsed as usual.
    let target = format!(
        "/v2/workflows/dlq?label={}a",
        "a,".repeat(MAX_QUERY_BYTES / 2 - 10)
    );
    let outcome = exchange(address, get(target.as_bytes(), &bearer()), false).await;
    assert_eq!(status(&outcome), Some(200), "{outcome:?}");

    // 1 MB header: past hyper's read buffer, 431 (or a reset while the rest is still sent).
    let header = format!("x-padding: {}\r\n{}", "p".repeat(1 << 20), bearer());
    let outcome = exchange(address, get(b"/v2/workflows/dlq", &header), false).await;
    refused(&outcome, true, "1 MB header");
    assert!(matches!(status(&outcome), Some(431) | None), "{outcome:?}");
    still_serving(address, "1 MB header").await;

    // Too many headers: hyper's limit is 100.
    let header: String = (0..200).map(|n| format!("x-h{n}: v\r\n")).collect();
    let outcome = exchange(address, get(b"/v2/workflows/dlq", &header), false).await;
    refused(&outcome, true, "200 headers");
    still_serving(address, "200 headers").await;

    // A big token that hyper lets through reaches authentication and is a 401 with the body.
    let header = format!("authorization: Bearer {}\r\n", "t".repeat(200_000));
    let outcome = exchange(address, get(b"/v2/workflows/dlq", &header), false).await;
    assert_eq!(status(&outcome), Some(401), "{outcome:?}");
    assert_eq!(
        refused(&outcome, false, "big token").as_deref(),
        Some("wrong token")
    );

    // Invalid UTF-8 behind percent escapes in the path and in the query: 400 with the body.
    let outcome = exchange(
        address,
        get(b"/v2/workflows/dlq/%FF%FE?label=%C3%28", &bearer()),
        false,
    )
    .await;
    assert_eq!(status(&outcome), Some(400), "{outcome:?}");
    let message = refused(&outcome, false, "bad path escape").expect("JSON error");
    assert!(message.contains("path"), "{message}");
    let outcome = exchange(
        address,
        get(b"/v2/workflows/dlq?label=%C3%28&count=1", &bearer()),
        false,
    )
    .await;
    assert_eq!(status(&outcome), Some(400), "{outcome:?}");
    let message = refused(&outcome, false, "bad query escape").expect("JSON error");
    assert!(message.contains("`label`"), "{message}");
    // ... and before authentication the query token is simply not found: 401, not a panic.
    let outcome = exchange(
        address,
        get(b"/v2/workflows/dlq?service_token=%FF", ""),
        false,
    )
    .await;
    assert_eq!(status(&outcome), Some(401), "{outcome:?}");
    still_serving(address, "bad escapes").await;

    // Raw bytes that are not UTF-8 in the request line: malformed HTTP, refused by hyper.
    let outcome = exchange(
        address,
        get(b"/v2/workflows/\xff\xfe?label=\xc3\x28", &bearer()),
        false,
    )
    .await;
    refused(&outcome, true, "raw non-UTF-8 request line");
    still_serving(address, "raw non-UTF-8 request line").await;

    // A 20 MB body announced: 413 with the error body, without reading it.
    let request = format!(
        "DELETE /v2/workflows/dlq HTTP/1.1\r\nhost: courier\r\n{}content-length: 20000000\r\n\r\n{}",
        bearer(),
        "x".repeat(1000)
    );
    let outcome = exchange(address, request.into_bytes(), false).await;
    assert_eq!(status(&outcome), Some(413), "{outcome:?}");
    let message = refused(&outcome, false, "20 MB body").expect("JSON error");
    assert!(message.contains("limit"), "{message}");
    still_serving(address, "20 MB body").await;

    // A request cut off mid-header, then the client closes: no answer but a closed connection
    // (or a 400), and nothing left behind that stops the next request.
    let outcome = exchange(
        address,
        b"GET /v2/workflows/dlq?la HTTP/1.1\r\nhost: cou".to_vec(),
        true,
    )
    .await;
    refused(&outcome, true, "truncated request");
    // Cut off mid-body (no operation reads a body; this one has no credentials).
    let request = b"POST /v2/svc/user/rotatetoken HTTP/1.1\r\nhost: courier\r\ncontent-length: 100\r\n\r\nabc";
    let outcome = exchange(address, request.to_vec(), true).await;
    refused(&outcome, true, "truncated body");
    still_serving(address, "truncated requests").await;
}
