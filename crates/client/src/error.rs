//! The client's one error type: every `send()`, every helper and every builder failure ends up a
//! [`CourierError`], whose one-line message starts with the status and the service's message
//! and ends with the whole chain of causes.

use courier_models::ErrorBody;
use std::error::Error as StdError;
use std::fmt;

/// `Result` with [`CourierError`], the error of every `send()` of this crate.
pub type Result<T, E = CourierError> = std::result::Result<T, E>;

/// A client could not be built from the given configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// What went wrong talking to the service.
///
/// `Display` is one line: `404 Not Found: no failed run with dlqId `x` in the DLQ` when the
/// service answered, otherwise what failed followed by every cause (`could not reach the
/// service: error sending request …: invalid peer certificate: UnknownIssuer`). The causes are
/// also available one by one through [`std::error::Error::source`]. `Debug` prints the same
/// line (so `fn main() -> Result<(), CourierError>` reports it readably); `{:#?}` shows the fields.
pub struct CourierError {
    /// The HTTP status, when the service answered.
    pub status: Option<u16>,
    /// The `error` message of the body, or a description of the failure.
    pub message: String,
    /// Whether sending the same request again might succeed (connection failure, timeout, 429,
    /// 5xx); never for bad addresses, bad parameters, configuration or certificate errors.
    pub retryable: bool,
    /// How long the service asked to wait before the next attempt (a 429's `Retry-After`, or the
    /// reset of the exhausted rate-limit window), when it said.
    pub retry_after: Option<std::time::Duration>,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    #[cfg(feature = "validate")]
    violations: Vec<courier_verify::Violation>,
}

impl CourierError {
    /// An error with no underlying cause.
    pub fn new(status: Option<u16>, message: impl Into<String>, retryable: bool) -> CourierError {
        CourierError {
            status,
            message: message.into(),
            retryable,
            retry_after: None,
            source: None,
            #[cfg(feature = "validate")]
            violations: Vec::new(),
        }
    }

    fn caused_by(mut self, source: impl StdError + Send + Sync + 'static) -> CourierError {
        self.source = Some(Box::new(source));
        self
    }

    /// Whether the service answered `404 Not Found`.
    pub fn is_not_found(&self) -> bool {
        self.status == Some(404)
    }

    /// Whether the service answered `501 Not Implemented`: a partial implementation of the
    /// interface (a fake, a proxy) does not provide the operation. Never retried.
    pub fn is_not_implemented(&self) -> bool {
        self.status == Some(501)
    }

    /// Whether the service answered `429 Too Many Requests` (after the client's own retries):
    /// [`retry_after`](Self::retry_after) says how long it asked to wait.
    pub fn is_rate_limited(&self) -> bool {
        self.status == Some(429)
    }

    /// How long the service asked to wait before trying again, when it said.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        self.retry_after
    }

    /// How the answer broke the spec, when the client validates answers
    /// ([`validate_responses`](crate::MessagingClientBuilder::validate_responses)); empty for
    /// every other error.
    #[cfg(feature = "validate")]
    pub fn violations(&self) -> &[courier_verify::Violation] {
        &self.violations
    }

    /// The error of an answer that broke the spec: the first violation in the message.
    #[cfg(feature = "validate")]
    fn contract_violation(violations: Vec<courier_verify::Violation>) -> CourierError {
        let first = &violations[0];
        let place = if first.pointer.is_empty() {
            String::new()
        } else {
            format!(" at {}", first.pointer)
        };
        let more = match violations.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let mut error = CourierError::new(
            Some(first.status),
            format!(
                "the answer of {} breaks the spec{place}: {}{more}",
                first.operation_id, first.message
            ),
            false,
        );
        error.violations = violations;
        error
    }
}

