//! Property tests: credential extraction on any header value, Basic decoding, the query token.

use super::*;

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
        // Management never takes the query token (`docs/decisions.md#d4-query-parameter-token`).
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
