//! Raw HTTP exchanges with the service under test: every answer is kept as bytes (at most a
//! documented cap), validated against the contract, and named by the curl command that repeats
//! it. Requests are paced under a rate, and a 429 is waited out as its headers say.

use crate::contract::OperationContract;
use crate::validate::Validator;
use crate::violation::{Violation, printable};
use base64::Engine as _;
use http::HeaderMap;
use reqwest::Url;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::Mutex;

/// What credentials a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Auth {
    /// The credentials the operation's interface takes (bearer token or Basic).
    Valid,
    /// None at all.
    Missing,
    /// Credentials of the right scheme that no account has.
    Wrong,
    /// The service token in the `service_token` query parameter, no header.
    QueryToken,
}

/// A request of one operation: its id, path parameters and query.
pub(crate) type Call<'a> = (&'a str, Vec<(&'a str, &'a str)>, Vec<(&'a str, String)>);

/// Stands in a query value for a comma the URL must keep literal (the comma form of a
/// multi-valued parameter); every other comma is percent-encoded, which makes it part of the
/// value.
pub(crate) const LITERAL_COMMA: char = '\u{e000}';

/// What stands in for a secret in a curl command of a report.
const MASK: &str = "***";
/// The bearer token no account has, shown as it is in reports (it is no secret).
pub(crate) const WRONG_TOKEN: &str = "courier-verify-no-such-token";
/// The Basic credentials no account has.
pub(crate) const WRONG_BASIC: (&str, &str) = ("courier-verify@invalid", "no-such-key");

/// How the verifier treats the service's limits.
#[derive(Debug, Clone)]
pub(crate) struct Politeness {
    /// The least time between two requests (`None`: no pacing).
    pub interval: Option<Duration>,
    /// How long one request may keep waiting out 429s before its 429 is what it got.
    pub patience: Duration,
    /// The largest answer body read; a larger one is an error naming the cap.
    pub max_answer_bytes: usize,
}

/// The credentials and addresses of the service under test.
pub(crate) struct Caller {
    pub client: reqwest::Client,
    pub messaging_url: Url,
    pub management_url: Url,
    pub service_token: std::sync::RwLock<Option<String>>,
    pub management: Option<(String, String)>,
    pub validator: Arc<Validator>,
    pub politeness: Politeness,
    /// When the next request may leave, under pacing.
    pub next_slot: Mutex<Instant>,
    /// How many 429s were waited out.
    pub rate_limited: AtomicUsize,
    /// Requests in a row that got no answer: past [`GIVE_UP_AFTER`], none is sent any more.
    pub unanswered_in_a_row: AtomicUsize,
}

/// How many requests in a row may get no answer (refused, timed out, cut off, over the cap)
/// before the run stops sending: a service that stopped answering would otherwise cost every
/// remaining request its whole timeout.
pub(crate) const GIVE_UP_AFTER: usize = 3;

/// One request and its answer.
pub(crate) struct Exchange {
    pub op: &'static OperationContract,
    pub status: u16,
    pub headers: HeaderMap,
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
    pub(crate) fn at(&self, pointer: &str) -> &Value {
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

/// A raw answer: status, headers, body, and the request as curl.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub curl: String,
}

impl Caller {
    pub(super) fn is_management(op: &OperationContract) -> bool {
        op.tags.iter().any(|tag| tag == "management")
    }

    /// The URL of `op` with its path parameters filled in (each one percent-encoded as one
    /// segment) and `query` appended in order.
    pub(super) fn url(
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
        let mut url = base.clone();
        {
            let mut segments = url
                .path_segments_mut()
                .expect("base URLs are http(s) URLs, checked by the builder");
            segments.pop_if_empty();
            for segment in op.path.trim_start_matches('/').split('/') {
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
        if let Some(encoded) = url.query().filter(|q| q.contains("%EE%80%80")) {
            let literal = encoded.replace("%EE%80%80", ",");
            url.set_query(Some(&literal));
        }
        url
    }

    /// The service token in use (a rotation scenario replaces it).
    pub(super) fn service_token(&self) -> Option<String> {
        self.service_token
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The `Authorization` header of `op` for `auth`, if any, and whether it is a secret.
    pub(super) fn authorization(
        &self,
        op: &OperationContract,
        auth: Auth,
    ) -> Option<(String, bool)> {
        let basic = |user: &str, key: &str| {
            let pair = format!("{user}:{key}");
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        };
        match (auth, Caller::is_management(op)) {
            (Auth::Missing | Auth::QueryToken, _) => None,
            (Auth::Valid, false) => self.service_token().map(|t| (format!("Bearer {t}"), true)),
            (Auth::Valid, true) => self
                .management
                .as_ref()
                .map(|(user, key)| (basic(user, key), true)),
            (Auth::Wrong, false) => Some((format!("Bearer {WRONG_TOKEN}"), false)),
            (Auth::Wrong, true) => Some((basic(WRONG_BASIC.0, WRONG_BASIC.1), false)),
        }
    }

    /// Sends a request of `op` and validates its answer against the contract; 429s are
    /// waited out as their headers say, within the patience.
    pub(super) async fn call(
        &self,
        op: &'static OperationContract,
        params: &[(&str, &str)],
        query: &[(&str, String)],
        auth: Auth,
    ) -> Result<Exchange, Unanswered> {
        self.call_with(op, params, query, auth, true).await
    }

    /// [`Caller::call`], answering a 429 as it comes.
    pub(super) async fn call_once(
        &self,
        op: &'static OperationContract,
        params: &[(&str, &str)],
        query: &[(&str, String)],
        auth: Auth,
    ) -> Result<Exchange, Unanswered> {
        self.call_with(op, params, query, auth, false).await
    }

    async fn call_with(
        &self,
        op: &'static OperationContract,
        params: &[(&str, &str)],
        query: &[(&str, String)],
        auth: Auth,
        wait_out_429: bool,
    ) -> Result<Exchange, Unanswered> {
        let mut query = query.to_vec();
        if auth == Auth::QueryToken {
            query.push(("service_token", self.service_token().unwrap_or_default()));
        }
        let url = self.url(op, params, &query);
        let method = reqwest::Method::from_bytes(op.method.as_bytes())
            .expect("the contract's methods are HTTP methods");
        let authorization = self.authorization(op, auth);
        let answer = self
            .send(method, url, authorization.as_ref(), wait_out_429)
            .await?;
        let violations =
            self.validator
                .validate_operation(op, answer.status, &answer.headers, &answer.body);
        let json = serde_json::from_slice(&answer.body).ok();
        Ok(Exchange {
            op,
            status: answer.status,
            headers: answer.headers,
            body: answer.body,
            json,
            curl: answer.curl,
            violations,
        })
    }

    /// Waits for this request's slot under the pacing rate.
    async fn pace(&self) {
        let Some(interval) = self.politeness.interval else {
            return;
        };
        let mut next = self.next_slot.lock().await;
        let now = Instant::now();
        if *next > now {
            tokio::time::sleep(*next - now).await;
        }
        *next = Instant::now() + interval;
    }

    /// Sends a request; with `wait_out_429`, a 429 is waited out as its headers say, until the
    /// patience is spent. `authorization` is the header and whether it is a secret.
    pub(super) async fn send(
        &self,
        method: reqwest::Method,
        url: Url,
        authorization: Option<&(String, bool)>,
        wait_out_429: bool,
    ) -> Result<Answer, Unanswered> {
        let curl = curl(&method, &url, authorization);
        if self.unanswered_in_a_row.load(Ordering::Relaxed) >= GIVE_UP_AFTER {
            return Err(Unanswered {
                curl,
                message: format!(
                    "not sent: the last {GIVE_UP_AFTER} requests got no answer, so the service is taken to have stopped answering"
                ),
            });
        }
        let answered = self
            .send_now(method, url, authorization, wait_out_429, curl)
            .await;
        match &answered {
            Ok(_) => self.unanswered_in_a_row.store(0, Ordering::Relaxed),
            Err(_) => {
                self.unanswered_in_a_row.fetch_add(1, Ordering::Relaxed);
            }
        }
        answered
    }

    async fn send_now(
        &self,
        method: reqwest::Method,
        url: Url,
        authorization: Option<&(String, bool)>,
        wait_out_429: bool,
        curl: String,
    ) -> Result<Answer, Unanswered> {
        let started = Instant::now();
        loop {
            self.pace().await;
            let mut request = self.client.request(method.clone(), url.clone());
            if let Some((authorization, _)) = authorization {
                request = request.header(http::header::AUTHORIZATION, authorization);
            }
            let unanswered = |e: reqwest::Error| Unanswered {
                curl: curl.clone(),
                message: format!("no answer: {}", error_chain(&e)),
            };
            let mut response = request.send().await.map_err(unanswered)?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(unanswered)? {
                if body.len() + chunk.len() > self.politeness.max_answer_bytes {
                    return Err(Unanswered {
                        curl,
                        message: format!(
                            "the answer is larger than {} bytes, the verifier's cap on one answer (max_answer_bytes)",
                            self.politeness.max_answer_bytes
                        ),
                    });
                }
                body.extend_from_slice(&chunk);
            }
            if status == 429 && wait_out_429 {
                let wait = retry_after(&headers).unwrap_or(Duration::from_secs(1));
                if started.elapsed() + wait <= self.politeness.patience {
                    self.rate_limited.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            return Ok(Answer {
                status,
                headers,
                body,
                curl,
            });
        }
    }
}

/// How long a 429 asks to wait: `Retry-After` (seconds), else the reset time of the
/// per-second or daily limit (Unix seconds).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number =
        |name: &str| -> Option<u64> { headers.get(name)?.to_str().ok()?.trim().parse().ok() };
    if let Some(seconds) = number("retry-after") {
        return Some(Duration::from_secs(seconds.max(1)));
    }
    let reset = number("burst-ratelimit-reset").or_else(|| number("ratelimit-reset"))?;
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(reset.saturating_sub(now).max(1)))
}

/// An error with its causes, so "error sending request" says why (refused, DNS, TLS, ...).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The request as a curl command. Real credentials are masked (the `Authorization` header keeps
/// its scheme, a `service_token` in the query its name, a password in the URL its user);
/// deliberately wrong ones are shown as sent, so the command can be pasted and told apart.
fn curl(method: &reqwest::Method, url: &Url, authorization: Option<&(String, bool)>) -> String {
    let mut shown = url.clone();
    if shown.password().is_some() {
        let _ = shown.set_password(Some(MASK));
    }
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
    if let Some((authorization, secret)) = authorization {
        let header = if *secret {
            let scheme = authorization.split(' ').next().unwrap_or_default();
            format!("Authorization: {scheme} {MASK}")
        } else {
            format!("Authorization: {authorization}")
        };
        words.extend(["-H".to_owned(), header]);
    }
    words.push(shown.to_string());
    printable(
        &words
            .iter()
            .map(|word| shlex::try_quote(word).map_or_else(|_| word.clone(), |q| q.into_owned()))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_commands_mask_real_credentials_and_show_wrong_ones() {
        let url = Url::parse("http://user:pw@h:1/v2/workflows/dlq?label=a+b&service_token=s3cret")
            .unwrap();
        let shown = curl(
            &reqwest::Method::DELETE,
            &url,
            Some(&("Bearer s3cret".to_owned(), true)),
        );
        assert!(
            !shown.contains("s3cret") && !shown.contains(":pw@"),
            "{shown}"
        );
        assert_eq!(
            shown,
            "curl -i -X DELETE -H 'Authorization: Bearer ***' 'http://user:***@h:1/v2/workflows/dlq?label=a+b&service_token=***'"
        );
        let wrong = curl(
            &reqwest::Method::GET,
            &Url::parse("http://h:1/v2/workflows/dlq").unwrap(),
            Some(&(format!("Bearer {WRONG_TOKEN}"), false)),
        );
        assert!(wrong.contains(WRONG_TOKEN), "{wrong}");
    }

    #[test]
    fn a_429_is_waited_out_as_its_headers_say() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", "3".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        let mut headers = HeaderMap::new();
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        headers.insert(
            "burst-ratelimit-reset",
            (now + 2).to_string().parse().unwrap(),
        );
        let wait = retry_after(&headers).unwrap();
        assert!(wait >= Duration::from_secs(1) && wait <= Duration::from_secs(2));
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }
}