impl fmt::Display for CourierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(status) = self.status {
            let reason = reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("");
            // "429 Too Many Requests: too many requests: …" says one thing twice.
            let repeated = self
                .message
                .get(..reason.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(reason));
            if reason.is_empty() || repeated {
                write!(f, "{status}: ")?;
            } else {
                write!(f, "{status} {reason}: ")?;
            }
        }
        f.write_str(&self.message)?;
        // Every cause, deduplicated: reqwest and hyper often repeat an inner message verbatim.
        let mut written = self.message.clone();
        let mut cause = self.source();
        while let Some(error) = cause {
            let text = error.to_string();
            if !text.is_empty() && !written.contains(&text) {
                write!(f, ": {text}")?;
                written.push_str(&text);
            }
            cause = error.source();
        }
        if self.retryable {
            f.write_str(" (retryable)")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CourierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.debug_struct("CourierError")
                .field("status", &self.status)
                .field("message", &self.message)
                .field("retryable", &self.retryable)
                .field("retry_after", &self.retry_after)
                .field("source", &self.source)
                .finish()
        } else {
            fmt::Display::fmt(self, f)
        }
    }
}

impl StdError for CourierError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn StdError + 'static))
    }
}

/// The longest text from an answer (the service's `error`, a decoding error quoting a value) an
/// error carries whole; a longer one keeps its start and end. A hostile answer of 16 MiB must
/// not become a 16 MiB line on someone's terminal.
const MAX_QUOTED: usize = 1024;

