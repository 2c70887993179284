//! Credential extraction: what each interface's security schemes accept, before any method runs.
//!
//! The router only extracts and shapes credentials here; checking them is the implementation's
//! job (`authenticate` on the generated traits), because it owns the account data.

use crate::query::Query;
use crate::runtime::Unauthorized;
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use base64::Engine as _;

/// Messaging credentials: a service token from the bearer header or the `service_token` query
/// key. When both are given, the header wins (`docs/decisions.md#d4-query-parameter-token`).
#[derive(Clone, PartialEq, Eq)]
pub enum MessagingCredentials {
    /// From `Authorization: Bearer <token>`.
    Bearer(String),
    /// From the `service_token` query key.
    QueryToken(String),
}

impl MessagingCredentials {
    /// The service token, however it was sent.
    pub fn token(&self) -> &str {
        match self {
            MessagingCredentials::Bearer(token) | MessagingCredentials::QueryToken(token) => token,
        }
    }

    /// `Ok` when the token is `expected`, compared in constant time; else a bearer challenge
    /// saying `why`. What most `authenticate` implementations of a single-account service do.
    pub fn expect_token(&self, expected: &str, why: &str) -> Result<(), Unauthorized> {
        if constant_time_eq(self.token(), expected) {
            Ok(())
        } else {
            Err(Unauthorized::bearer(why))
        }
    }
}

impl std::fmt::Debug for MessagingCredentials {
    // Credentials must never reach logs, so even a debug dump redacts the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MessagingCredentials::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            MessagingCredentials::QueryToken(_) => f.write_str("QueryToken(<redacted>)"),
        }
    }
}

/// Management credentials from HTTP Basic: `customer_id` and management key
/// (`docs/decisions.md#d10-management-credentials`).
#[derive(Clone, PartialEq, Eq)]
pub struct ManagementCredentials {
    /// The Basic auth username: the account's `customer_id`.
    pub username: String,
    /// The Basic auth password: a management key.
    pub password: String,
}

impl std::fmt::Debug for ManagementCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagementCredentials")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// Splits `Authorization: <scheme> <rest>`; the scheme is case-insensitive (RFC 9110).
fn authorization<'a>(headers: &'a HeaderMap, scheme: &str) -> Option<Result<&'a str, ()>> {
    let value = headers.get(AUTHORIZATION)?;
    let Ok(value) = value.to_str() else {
        return Some(Err(()));
    };
    let (given, rest) = value.split_once(' ').unwrap_or((value, ""));
    if !given.eq_ignore_ascii_case(scheme) {
        return Some(Err(()));
    }
    let rest = rest.trim();
    Some(if rest.is_empty() { Err(()) } else { Ok(rest) })
}

/// The token of `Authorization: Bearer <token>`: `None` without the header, `Some(Err(()))` when
/// it is there but not a bearer token. One parser for every interface (the admin API too), so the
/// scheme is case-insensitive everywhere.
pub fn bearer_token(headers: &HeaderMap) -> Option<Result<&str, ()>> {
    authorization(headers, "Bearer")
}

/// Messaging operations: `Authorization: Bearer <token>`, else the `service_token` query key.
pub fn messaging_credentials(
    headers: &HeaderMap,
    query: &Query,
) -> Result<MessagingCredentials, Unauthorized> {
    match bearer_token(headers) {
        Some(Ok(token)) => Ok(MessagingCredentials::Bearer(token.to_owned())),
        Some(Err(())) => Err(Unauthorized::bearer(
            "the Authorization header must be `Bearer <service token>`",
        )),
        None => match query
            .credential("service_token")
            .filter(|token| !token.is_empty())
        {
            Some(token) => Ok(MessagingCredentials::QueryToken(token)),
            None => Err(Unauthorized::bearer(
                "missing credentials: send `Authorization: Bearer <service token>` or the `service_token` query parameter",
            )),
        },
    }
}

/// Management operations: `Authorization: Basic base64(customer_id:management_key)` only.
pub fn management_credentials(
    headers: &HeaderMap,
    _query: &Query,
) -> Result<ManagementCredentials, Unauthorized> {
    const EXPECTED: &str =
        "the Authorization header must be `Basic base64(customer_id:management_key)`";
    let encoded = match authorization(headers, "Basic") {
        Some(Ok(encoded)) => encoded,
        Some(Err(())) => return Err(Unauthorized::basic(EXPECTED)),
        None => {
            return Err(Unauthorized::basic(format!(
                "missing credentials: {EXPECTED}"
            )));
        }
    };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| {
            Unauthorized::basic(format!("{EXPECTED}; the value is not base64 of UTF-8 text"))
        })?;
    let (username, password) = decoded
        .split_once(':')
        .ok_or_else(|| Unauthorized::basic(format!("{EXPECTED}; the decoded value has no `:`")))?;
    Ok(ManagementCredentials {
        username: username.to_owned(),
        password: password.to_owned(),
    })
}

/// Compares secrets in time independent of where they differ, so response timing does not leak
/// how much of a guessed token was right. `subtle` compares equal-length values without
/// branching; a length mismatch returns early, which tells only the length (not secret here:
/// every token of a kind has the same length).
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq as _;
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn bearer_header_wins_over_the_query_token() {
        let query = Query::parse("service_token=from-query");
        let credentials = messaging_credentials(&headers("bearer from-header"), &query).unwrap();
        assert_eq!(
            credentials,
            MessagingCredentials::Bearer("from-header".into())
        );
        let credentials = messaging_credentials(&HeaderMap::new(), &query).unwrap();
        assert_eq!(
            credentials,
            MessagingCredentials::QueryToken("from-query".into())
        );
    }

    #[test]
    fn wrong_scheme_missing_and_empty_credentials_are_rejected() {
        let empty = Query::default();
        assert!(
            messaging_credentials(&headers("Basic abc"), &Query::parse("service_token=t")).is_err()
        );
        assert!(messaging_credentials(&headers("Bearer "), &empty).is_err());
        assert!(messaging_credentials(&HeaderMap::new(), &Query::parse("service_token=")).is_err());
        assert!(management_credentials(&headers("Bearer abc"), &empty).is_err());
        assert!(management_credentials(&headers("Basic !!!"), &empty).is_err());
        assert!(
            management_credentials(&HeaderMap::new(), &Query::parse("service_token=t")).is_err()
        );
    }

    #[test]
    fn basic_credentials_decode_and_keep_colons_in_the_password() {
        let encoded =
            base64::engine::general_purpose::STANDARD.encode("team@example.com:key:with:colons");
        let credentials =
            management_credentials(&headers(&format!("Basic {encoded}")), &Query::default())
                .unwrap();
        assert_eq!(credentials.username, "team@example.com");
        assert_eq!(credentials.password, "key:with:colons");
        assert!(!format!("{credentials:?}").contains("key:with"));
    }

    #[test]
    fn constant_time_eq_compares_whole_values() {
        assert!(constant_time_eq("secret", "secret"));
        assert!(!constant_time_eq("secret", "secreT"));
        assert!(!constant_time_eq("secret", "secret2"));
        assert!(!constant_time_eq("", "x"));
    }
}
