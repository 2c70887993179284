//! The scenario runner: the [`Verifier`] builder (base URL, credentials, write mode, seeding,
//! choice of scenarios, politeness) and the [`Scene`] every scenario runs in, which sends raw
//! requests, validates each answer against the contract and collects failures.

mod builder;
mod catalogue;
mod errors;
mod filters;
mod fixture;
mod http;
mod listing;
mod opt_in;
mod read;
mod seed;
#[cfg(feature = "axum")]
mod serve;
mod stats;
mod write;

pub use builder::VerifierBuilder;
#[cfg(test)]
pub(crate) use catalogue::chooses;
pub use catalogue::{ScenarioInfo, catalogue};
pub use seed::{AdminSeed, DlqLimits, Seed, SeedFuture};
#[cfg(feature = "axum")]
pub use serve::serve_router;

use crate::contract::{Contract, OperationContract};
use crate::report::{Failure, Outcome, Report, ScenarioResult};
use crate::validate::ContractError;
use crate::violation::{Place, Violation, shorten};
use http::{Auth, Caller, Exchange};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Why a [`Verifier`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("`{url}` is not an http(s) base URL: {reason}")]
    BaseUrl { url: String, reason: String },
    #[error("writing scenarios need a way to create their data: an admin token or a `Seed`")]
    WriteWithoutSeed,
    #[error("no scenario is called `{0}` (see `courier_verify::catalogue`)")]
    UnknownScenario(String),
    #[error("scenario `{0}` writes: it runs only with writing on")]
    SelectedNeedsWrite(String),
    #[error(transparent)]
    Contract(#[from] ContractError),
    #[error("the HTTP client could not be built: {0}")]
    Client(String),
}

/// What is called with each scenario's result as it ends.
type Progress = Box<dyn Fn(&ScenarioResult) + Send + Sync>;

/// Runs the scenarios against one service; see the crate documentation.
pub struct Verifier {
    caller: Caller,
    base_url: String,
    seed: Option<Arc<dyn Seed>>,
    write: bool,
    allow_inconclusive: bool,
    /// The names of the scenarios this run runs.
    chosen: BTreeSet<String>,
    progress: Option<Progress>,
}

/// Where one scenario runs: its requests, each answer validated, and its failures.
pub(crate) struct Scene<'a> {
    caller: &'a Caller,
    requests: usize,
    failures: Vec<Failure>,
    inconclusive: Option<String>,
    not_implemented: BTreeSet<String>,
}

impl<'a> Scene<'a> {
    fn new(caller: &'a Caller) -> Scene<'a> {
        Scene {
            caller,
            requests: 0,
            failures: Vec::new(),
            inconclusive: None,
            not_implemented: BTreeSet::new(),
        }
    }

    pub(crate) fn contract(&self) -> &'static Contract {
        self.caller.validator.contract()
    }

