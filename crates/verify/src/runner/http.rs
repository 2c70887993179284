//! Raw HTTP exchanges with the service under test: every answer is kept as bytes, validated
//! against the contract, and named by the curl command that repeats it (credentials masked).

use crate::contract::OperationContract;
use crate::validate::Validator;
use crate::violation::Violation;
use base64::Engine as _;
use http::HeaderMap;
use reqwest::Url;
use serde_json::Value;
use std::sync::Arc;

/// What credentials a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Auth {
    /// The credentials the operation's interface takes (bearer token or Basic).
    Valid,
    /// None at all.
    Missing,
    /// Credentials of the right scheme that no account has.
    Wrong,
}

/// A request of one operation: its id, path parameters and query.
pub(crate) type Call<'a> = (&'a str, Vec<(&'a str, &'a str)>, Vec<(&'a str, String)>);

/// What stands in for a secret in a curl command of a report.
const MASK: &str = "***";

/// The credentials and addresses of the service under test.
pub(crate) struct Caller {
    pub client: reqwest::Client,
    pub messaging_url: Url,
    pub management_url: Url,
    pub service_token: Option<String>,
    pub management: Option<(String, String)>,
    pub validator: Arc<Validator>,
}

/// One request and its answer.
pub(crate) struct Exchange {
    pub op: &'static OperationContract,
    pub status: u16,
    pub body: Vec<u8>,
    /// The body as JSON, when it is.
    pub json: Option<Value>,
    /// The request as a curl command, credentials masked.
    pub curl: String,
    /// The answer's violations of the contract.
    pub violations: Vec<Violation>,
}

impl Exchange {
    /// The JSON value at `pointer` of the body, `Null` when absent.
    pub fn at(&self, pointer: &str) -> &Value {
        self.json
            .as_ref()
            .and_then(|json| json.pointer(pointer))
            .unwrap_or(&Value::Null)
    }
}

/// Why a request got no answer.
pub(crate) struct Unanswered {
    pub curl: String,
    pub message: String,
}

impl Caller {
    fn is_management(op: &OperationContract) -> bool {
        op.tags.iter().any(|tag| tag == "management")
    }

    /// The URL of `op` with its path parameters filled in (each one percent-encoded as one
    /// segment) and `query` appended in order.
    pub fn url(
        &self,
        op: &OperationContract,
        params: &[(&str, &str)],
        query: &[(&str, String)],
    ) -> Url {
        let base = if Caller::is_management(op) {
            &self.management_url
        } else {
            &self.messaging_url
        };
        self.url_at(base, &op.path, params, query)
    }

    /// `template` under `base`, as [`Caller::url`].
    pub fn url_at(
        &self,
        base: &Url,
        template: &str,
        params: &[(&str, &str)],
        query: &[(&str, String)],
    ) -> Url {
        let mut url = base.clone();
        {
            let mut segments = url
                .path_segments_mut()
                .expect("base URLs are http(s) URLs, checked by the builder");
            segments.pop_if_empty();
            for segment in template.trim_start_matches('/').split('/') {
                let value = segment
                    .strip_prefix('{')
                    .and_then(|name| name.strip_suffix('}'))
                    .and_then(|name| params.iter().find(|(n, _)| *n == name))
                    .map_or(segment, |(_, value)| value);
                segments.push(value);
            }
        }
        if !query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for (key, value) in query {
                pairs.append_pair(key, value);
            }
        }
        url
    }

    /// The `Authorization` header of `op` for `auth`, if any.
    fn authorization(&self, op: &OperationContract, auth: Auth) -> Option<String> {
        let basic = |user: &str, key: &str| {
            let pair = format!("{user}:{key}");
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        };
        match (auth, Caller::is_management(op)) {
            (Auth::Missing, _) => None,
            (Auth::Valid, false) => self.service_token.as_ref().map(|t| format!("Bearer {t}")),
            (Auth::Valid, true) => self.management.as_ref().map(|(user, key)| basic(user, key)),
            (Auth::Wrong, false) => Some("Bearer courier-verify-no-such-token".into()),
            (Auth::Wrong, true) => Some(basic("courier-verify@invalid", "no-such-key")),
        }
    }

    /// Sends a request of `op` and validates its answer against the contract.
    pub async fn call(
        &self,
        op: &'static OperationContract,
        params: &[(&str, &str)],
        query: &[(&str, String)],
        auth: Auth,
    ) -> Result<Exchange, Unanswered> {
        let url = self.url(op, params, query);
        let method = reqwest::Method::from_bytes(op.method.as_bytes())
            .expect("the contract's methods are HTTP methods");
        let authorization = self.authorization(op, auth);
        let (status, headers, body, curl) =
            self.send(method, url, authorization.as_deref()).await?;
        let violations = self
            .validator
            .validate_operation(op, status, &headers, &body);
        let json = serde_json::from_slice(&body).ok();
        Ok(Exchange {
            op,
            status,
            body,
            json,
            curl,
            violations,
        })
    }

    /// Sends a request outside the contract (an unknown path, a method a path does not serve).
    pub async fn send(
        &self,
        method: reqwest::Method,
        url: Url,
        authorization: Option<&str>,
    ) -> Result<(u16, HeaderMap, Vec<u8>, String), Unanswered> {
        let curl = curl(&method, &url, authorization);
        let mut request = self.client.request(method, url);
        if let Some(authorization) = authorization {
            request = request.header(http::header::AUTHORIZATION, authorization);
        }
        let unanswered = |e: reqwest::Error| Unanswered {
            curl: curl.clone(),
            message: format!("no answer: {e}"),
        };
        let response = request.send().await.map_err(unanswered)?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.bytes().await.map_err(unanswered)?.to_vec();
        Ok((status, headers, body, curl))
    }
}

/// The request as a curl command with the credentials masked: the `Authorization` header
/// keeps its scheme, a `service_token` in the query its name.
fn curl(method: &reqwest::Method, url: &Url, authorization: Option<&str>) -> String {
    let mut shown = url.clone();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(key, value)| {
            let value = if key == "service_token" {
                MASK.to_owned()
            } else {
                value.into_owned()
            };
            (key.into_owned(), value)
        })
        .collect();
    if !pairs.is_empty() {
        shown.query_pairs_mut().clear().extend_pairs(pairs);
    }
    let mut words = vec!["curl".to_owned(), "-i".to_owned()];
    if method != reqwest::Method::GET {
        words.extend(["-X".to_owned(), method.to_string()]);
    }
    if let Some(authorization) = authorization {
        let scheme = authorization.split(' ').next().unwrap_or_default();
        words.extend(["-H".to_owned(), format!("Authorization: {scheme} {MASK}")]);
    }
    words.push(shown.to_string());
    words
        .iter()
        .map(|word| shlex::try_quote(word).map_or_else(|_| word.clone(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_commands_mask_every_credential() {
        let url = Url::parse("http://h:1/v2/workflows/dlq?label=a+b&service_token=s3cret").unwrap();
        let shown = curl(&reqwest::Method::DELETE, &url, Some("Bearer s3cret"));
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(
            shown,
            "curl -i -X DELETE -H 'Authorization: Bearer ***' 'http://h:1/v2/workflows/dlq?label=a+b&service_token=***'"
        );
    }
}
