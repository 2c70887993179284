//! The HTTP side of both client builders: timeouts, the deadline and the answer cap, retries,
//! extra CA roots, fixed addresses and response validation (`HttpOptions`), the reqwest client
//! made from them, and the setters every builder shares.

use crate::error::ConfigError;
use crate::limits::Limits;
use crate::retry::RetryPolicy;
use std::time::Duration;

/// Connection settings shared by both clients.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// How long establishing a connection may take.
    pub connect_timeout: Duration,
    /// Whole-request timeout, per attempt: from connecting to the answer's last byte.
    pub timeout: Duration,
    /// How long one call may take in all: every attempt, the waits between them and reading
    /// the answer ([`Limits::deadline`]).
    pub deadline: Duration,
    /// The most bytes of one answer's body the client reads ([`Limits::max_response_bytes`]).
    pub max_response_bytes: usize,
    /// When and how often a failed request is sent again.
    pub retry: RetryPolicy,
    /// PEM bundles of extra CA certificates to trust, besides the platform's roots.
    pub root_certificates_pem: Vec<Vec<u8>>,
    /// Host names to connect to at a fixed address instead of resolving them.
    pub resolve: Vec<(String, std::net::SocketAddr)>,
    /// Validate every answer against the spec as it is decoded (feature `validate`).
    pub validate_responses: bool,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            connect_timeout: Duration::from_secs(5),
            timeout: Limits::default().timeout,
            deadline: Limits::default().deadline,
            max_response_bytes: Limits::default().max_response_bytes,
            retry: RetryPolicy::default(),
            root_certificates_pem: Vec::new(),
            resolve: Vec::new(),
            validate_responses: false,
        }
    }
}

/// The message of `error` followed by each of its causes, on one line.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let more = inner.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = inner.source();
    }
    text
}

impl HttpOptions {
    /// The bounds every call of a client made with these options keeps.
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            timeout: self.timeout,
            deadline: self.deadline,
            max_response_bytes: self.max_response_bytes,
        }
    }

    pub(crate) fn reqwest_client(&self) -> Result<reqwest::Client, ConfigError> {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .timeout(self.timeout);
        for (host, address) in &self.resolve {
            builder = builder.resolve(host, *address);
        }
        #[cfg(feature = "rustls")]
        {
            let roots =
                crate::tls::certificates(&self.root_certificates_pem).map_err(ConfigError)?;
            let tls = crate::tls::client_config(roots)
                .map_err(|e| ConfigError(format!("cannot set up TLS: {}", with_causes(&e))))?;
            builder = builder.tls_backend_preconfigured(tls);
        }
        #[cfg(all(feature = "native-tls", not(feature = "rustls")))]
        for pem in &self.root_certificates_pem {
            let certificates = reqwest::Certificate::from_pem_bundle(pem).map_err(|e| {
                ConfigError(format!(
                    "the root certificate is not a PEM certificate: {}",
                    with_causes(&e)
                ))
            })?;
            if certificates.is_empty() {
                return Err(ConfigError(
                    "the root certificate PEM holds no certificate".into(),
                ));
            }
            for certificate in certificates {
                builder = builder.add_root_certificate(certificate);
            }
        }
        builder.build().map_err(|e| {
            ConfigError(format!(
                "cannot build the HTTP client: {} (with rustls, SSL_CERT_FILE names a PEM file of CA roots to trust)",
                with_causes(&e)
            ))
        })
    }
}

/// The connection settings every client builder shares (its `options: HttpOptions` field).
macro_rules! http_option_setters {
    () => {
        /// How long to wait for a connection (default 5 s).
        pub fn connect_timeout(mut self, timeout: Duration) -> Self {
            self.options.connect_timeout = timeout;
            self
        }

        /// How long one attempt of a request may take in all (default 30 s), from connecting to
        /// the last byte of its answer.
        pub fn timeout(mut self, timeout: Duration) -> Self {
            self.options.timeout = timeout;
            self
        }

        /// How long one call may take in all (default 60 s): every attempt, the waits between
        /// them (backoff, `Retry-After`) and reading the answer. No attempt or wait starts that
        /// would end after it; a call out of time fails with the last attempt's error.
        pub fn deadline(mut self, deadline: Duration) -> Self {
            self.options.deadline = deadline;
            self
        }

        /// The most bytes of one answer's body the client reads (default 16 MiB,
        /// [`DEFAULT_MAX_RESPONSE_BYTES`](crate::limits::DEFAULT_MAX_RESPONSE_BYTES)). A larger
        /// answer fails the call with a [`CourierError`](crate::CourierError) naming the limit,
        /// not retried: a declared `Content-Length` beyond it before a byte is read, any other
        /// body as soon as what arrived passes it. Wins over `COURIER_MAX_RESPONSE_BYTES`.
        pub fn max_response_bytes(mut self, bytes: usize) -> Self {
            self.options.max_response_bytes = bytes;
            self.max_response_bytes_chosen = true;
            self
        }

        /// When to retry ([`RetryPolicy::default`]: 3 attempts; [`RetryPolicy::none`]).
        pub fn retry(mut self, policy: RetryPolicy) -> Self {
            self.options.retry = policy;
            self
        }

        /// Also trust the CA certificate(s) in this PEM text, besides the platform's roots (or
        /// those of `SSL_CERT_FILE`): for a private CA or a local `courier serve --tls-cert`.
        /// A PEM that holds no certificate makes `build()` fail.
        ///
        /// ```no_run
        /// # fn demo() -> Result<(), Box<dyn std::error::Error>> {
        /// let ca = std::fs::read("my-ca.pem")?;
        /// let client = courier_client::messaging::Client::builder()
        ///     .base_url("https://127.0.0.1:8443")
        ///     .token("...")
        ///     .add_root_certificate_pem(ca)
        ///     .build()?;
        /// # Ok(()) }
        /// ```
        pub fn add_root_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
            self.options.root_certificates_pem.push(pem.into());
            self
        }

        /// Validate every answer against the spec as it is decoded (off by default): its
        /// status, content type, documented headers and body, with courier-verify's validator
        /// (a JSON body in the same pass that decodes it).
        /// An answer that breaks the spec fails the call with a [`CourierError`](crate::CourierError)
        /// whose [`violations`](crate::CourierError::violations) say where (operation, status,
        /// JSON pointer, rule, value). For tests of code that talks to a fake or a new service.
        #[cfg(feature = "validate")]
        pub fn validate_responses(mut self, on: bool) -> Self {
            self.options.validate_responses = on;
            self
        }

        /// Connect to `address` whenever a URL names `host`, without asking DNS (TLS still
        /// checks the certificate against `host`): for trying a regional address against a
        /// local service.
        pub fn resolve(mut self, host: impl Into<String>, address: std::net::SocketAddr) -> Self {
            self.options.resolve.push((host.into(), address));
            self
        }
    };
}

pub(crate) use http_option_setters;
