//! The scenario runner: the [`Verifier`] builder (base URL, credentials, write mode, seeding)
//! and the [`Scene`] every scenario runs in, which sends raw requests, validates each answer
//! against the contract and collects failures.

mod filters;
mod http;
mod read;
mod seed;
#[cfg(feature = "axum")]
mod serve;
mod stats;
mod write;

pub use seed::{AdminSeed, Seed, SeedFuture};
#[cfg(feature = "axum")]
pub use serve::serve_router;

use crate::contract::{Contract, OperationContract};
use crate::report::{Failure, Outcome, Report, ScenarioResult};
use crate::validate::{ContractError, Validator};
use crate::violation::{Place, Violation, shorten};
use http::{Auth, Caller, Exchange};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a [`Verifier`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("`{url}` is not an http(s) base URL: {reason}")]
    BaseUrl { url: String, reason: String },
    #[error("writing scenarios need a way to create their data: an admin token or a `Seed`")]
    WriteWithoutSeed,
    #[error(transparent)]
    Contract(#[from] ContractError),
    #[error("the HTTP client could not be built: {0}")]
    Client(String),
}

/// What is called with each scenario's result as it ends.
type Progress = Box<dyn Fn(&ScenarioResult) + Send + Sync>;

/// Builds a [`Verifier`]: `Verifier::builder(url).service_token(..).build()?`.
pub struct VerifierBuilder {
    base_url: String,
    management_url: Option<String>,
    service_token: Option<String>,
    management: Option<(String, String)>,
    admin_token: Option<String>,
    seed: Option<Arc<dyn Seed>>,
    write: bool,
    timeout: Duration,
    root_certificates_pem: Vec<Vec<u8>>,
    progress: Option<Progress>,
}

/// Runs the scenarios against one service; see the crate documentation.
pub struct Verifier {
    caller: Caller,
    base_url: String,
    seed: Option<Arc<dyn Seed>>,
    write: bool,
    progress: Option<Progress>,
}

impl Verifier {
    /// A builder for the service whose messaging interface is at `base_url`.
    pub fn builder(base_url: impl Into<String>) -> VerifierBuilder {
        VerifierBuilder {
            base_url: base_url.into(),
            management_url: None,
            service_token: None,
            management: None,
            admin_token: None,
            seed: None,
            write: false,
            timeout: Duration::from_secs(30),
            root_certificates_pem: Vec::new(),
            progress: None,
        }
    }
}

fn parse_url(url: &str) -> Result<reqwest::Url, ConfigError> {
    let invalid = |reason: String| ConfigError::BaseUrl {
        url: url.to_owned(),
        reason,
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.cannot_be_a_base() {
        return Err(invalid("the scheme must be http or https".into()));
    }
    Ok(parsed)
}

impl VerifierBuilder {
    /// The management interface's address, when it is not the base URL.
    pub fn management_url(mut self, url: impl Into<String>) -> Self {
        self.management_url = Some(url.into());
        self
    }

    /// The messaging service token (`Authorization: Bearer`).
    pub fn service_token(mut self, token: impl Into<String>) -> Self {
        self.service_token = Some(token.into());
        self
    }

    /// The management credentials (`Authorization: Basic customer_id:management_key`).
    pub fn management_credentials(
        mut self,
        customer_id: impl Into<String>,
        management_key: impl Into<String>,
    ) -> Self {
        self.management = Some((customer_id.into(), management_key.into()));
        self
    }

    /// Seed through courier's admin API at the base URL with this token.
    pub fn admin_token(mut self, token: impl Into<String>) -> Self {
        self.admin_token = Some(token.into());
        self
    }

    /// Seed through this hook (an in-process implementation's).
    pub fn seed(mut self, seed: Arc<dyn Seed>) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Run the writing scenarios too (they need a seed); off by default, so nothing is
    /// written unless asked.
    pub fn write(mut self, write: bool) -> Self {
        self.write = write;
        self
    }

    /// The timeout of each request (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Also trust the CA certificate(s) in this PEM text, besides the platform's roots (feature
    /// `rustls`): for a private CA or a local `courier serve --tls-cert`.
    pub fn add_root_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.root_certificates_pem.push(pem.into());
        self
    }

    /// Called with each scenario's result as it ends (a progress line, say).
    pub fn on_scenario(
        mut self,
        progress: impl Fn(&ScenarioResult) + Send + Sync + 'static,
    ) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }

    pub fn build(self) -> Result<Verifier, ConfigError> {
        let messaging_url = parse_url(&self.base_url)?;
        let management_url = match &self.management_url {
            Some(url) => parse_url(url)?,
            None => messaging_url.clone(),
        };
        let client = http_client(self.timeout, &self.root_certificates_pem)?;
        let seed = match (self.seed, &self.admin_token) {
            (Some(seed), _) => Some(seed),
            (None, Some(token)) => Some(Arc::new(AdminSeed::new(
                client.clone(),
                messaging_url.clone(),
                token.clone(),
            )) as Arc<dyn Seed>),
            (None, None) => None,
        };
        if self.write && seed.is_none() {
            return Err(ConfigError::WriteWithoutSeed);
        }
        Ok(Verifier {
            caller: Caller {
                client,
                messaging_url,
                management_url,
                service_token: self.service_token,
                management: self.management,
                validator: Arc::new(Validator::courier()?),
            },
            base_url: self.base_url,
            seed,
            write: self.write,
            progress: self.progress,
        })
    }
}

