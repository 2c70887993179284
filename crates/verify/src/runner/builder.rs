//! The [`Verifier`]'s builder: addresses, credentials, how to seed, which scenarios run, and
//! how politely.

use super::catalogue::{catalogue, chooses};
use super::http::{Caller, Politeness};
use super::seed::{AdminSeed, Seed};
use super::{ConfigError, Progress, Verifier, http_client};
use crate::report::ScenarioResult;
use crate::validate::Validator;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

/// Builds a [`Verifier`]: `Verifier::builder(url).service_token(..).build()?`.
pub struct VerifierBuilder {
    base_url: String,
    management_url: Option<String>,
    service_token: Option<String>,
    management: Option<(String, String)>,
    admin_token: Option<String>,
    seed: Option<Arc<dyn Seed>>,
    write: bool,
    allow_inconclusive: bool,
    selected: Vec<String>,
    excluded: Vec<String>,
    timeout: Duration,
    politeness: Politeness,
    root_certificates_pem: Vec<Vec<u8>>,
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
            allow_inconclusive: false,
            selected: Vec::new(),
            excluded: Vec::new(),
            timeout: Duration::from_secs(30),
            politeness: Politeness {
                interval: None,
                patience: Duration::from_secs(60),
                max_answer_bytes: 16 << 20,
            },
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

    /// Run the writing scenarios too (they need a seed), and seed the data every reading
    /// scenario checks; off by default, so nothing is written unless asked.
    pub fn write(mut self, write: bool) -> Self {
        self.write = write;
        self
    }

    /// Let a run with inconclusive scenarios pass (they are still reported). Off by default:
    /// a scenario that could not check its rule is no pass.
    pub fn allow_inconclusive(mut self, allow: bool) -> Self {
        self.allow_inconclusive = allow;
        self
    }

    /// Run only these scenarios (names, or patterns with one `*` such as `filter-*` or
    /// `filter-*-comma`). The scenarios that change credentials or the account's limits, or
    /// spend its budget (`rotation`, `retention`, `dlq-size`, `rate-limit`), run only when
    /// chosen here by their full name.
    pub fn scenarios<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.selected.extend(names.into_iter().map(Into::into));
        self
    }

    /// Leave these scenarios out (names, or patterns with one `*`).
    pub fn exclude<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.excluded.extend(names.into_iter().map(Into::into));
        self
    }

    /// The timeout of each request, its whole answer included (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Send at most this many requests a second (default: no pacing).
    pub fn max_requests_per_second(mut self, rate: f64) -> Self {
        self.politeness.interval = (rate > 0.0).then(|| Duration::from_secs_f64(1.0 / rate));
        self
    }

    /// How long one request keeps waiting out 429 answers, as their `Retry-After` or reset
    /// headers ask, before its 429 counts (default 60 s).
    pub fn rate_limit_patience(mut self, patience: Duration) -> Self {
        self.politeness.patience = patience;
        self
    }

    /// The largest answer body read (default 16 MiB); a larger one is an error naming the cap.
    pub fn max_answer_bytes(mut self, bytes: usize) -> Self {
        self.politeness.max_answer_bytes = bytes;
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

    /// The scenarios a run with these settings runs, in order.
    fn choose(&self) -> Result<BTreeSet<String>, ConfigError> {
        let all = catalogue();
        for pattern in self.selected.iter().chain(&self.excluded) {
            if !all.iter().any(|info| chooses(pattern, &info.name)) {
                return Err(ConfigError::UnknownScenario(pattern.clone()));
            }
        }
        let mut chosen = BTreeSet::new();
        for info in &all {
            let named = self.selected.iter().any(|p| p == &info.name);
            let selected = if self.selected.is_empty() {
                !info.opt_in
            } else if info.opt_in {
                named
            } else {
                self.selected.iter().any(|p| chooses(p, &info.name))
            };
            let excluded = self.excluded.iter().any(|p| chooses(p, &info.name));
            if !selected || excluded {
                continue;
            }
            if info.writes && !self.write {
                if named {
                    return Err(ConfigError::SelectedNeedsWrite(info.name.clone()));
                }
                continue;
            }
            chosen.insert(info.name.clone());
        }
        Ok(chosen)
    }

    pub fn build(self) -> Result<Verifier, ConfigError> {
        let messaging_url = parse_url(&self.base_url)?;
        let management_url = match &self.management_url {
            Some(url) => parse_url(url)?,
            None => messaging_url.clone(),
        };
        let chosen = self.choose()?;
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
                service_token: std::sync::RwLock::new(self.service_token),
                management: self.management,
                validator: Arc::new(Validator::courier()?),
                politeness: self.politeness,
                next_slot: tokio::sync::Mutex::new(Instant::now()),
                rate_limited: AtomicUsize::new(0),
                unanswered_in_a_row: AtomicUsize::new(0),
            },
            base_url: self.base_url,
            seed,
            write: self.write,
            allow_inconclusive: self.allow_inconclusive,
            chosen,
            progress: self.progress,
        })
    }
}