    pub(crate) fn op(&self, operation_id: &str) -> &'static OperationContract {
        self.contract()
            .operation(operation_id)
            .unwrap_or_else(|| panic!("the spec names the operation `{operation_id}`"))
    }

    /// Sends a request of `operation_id`; a contract violation or a missing answer is recorded
    /// as a failure. `None` when there was no answer, or when the operation answered 501 (it
    /// is then reported as not implemented).
    pub(crate) async fn call(
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
                if exchange.status == 501 && op.documents(501) {
                    self.not_implemented.insert(op.operation_id.clone());
                    return None;
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
    pub(crate) fn violate(
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
    pub(crate) fn expect_status(
        &mut self,
        exchange: &Exchange,
        expected: &[u16],
        why: &str,
    ) -> bool {
        if expected.contains(&exchange.status) {
            return true;
        }
        let wanted: Vec<String> = expected.iter().map(u16::to_string).collect();
        let mut message = format!("expected {} {why}", wanted.join(" or "));
        if exchange.status == 429 {
            let patience = self.caller.politeness.patience.as_secs();
            message.push_str(&format!(
                " (still rate limited after waiting up to {patience} s as the answers asked)"
            ));
        }
        let violation = Violation {
            operation_id: exchange.op.operation_id.clone(),
            status: exchange.status,
            place: Place::Status,
            pointer: String::new(),
            rule: "status".into(),
            value: shorten(&String::from_utf8_lossy(&exchange.body)),
            message,
        };
        self.record(exchange, vec![violation]);
        false
    }

    /// A failure that is no answer's: a seed that failed, say.
    pub(crate) fn fail(&mut self, what: &str, message: impl Into<String>) {
        self.failures.push(Failure {
            request: what.to_owned(),
            status: None,
            violations: Vec::new(),
            error: Some(message.into()),
        });
    }

    /// Marks the scenario as unable to check its rule, for `reason`.
    pub(crate) fn inconclusive(&mut self, reason: impl Into<String>) {
        self.inconclusive.get_or_insert(reason.into());
    }

    fn finish(self, info: &ScenarioInfo, started: Instant) -> ScenarioResult {
        let (outcome, reason) = if !self.not_implemented.is_empty() {
            let operations: Vec<&str> = self.not_implemented.iter().map(String::as_str).collect();
            (
                Outcome::NotImplemented,
                Some(format!("answered 501: {}", operations.join(", "))),
            )
        } else if !self.failures.is_empty() {
            (Outcome::Failed, None)
        } else if let Some(reason) = self.inconclusive {
            (Outcome::Inconclusive, Some(reason))
        } else {
            (Outcome::Passed, None)
        };
        ScenarioResult {
            name: info.name.clone(),
            description: info.rule.clone(),
            writes: info.writes,
            outcome,
            reason,
            requests: self.requests,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            failures: self.failures,
        }
    }
}

/// The results of one run so far.
pub(crate) struct Run<'v> {
    verifier: &'v Verifier,
    catalogue: Vec<ScenarioInfo>,
    results: Vec<ScenarioResult>,
}

impl<'v> Run<'v> {
    /// Whether `name` runs in this run.
    pub(crate) fn chosen(&self, name: &str) -> bool {
        self.verifier.chosen.contains(name)
    }

    pub(crate) fn scene(&self) -> Scene<'v> {
        Scene::new(&self.verifier.caller)
    }

    /// Records the result of scenario `name`, run in `scene` since `started`.
    pub(crate) fn record(&mut self, name: &str, scene: Scene<'_>, started: Instant) {
        let info = self
            .catalogue
            .iter()
            .find(|info| info.name == name)
            .unwrap_or_else(|| panic!("scenario `{name}` is in the catalogue"));
        let result = scene.finish(info, started);
        if let Some(progress) = &self.verifier.progress {
            progress(&result);
        }
        self.results.push(result);
    }
}

/// Runs one scenario body in a fresh [`Scene`] when the run chose it, and records its result;
/// `Some(value)` of the body when it ran.
macro_rules! scenario {
    ($run:expr, $name:expr, |$scene:ident| $body:expr) => {{
        let name: &str = &$name;
        if $run.chosen(name) {
            let started = std::time::Instant::now();
            #[allow(unused_mut)]
            let mut $scene = $run.scene();
            let value = $body.await;
            $run.record(name, $scene, started);
            Some(value)
        } else {
            None
        }
    }};
}

pub(crate) use scenario;

impl Verifier {
    /// The names of the scenarios this verifier runs, in the catalogue's order.
    pub fn scenario_names(&self) -> Vec<String> {
        catalogue()
            .into_iter()
            .filter(|info| self.chosen.contains(&info.name))
            .map(|info| info.name)
            .collect()
    }

    /// Runs the chosen scenarios: the reading ones always, the writing ones when asked. With
    /// writing on, a fixture is seeded first and every reading scenario checks it; writing
    /// scenarios create their own entries and touch nothing else. What the run created is
    /// deleted at the end.
    pub async fn run(&self) -> Report {
        let mut run = Run {
            verifier: self,
            catalogue: catalogue(),
            results: Vec::new(),
        };
        let tag = format!("cv{}", &seed::random_uuid()[..8]);
        let seed = self.seed.as_deref().filter(|_| self.write);
        let (fixture, seed_failure) = match seed {
            Some(seed) => match fixture::seed_fixture(&mut run, seed, &tag).await {
                Ok(fixture) => (Some(fixture), None),
                Err(why) => (None, Some(why)),
            },
            None => (None, None),
        };
        let (known, listing) = read::run(&mut run, fixture.as_ref(), seed_failure).await;
        filters::run(&mut run, &known).await;
        errors::run(&mut run, &listing).await;
        stats::run(&mut run, seed, &tag).await;
        if let Some(seed) = seed {
            write::run(&mut run, seed, &tag).await;
            write::cleanup(&mut run, fixture.as_ref()).await;
        }
        opt_in::run(&mut run, seed, &tag).await;
        Report {
            base_url: self.base_url.clone(),
            spec_version: self.caller.validator.contract().version.clone(),
            write: self.write,
            allow_inconclusive: self.allow_inconclusive,
            rate_limited: self.caller.rate_limited.load(Ordering::Relaxed),
            scenarios: run.results,
        }
    }
}

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