/// Where one scenario runs: its requests, each answer validated, and its failures.
pub(crate) struct Scene<'a> {
    caller: &'a Caller,
    requests: usize,
    failures: Vec<Failure>,
    skip_reason: Option<String>,
}

impl<'a> Scene<'a> {
    fn new(caller: &'a Caller) -> Scene<'a> {
        Scene {
            caller,
            requests: 0,
            failures: Vec::new(),
            skip_reason: None,
        }
    }

    pub fn contract(&self) -> &'static Contract {
        self.caller.validator.contract()
    }

    pub fn op(&self, operation_id: &str) -> &'static OperationContract {
        self.contract()
            .operation(operation_id)
            .unwrap_or_else(|| panic!("the spec names the operation `{operation_id}`"))
    }

    /// Sends a request of `operation_id`; a contract violation or a missing answer is recorded
    /// as a failure. `None` when there was no answer.
    pub async fn call(
        &mut self,
        operation_id: &str,
        params: &[(&str, &str)],
        query: &[(&str, String)],
        auth: Auth,
    ) -> Option<Exchange> {
        self.requests += 1;
        let op = self.op(operation_id);
        match self.caller.call(op, params, query, auth).await {
            Ok(exchange) => {
                if !exchange.violations.is_empty() {
                    self.record(&exchange, exchange.violations.clone());
                }
                Some(exchange)
            }
            Err(unanswered) => {
                self.failures.push(Failure {
                    request: unanswered.curl,
                    status: None,
                    violations: Vec::new(),
                    error: Some(unanswered.message),
                });
                None
            }
        }
    }

    /// Adds violations to the failure of `exchange` (one failure per request).
    fn record(&mut self, exchange: &Exchange, violations: Vec<Violation>) {
        match self.failures.last_mut() {
            Some(last) if last.request == exchange.curl => last.violations.extend(violations),
            _ => self.failures.push(Failure {
                request: exchange.curl.clone(),
                status: Some(exchange.status),
                violations,
                error: None,
            }),
        }
    }

    /// Records a semantic violation in the body of `exchange`.
    pub fn violate(
        &mut self,
        exchange: &Exchange,
        pointer: impl Into<String>,
        rule: &str,
        value: &Value,
        message: impl Into<String>,
    ) {
        let value = if value.is_null() {
            String::new()
        } else {
            value.to_string()
        };
        let violation = Violation::body(
            &exchange.op.operation_id,
            exchange.status,
            pointer,
            rule,
            &value,
            message,
        );
        self.record(exchange, vec![violation]);
    }

    /// Whether the answer has one of the `expected` statuses; records a violation if not.
    pub fn expect_status(&mut self, exchange: &Exchange, expected: &[u16], why: &str) -> bool {
        if expected.contains(&exchange.status) {
            return true;
        }
        let wanted: Vec<String> = expected.iter().map(u16::to_string).collect();
        let violation = Violation {
            operation_id: exchange.op.operation_id.clone(),
            status: exchange.status,
            place: Place::Status,
            pointer: String::new(),
            rule: "status".into(),
            value: shorten(&String::from_utf8_lossy(&exchange.body)),
            message: format!("expected {} {why}", wanted.join(" or ")),
        };
        self.record(exchange, vec![violation]);
        false
    }

    /// Marks the scenario as not run, for `reason`.
    pub fn skip(&mut self, reason: impl Into<String>) {
        self.skip_reason = Some(reason.into());
    }

    fn finish(
        self,
        name: &str,
        description: &str,
        writes: bool,
        started: Instant,
    ) -> ScenarioResult {
        let outcome = if !self.failures.is_empty() {
            Outcome::Failed
        } else if self.skip_reason.is_some() {
            Outcome::Skipped
        } else {
            Outcome::Passed
        };
        ScenarioResult {
            name: name.to_owned(),
            description: description.to_owned(),
            writes,
            outcome,
            skip_reason: self.skip_reason,
            requests: self.requests,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            failures: self.failures,
        }
    }
}

