//! Exit codes scripts can rely on, and the one failure type every client command returns.

use courier_client::CourierError;
use std::process::ExitCode;

/// What a client command's exit status means. Documented in `courier --help`
/// ([`AFTER_HELP`](super::AFTER_HELP)) and the README; changing a number breaks scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Anything not covered below (a declined confirmation, a response that does not decode).
    Failure = 1,
    /// Bad flags or values (also what clap itself exits with), a missing address, or a 400
    /// from the service.
    Usage = 2,
    /// No credentials configured, or the service refused them (401, 403).
    Credentials = 3,
    /// The entry, run, URL group or index does not exist (404).
    NotFound = 4,
    /// Still rate limited (429) after the client's retries waited it out.
    RateLimited = 5,
    /// The service failed (5xx, 507) or could not be reached (connection, timeout, TLS).
    Unavailable = 6,
    /// Stopped by Ctrl-C between pages; the cursor to resume with is printed.
    Interrupted = 130,
}

/// Why a client command stopped, with the exit status that says so.
#[derive(Debug)]
pub struct Failure {
    pub exit: Exit,
    /// Printed on stderr as `error: <message>`; `None` when already reported.
    pub message: Option<String>,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: Some(message.into()),
        }
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Usage, message)
    }

    /// A failure whose details were already printed (e.g. one per id of `dlq delete`).
    pub fn reported(exit: Exit) -> Failure {
        Failure {
            exit,
            message: None,
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.exit as u8)
    }
}

/// The exit status of a client error: the HTTP status when the service answered, else whether
/// the request never left (a usage problem) or the service could not be reached.
pub fn exit_for(error: &CourierError) -> Exit {
    match error.status {
        Some(401 | 403) => Exit::Credentials,
        Some(404) => Exit::NotFound,
        Some(429) => Exit::RateLimited,
        Some(status) if status >= 500 => Exit::Unavailable,
        Some(400..=499) => Exit::Usage,
        Some(_) => Exit::Failure,
        // The client's wording for a request it refused to send (a bad value or address), as
        // opposed to one that could not reach the service.
        None if error.message.starts_with("invalid request")
            || error.message.starts_with("the request could not be built")
            || error.message.starts_with("the client configuration") =>
        {
            Exit::Usage
        }
        None if error.message.starts_with("the response body did not match")
            || error.message.starts_with("the service sent a body") =>
        {
            Exit::Failure
        }
        None => Exit::Unavailable,
    }
}

impl From<CourierError> for Failure {
    /// The client's one-line message keeps the service's `error` text verbatim after the status.
    fn from(error: CourierError) -> Failure {
        let message = error.to_string();
        // An untrusted certificate is most often a private CA or a local `serve --tls-cert`.
        let hint = if message.contains("UnknownIssuer") {
            " (to trust a private CA, pass --ca-cert FILE or set COURIER_CA_CERT; SSL_CERT_FILE \
             replaces the system's roots)"
        } else {
            ""
        };
        Failure::new(exit_for(&error), format!("{message}{hint}"))
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Failure {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            // The reader went away (`courier dlq list | head`): nothing left to tell anyone.
            Failure::reported(Exit::Failure)
        } else {
            Failure::new(Exit::Failure, format!("cannot write the output: {error}"))
        }
    }
}
