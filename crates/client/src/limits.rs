//! Bounds on one call: how long each attempt and the whole call may take, the answer's body
//! included, and how many bytes of an answer the client reads.
//!
//! Without them the server decides how long a call lasts and how much memory it takes: an
//! answer read whole costs several times its size in memory, an endless one all there is, and a
//! server trickling a byte a second holds a call for every attempt's timeout in turn. Each
//! attempt is held to [`Limits::timeout`] from connecting to the answer's last byte (reqwest's
//! total timeout, set on each request, so the body read after `send` got the headers counts
//! too), the whole call to [`Limits::deadline`], and an answer's body is read into memory only
//! up to [`Limits::max_response_bytes`]: a declared `Content-Length` beyond it is refused before
//! a byte is read, a body without one as soon as what arrived passes it.

use bytes::{Bytes, BytesMut};
use std::time::Duration;

/// The most bytes of one answer's body a client reads unless told otherwise: 16 MiB, the
/// service's own limit on a request's body. A page of 100 entries is far below it unless its
/// entries carry payloads of more than 100 KiB each.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 << 20;

/// The variable that sets [`Limits::max_response_bytes`] for clients built with `from_env()`
/// (and the `courier` command's client commands): a number of bytes, or with `KiB`, `MiB` or
/// `GiB` after it.
pub const MAX_RESPONSE_BYTES_VARIABLE: &str = "COURIER_MAX_RESPONSE_BYTES";

/// How long a call may take and how large its answer may be. Every client holds one (built
/// from the builder's `timeout`, `deadline` and `max_response_bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How long one attempt may take, from connecting to the last byte of its answer.
    pub timeout: Duration,
    /// How long one call may take in all: every attempt, the waits between them (backoff,
    /// `Retry-After`) and reading the answer. No attempt or wait starts that would end after it.
    pub deadline: Duration,
    /// The most bytes of one answer's body the client reads; a larger answer fails the call.
    pub max_response_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(60),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        }
    }
}

/// Why an answer's body was not read whole.
pub(crate) enum BodyError {
    /// It is larger than the cap; the message says so and what to do.
    TooLarge(String),
    /// The connection failed, or the attempt's time ran out, while it arrived.
    Read(reqwest::Error),
}

impl BodyError {
    /// As the generated code's error: a refusal is the client's own (`Custom`, no status, not
    /// retried), a read failure progenitor's `ResponseBodyError`.
    pub(crate) fn into_error<E>(self) -> progenitor_client::Error<E> {
        match self {
            BodyError::TooLarge(message) => progenitor_client::Error::Custom(message),
            BodyError::Read(error) => progenitor_client::Error::ResponseBodyError(error),
        }
    }
}

/// `bytes` for a person: `16 MiB`, `512 KiB`, or the number of bytes.
fn amount(bytes: u64) -> String {
    match bytes {
        0 => "0 bytes".to_owned(),
        b if b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// The message of an answer to the operation progenitor calls `rust_name` that passed the
/// `max` bytes of the cap (`declared`: the length it announced, when it did).
fn too_large(rust_name: &str, max: usize, declared: Option<u64>) -> String {
    let operation = courier_models::operation(rust_name).map_or(rust_name, |op| op.id);
    let size = match declared {
        Some(length) => format!("it declared {length} bytes"),
        None => "more arrived".to_owned(),
    };
    format!(
        "the answer to {operation} is larger than the client's limit of {} ({max} bytes; {size}), \
         so it was not read further. If the service's answers really are that large, raise the \
         limit (max_response_bytes on the client's builder, {MAX_RESPONSE_BYTES_VARIABLE} in the \
         environment), or ask for fewer entries per page",
        amount(max as u64)
    )
}

/// The body of `response`, the answer to the operation progenitor calls `rust_name`, read into
/// memory up to `max` bytes.
pub(crate) async fn read_body(
    mut response: reqwest::Response,
    max: usize,
    rust_name: &str,
) -> Result<Bytes, BodyError> {
    let declared = response.content_length();
    if declared.is_some_and(|length| length > max as u64) {
        return Err(BodyError::TooLarge(too_large(rust_name, max, declared)));
    }
    let mut body = BytesMut::with_capacity(declared.unwrap_or(0) as usize);
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Read)? {
        if chunk.len() > max - body.len() {
            return Err(BodyError::TooLarge(too_large(rust_name, max, None)));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// [`MAX_RESPONSE_BYTES_VARIABLE`]'s value, when it is set.
pub(crate) fn max_response_bytes_from_env() -> Result<Option<usize>, String> {
    let Some(text) = std::env::var(MAX_RESPONSE_BYTES_VARIABLE)
        .ok()
        .filter(|value| !value.trim().is_empty())
    else {
        return Ok(None);
    };
    parse_amount(&text).map(Some).ok_or_else(|| {
        format!(
            "{MAX_RESPONSE_BYTES_VARIABLE} must be a number of bytes of at least 1, alone or \
             followed by KiB, MiB or GiB (e.g. 67108864 or 64MiB), not `{}`",
            text.trim()
        )
    })
}

/// `67108864`, `64MiB`, `64 MiB`, `512KiB`, `1GiB` as bytes; `None` for anything else or 0.
fn parse_amount(text: &str) -> Option<usize> {
    let text = text.trim();
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let number: usize = text[..digits].parse().ok()?;
    let unit: usize = match text[digits..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        _ => return None,
    };
    number.checked_mul(unit).filter(|bytes| *bytes > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_and_print_in_binary_units() {
        assert_eq!(parse_amount("67108864"), Some(64 << 20));
        assert_eq!(parse_amount("64MiB"), Some(64 << 20));
        assert_eq!(parse_amount(" 64 mib "), Some(64 << 20));
        assert_eq!(parse_amount("512KiB"), Some(512 << 10));
        assert_eq!(parse_amount("1GiB"), Some(1 << 30));
        for wrong in [
            "",
            "0",
            "MiB",
            "-1",
            "64MB",
            "1.5MiB",
            "99999999999999999999GiB",
        ] {
            assert_eq!(parse_amount(wrong), None, "{wrong}");
        }
        assert_eq!(amount(16 << 20), "16 MiB");
        assert_eq!(amount(1000), "1000 bytes");
    }

    #[test]
    fn the_refusal_names_the_operation_the_limit_and_the_ways_out() {
        let message = too_large("list_workflow_dlq", 16 << 20, Some(1 << 30));
        for part in [
            "listWorkflowDlq",
            "16 MiB",
            "it declared 1073741824 bytes",
            "max_response_bytes",
            MAX_RESPONSE_BYTES_VARIABLE,
        ] {
            assert!(message.contains(part), "{part}: {message}");
        }
    }
}