/// Runs one scenario body in a fresh [`Scene`] and records its result.
macro_rules! scenario {
    ($verifier:expr, $results:expr, $name:literal, $writes:expr, $description:literal, |$scene:ident| $body:expr) => {{
        let started = std::time::Instant::now();
        #[allow(unused_mut)]
        let mut $scene = $crate::runner::Scene::new(&$verifier.caller);
        let value = $body.await;
        let result = $scene.finish($name, $description, $writes, started);
        if let Some(progress) = &$verifier.progress {
            progress(&result);
        }
        $results.push(result);
        value
    }};
}

impl Verifier {
    /// Runs every scenario: the read-only ones always, the writing ones when asked. Writing
    /// scenarios (and, with writing on, a fixture the read-only ones list) create their own
    /// entries through the seed and touch nothing else; the fixture is deleted at the end.
    pub async fn run(&self) -> Report {
        let mut results = Vec::new();
        let tag = format!("courier-verify-{}", &seed::random_uuid()[..8]);
        let fixture = match (&self.seed, self.write) {
            (Some(seed), true) => scenario!(
                self,
                results,
                "seed",
                true,
                "the seed stores entries the read-only scenarios can list",
                |scene| write::seed_fixture(&mut scene, seed.as_ref(), &tag)
            ),
            _ => Vec::new(),
        };
        read::run(self, &mut results).await;
        let index = match (&self.seed, self.write) {
            (Some(seed), true) => seed.search_index().await.ok().flatten(),
            _ => None,
        };
        scenario!(
            self,
            results,
            "index-stats-series",
            false,
            "every period series of an index's statistics has the documented length and spacing",
            |scene| stats::index_stats(&mut scene, index.as_deref())
        );
        if let (Some(seed), true) = (&self.seed, self.write) {
            write::run(self, seed.as_ref(), &tag, &mut results).await;
            scenario!(
                self,
                results,
                "cleanup",
                true,
                "a bulk delete by ids removes exactly the entries the run seeded",
                |scene| write::cleanup(&mut scene, &fixture)
            );
        }
        Report {
            base_url: self.base_url.clone(),
            spec_version: self.caller.validator.contract().version.clone(),
            write: self.write,
            scenarios: results,
        }
    }
}

pub(crate) use scenario;

/// The HTTP client of every scenario; with feature `rustls`, HTTPS with ring and the platform's
/// roots, handed to reqwest whole (as courier-client does, and for its reason: reqwest's own
/// provider is aws-lc-rs, a C build, and a library must not install a process-wide one).
fn http_client(timeout: Duration, roots_pem: &[Vec<u8>]) -> Result<reqwest::Client, ConfigError> {
    let builder = reqwest::Client::builder().timeout(timeout);
    #[cfg(feature = "rustls")]
    let builder = {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        let client_error = |e: &dyn std::fmt::Display| ConfigError::Client(e.to_string());
        let mut roots = Vec::new();
        for pem in roots_pem {
            let before = roots.len();
            for certificate in CertificateDer::pem_slice_iter(pem) {
                roots.push(certificate.map_err(|e| client_error(&e))?);
            }
            if roots.len() == before {
                return Err(ConfigError::Client(
                    "the root certificate PEM holds no certificate".into(),
                ));
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = if roots.is_empty() {
            rustls_platform_verifier::Verifier::new(provider.clone())
        } else {
            rustls_platform_verifier::Verifier::new_with_extra_roots(roots, provider.clone())
        }
        .map_err(|e| client_error(&e))?;
        builder.tls_backend_preconfigured(
            rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| client_error(&e))?
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth(),
        )
    };
    #[cfg(not(feature = "rustls"))]
    if !roots_pem.is_empty() {
        return Err(ConfigError::Client(
            "a root certificate needs the rustls feature of courier-verify".into(),
        ));
    }
    builder
        .build()
        .map_err(|e| ConfigError::Client(e.to_string()))
}
