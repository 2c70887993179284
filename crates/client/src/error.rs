//! One error type for the hand-written helpers: status, the service's message, retryability.

use courier_models::ErrorBody;
use std::fmt;

/// What went wrong talking to the service, in a form that reads like a sentence.
#[derive(Debug)]
pub struct CourierError {
    /// The HTTP status, when the service answered.
    pub status: Option<u16>,
    /// The `error` message of the body, or a description of the failure.
    pub message: String,
    /// Whether sending the same request again might succeed (connection failure, 429, 5xx).
    pub retryable: bool,
}

impl fmt::Display for CourierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(status) => {
                let reason = reqwest::StatusCode::from_u16(status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("");
                write!(
                    f,
                    "the service answered {status} {reason}: {}",
                    self.message
                )?;
            }
            None => write!(f, "the request failed: {}", self.message)?,
        }
        if self.retryable {
            f.write_str(" (retryable)")?;
        }
        Ok(())
    }
}

impl std::error::Error for CourierError {}

impl From<progenitor_client::Error<ErrorBody>> for CourierError {
    fn from(error: progenitor_client::Error<ErrorBody>) -> CourierError {
        use progenitor_client::Error;
        let status = error.status().map(|s| s.as_u16());
        let retryable_status = error.status().is_some_and(crate::retry::retryable_status);
        let (message, retryable) = match error {
            Error::ErrorResponse(body) => (body.into_inner().error, retryable_status),
            Error::CommunicationError(e) => {
                let transient = e.is_connect() || e.is_timeout();
                (
                    format!("could not reach the service: {e}"),
                    transient || retryable_status,
                )
            }
            Error::UnexpectedResponse(response) => (
                format!(
                    "an undocumented response ({} {})",
                    response.status(),
                    response.url().path()
                ),
                retryable_status,
            ),
            Error::InvalidResponsePayload(_, e) => (
                format!("the response body did not match the spec: {e}"),
                false,
            ),
            Error::ResponseBodyError(e) => {
                (format!("the response body could not be read: {e}"), true)
            }
            Error::InvalidRequest(message) | Error::Custom(message) => (message, false),
            Error::InvalidUpgrade(e) => (e.to_string(), false),
        };
        CourierError {
            status,
            message,
            retryable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_reads_like_a_sentence() {
        let error = CourierError {
            status: Some(404),
            message: "no failed run with dlqId `x` in the DLQ".into(),
            retryable: false,
        };
        assert_eq!(
            error.to_string(),
            "the service answered 404 Not Found: no failed run with dlqId `x` in the DLQ"
        );
        let error = CourierError {
            status: Some(503),
            message: "busy".into(),
            retryable: true,
        };
        assert_eq!(
            error.to_string(),
            "the service answered 503 Service Unavailable: busy (retryable)"
        );
    }
}