/// `text`, or its first two thirds and last third of [`MAX_QUOTED`] around a note of how much
/// was left out.
fn elided(text: String) -> String {
    if text.len() <= MAX_QUOTED {
        return text;
    }
    let mut head = MAX_QUOTED * 2 / 3;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - MAX_QUOTED / 3;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{} …({} bytes left out)… {}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// A cause whose message was [`elided`]: the original error would print it whole.
#[derive(Debug)]
struct Elided(String);

impl fmt::Display for Elided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl StdError for Elided {}

/// progenitor's messages for a setter value it could not convert name a Rust type
/// (``conversion to `:: std :: num :: NonZeroU64` for count failed``); say what is allowed.
fn explain_invalid_request(message: String) -> String {
    let Some(rest) = message.strip_prefix("conversion to `") else {
        return message;
    };
    let Some((type_name, rest)) = rest.split_once("` for ") else {
        return message;
    };
    let Some(parameter) = rest.strip_suffix(" failed") else {
        return message;
    };
    let type_name: String = type_name.chars().filter(|c| !c.is_whitespace()).collect();
    let type_name = type_name.trim_end_matches('>');
    if type_name.ends_with("NonZeroU64") {
        format!("`{parameter}` must be a whole number of at least 1")
    } else if type_name.ends_with("StatsPeriod") {
        let periods: Vec<String> = courier_models::StatsPeriod::ALL
            .iter()
            .map(|p| p.to_string())
            .collect();
        format!(
            "`{parameter}` must be one of {} (courier_models::StatsPeriod)",
            periods.join(", ")
        )
    } else if type_name.ends_with("FailureFunctionState") {
        format!(
            "`{parameter}` must be one of CALLBACK_INPROGRESS, CALLBACK_SUCCESS, CALLBACK_FAIL, CALLBACK_CANCELED"
        )
    } else {
        let short = type_name.rsplit("::").next().unwrap_or(type_name);
        format!("`{parameter}` is not a valid {short}")
    }
}

impl From<progenitor_client::Error<ErrorBody>> for CourierError {
    fn from(error: progenitor_client::Error<ErrorBody>) -> CourierError {
        use progenitor_client::Error;
        let status = error.status().map(|s| s.as_u16());
        let retryable_status = error.status().is_some_and(crate::failure::retryable_status);
        match error {
            Error::ErrorResponse(body) => {
                let asked =
                    crate::failure::asked_wait(body.headers(), std::time::SystemTime::now());
                let mut error =
                    CourierError::new(status, elided(body.into_inner().error), retryable_status);
                error.retry_after = asked;
                error
            }
            Error::CommunicationError(e) => {
                let what = if e.is_builder() {
                    "the request could not be built (check the address)"
                } else {
                    "could not reach the service"
                };
                let retryable = crate::failure::is_transient(&e) || retryable_status;
                CourierError::new(status, what, retryable).caused_by(e)
            }
            Error::UnexpectedResponse(response) => CourierError::new(
                status,
                format!("an undocumented response to {}", response.url().path()),
                retryable_status,
            ),
            Error::InvalidResponsePayload(_, e) => CourierError::new(
                status,
                "the response body did not match the interface",
                false,
            )
            .caused_by(Elided(elided(e.to_string()))),
            Error::ResponseBodyError(e) if e.is_timeout() => CourierError::new(
                status,
                "the response body did not arrive in time (the client's timeout per attempt, \
                 or its deadline per call)",
                true,
            )
            .caused_by(e),
            Error::ResponseBodyError(e) => {
                CourierError::new(status, "the response body could not be read", true).caused_by(e)
            }
            Error::InvalidRequest(message) => CourierError::new(
                None,
                format!("invalid request: {}", explain_invalid_request(message)),
                false,
            ),
            Error::Custom(message) => {
                #[cfg(feature = "validate")]
                if let Some(violations) =
                    crate::validation::violations_in(&message).filter(|found| !found.is_empty())
                {
                    return CourierError::contract_violation(violations);
                }
                CourierError::new(status, message, false)
            }
            Error::InvalidUpgrade(e) => {
                CourierError::new(status, "the connection upgrade failed", false).caused_by(e)
            }
        }
    }
}

impl From<courier_models::InvalidBase64> for CourierError {
    fn from(error: courier_models::InvalidBase64) -> CourierError {
        CourierError::new(
            None,
            "the service sent a body that cannot be decoded",
            false,
        )
        .caused_by(error)
    }
}

impl From<ConfigError> for CourierError {
    fn from(error: ConfigError) -> CourierError {
        CourierError::new(None, "the client configuration is invalid", false).caused_by(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_starts_with_status_and_message_on_one_line() {
        let error = CourierError::new(Some(404), "no failed run with dlqId `x` in the DLQ", false);
        assert_eq!(
            error.to_string(),
            "404 Not Found: no failed run with dlqId `x` in the DLQ"
        );
        assert!(error.is_not_found());
        // What `fn main() -> Result<(), CourierError>` prints on failure.
        assert_eq!(format!("{error:?}"), error.to_string());
        let error = CourierError::new(Some(503), "busy", true);
        assert_eq!(
            error.to_string(),
            "503 Service Unavailable: busy (retryable)"
        );
    }

    #[test]
    fn a_message_that_starts_with_the_reason_is_not_said_twice() {
        let error = CourierError::new(
            Some(429),
            "too many requests: the account's max_requests_per_second is reached",
            true,
        );
        assert_eq!(
            error.to_string(),
            "429: too many requests: the account's max_requests_per_second is reached (retryable)"
        );
        assert!(error.is_rate_limited());
        assert!(!error.is_not_found());
        assert_eq!(error.retry_after(), None);
    }

    #[test]
    fn display_carries_every_cause_and_source_exposes_them() {
        let error = CourierError::from(ConfigError("the management key is not set".into()));
        assert_eq!(
            error.to_string(),
            "the client configuration is invalid: the management key is not set"
        );
        assert!(!error.to_string().contains('\n'));
        let source = error.source().expect("the cause is kept");
        assert_eq!(source.to_string(), "the management key is not set");
    }

    #[test]
    fn a_huge_quoted_value_is_cut_to_its_start_and_end() {
        let hostile = format!(
            "invalid type: string \"{}\", expected a page",
            "a".repeat(1 << 20)
        );
        let short = elided(hostile);
        assert!(short.len() < MAX_QUOTED + 100, "{}", short.len());
        assert!(short.starts_with("invalid type: string \"aaa"), "{short}");
        assert!(short.ends_with("aaa\", expected a page"), "{short}");
        assert!(short.contains("bytes left out"), "{short}");
        assert_eq!(elided("short".to_owned()), "short");
        let wide = "é".repeat(MAX_QUOTED);
        assert!(
            elided(wide).contains("left out"),
            "cut on character boundaries"
        );
    }

    #[test]
    fn generator_conversion_messages_become_clear() {
        let explained = |m: &str| explain_invalid_request(m.to_owned());
        assert_eq!(
            explained("conversion to `:: std :: num :: NonZeroU64` for count failed"),
            "`count` must be a whole number of at least 1"
        );
        assert_eq!(
            explained("conversion to `:: courier_models :: StatsPeriod` for period failed"),
            "`period` must be one of 1h, 3h, 12h, 1d, 3d, 7d, 30d (courier_models::StatsPeriod)"
        );
        assert_eq!(explained("something else"), "something else");
    }
}
