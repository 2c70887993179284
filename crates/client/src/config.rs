//! Building clients: addresses (explicit, or a region through a URL template), credentials,
//! timeouts and retries, in code or from environment variables.
//!
//! | variable | used by | meaning |
//! |---|---|---|
//! | `COURIER_BASE_URL` | messaging | the messaging service address; wins over the region |
//! | `COURIER_REGION` | messaging | `eu-central-1` (default) or `us-east-1` |
//! | `COURIER_REGION_URL_TEMPLATE` | messaging | address template with `{region}`, e.g. `https://{region}.messaging.example` |
//! | `COURIER_SERVICE_TOKEN` | messaging | the service token (bearer) |
//! | `COURIER_MANAGEMENT_URL` | management | the management interface address |
//! | `COURIER_CUSTOMER_ID` | management | Basic user name |
//! | `COURIER_MANAGEMENT_KEY` | management | Basic password |

use crate::hooks::{ManagementInner, MessagingAuth, MessagingInner};
use crate::retry::RetryPolicy;
use crate::{management, messaging};
use std::fmt;
use std::time::Duration;

/// Regions of the messaging service.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Region {
    UsEast1,
    #[default]
    EuCentral1,
}

impl Region {
    pub fn as_str(self) -> &'static str {
        match self {
            Region::UsEast1 => "us-east-1",
            Region::EuCentral1 => "eu-central-1",
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Region {
    type Err = ConfigError;
    fn from_str(text: &str) -> Result<Region, ConfigError> {
        match text {
            "us-east-1" => Ok(Region::UsEast1),
            "eu-central-1" => Ok(Region::EuCentral1),
            other => Err(ConfigError(format!(
                "unknown region `{other}`: use us-east-1 or eu-central-1"
            ))),
        }
    }
}

/// A client could not be built from the given configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Connection settings shared by both clients.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub connect_timeout: Duration,
    /// Whole-request timeout, per attempt.
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(30),
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpOptions {
    fn reqwest_client(&self) -> Result<reqwest::Client, ConfigError> {
        reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .timeout(self.timeout)
            .build()
            .map_err(|e| ConfigError(format!("cannot build the HTTP client: {e}")))
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

        /// How long one attempt of a request may take in all (default 30 s).
        pub fn timeout(mut self, timeout: Duration) -> Self {
            self.options.timeout = timeout;
            self
        }

        /// When to retry ([`RetryPolicy::default`]: 3 attempts; [`RetryPolicy::none`]).
        pub fn retry(mut self, policy: RetryPolicy) -> Self {
            self.options.retry = policy;
            self
        }
    };
}

fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

fn require(value: Option<String>, what: &str) -> Result<String, ConfigError> {
    value.ok_or_else(|| ConfigError(format!("{what} is not set")))
}

/// Builds a [`messaging::Client`].
#[derive(Clone, Debug, Default)]
pub struct MessagingClientBuilder {
    base_url: Option<String>,
    region: Region,
    region_url_template: Option<String>,
    auth: Option<MessagingAuth>,
    options: HttpOptions,
}

impl MessagingClientBuilder {
    /// The messaging service address; wins over [`region`](Self::region).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Selects the address through [`region_url_template`](Self::region_url_template).
    pub fn region(mut self, region: Region) -> Self {
        self.region = region;
        self
    }

    /// Address template containing `{region}`. The interface names no host, so regions map to
    /// addresses only through a template the user supplies.
    pub fn region_url_template(mut self, template: impl Into<String>) -> Self {
        self.region_url_template = Some(template.into());
        self
    }

    /// Send the token as `Authorization: Bearer <token>`.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.auth = Some(MessagingAuth::Bearer(token.into()));
        self
    }

    /// Send the token in the `service_token` query key instead of a header.
    pub fn query_token(mut self, token: impl Into<String>) -> Self {
        self.auth = Some(MessagingAuth::QueryToken(token.into()));
        self
    }

    http_option_setters!();

    /// Reads `COURIER_BASE_URL`, `COURIER_REGION`, `COURIER_REGION_URL_TEMPLATE` and
    /// `COURIER_SERVICE_TOKEN`.
    pub fn from_env(mut self) -> Result<Self, ConfigError> {
        if let Some(url) = env("COURIER_BASE_URL") {
            self.base_url = Some(url);
        }
        if let Some(region) = env("COURIER_REGION") {
            self.region = region.parse()?;
        }
        if let Some(template) = env("COURIER_REGION_URL_TEMPLATE") {
            self.region_url_template = Some(template);
        }
        if let Some(token) = env("COURIER_SERVICE_TOKEN") {
            self.auth = Some(MessagingAuth::Bearer(token));
        }
        Ok(self)
    }

    /// The address the client will use.
    pub fn resolved_url(&self) -> Result<String, ConfigError> {
        if let Some(url) = &self.base_url {
            return Ok(url.clone());
        }
        match &self.region_url_template {
            Some(template) if template.contains("{region}") => Ok(template.replace("{region}", self.region.as_str())),
            Some(template) => Err(ConfigError(format!("the region URL template `{template}` has no `{{region}}`"))),
            None => Err(ConfigError(
                "no messaging address: set a base URL (COURIER_BASE_URL) or a region URL template (COURIER_REGION_URL_TEMPLATE)".into(),
            )),
        }
    }

    pub fn build(self) -> Result<messaging::Client, ConfigError> {
        let url = self.resolved_url()?;
        let auth = self
            .auth
            .ok_or_else(|| ConfigError("no service token (COURIER_SERVICE_TOKEN)".into()))?;
        let http = self.options.reqwest_client()?;
        Ok(messaging::Client::new_with_client(
            &url,
            http,
            MessagingInner {
                auth,
                retry: self.options.retry,
            },
        ))
    }
}

/// Builds a [`management::Client`].
#[derive(Clone, Debug, Default)]
pub struct ManagementClientBuilder {
    base_url: Option<String>,
    customer_id: Option<String>,
    management_key: Option<String>,
    options: HttpOptions,
}

impl ManagementClientBuilder {
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Basic credentials: the account's `customer_id` and a management key.
    pub fn credentials(
        mut self,
        customer_id: impl Into<String>,
        management_key: impl Into<String>,
    ) -> Self {
        self.customer_id = Some(customer_id.into());
        self.management_key = Some(management_key.into());
        self
    }

    http_option_setters!();

    /// Reads `COURIER_MANAGEMENT_URL`, `COURIER_CUSTOMER_ID` and `COURIER_MANAGEMENT_KEY`.
    pub fn from_env(mut self) -> Result<Self, ConfigError> {
        self.base_url = env("COURIER_MANAGEMENT_URL").or(self.base_url);
        self.customer_id = env("COURIER_CUSTOMER_ID").or(self.customer_id);
        self.management_key = env("COURIER_MANAGEMENT_KEY").or(self.management_key);
        Ok(self)
    }

    pub fn build(self) -> Result<management::Client, ConfigError> {
        let url = require(
            self.base_url,
            "the management address (COURIER_MANAGEMENT_URL)",
        )?;
        let customer_id = require(self.customer_id, "the customer id (COURIER_CUSTOMER_ID)")?;
        let management_key = require(
            self.management_key,
            "the management key (COURIER_MANAGEMENT_KEY)",
        )?;
        let http = self.options.reqwest_client()?;
        Ok(management::Client::new_with_client(
            &url,
            http,
            ManagementInner {
                customer_id,
                management_key,
                retry: self.options.retry,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_resolve_through_the_template_and_a_base_url_wins() {
        let builder =
            MessagingClientBuilder::default().region_url_template("https://{region}.mq.example");
        assert_eq!(
            builder.resolved_url().unwrap(),
            "https://eu-central-1.mq.example"
        );
        let builder = builder.region(Region::UsEast1);
        assert_eq!(
            builder.resolved_url().unwrap(),
            "https://us-east-1.mq.example"
        );
        assert_eq!(
            builder
                .base_url("http://127.0.0.1:8080")
                .resolved_url()
                .unwrap(),
            "http://127.0.0.1:8080"
        );
        assert!(MessagingClientBuilder::default().resolved_url().is_err());
        assert!(
            MessagingClientBuilder::default()
                .region_url_template("https://x")
                .resolved_url()
                .is_err()
        );
        assert!("ap-south-1".parse::<Region>().is_err());
    }

    #[test]
    fn building_without_credentials_says_what_is_missing() {
        let error = MessagingClientBuilder::default()
            .base_url("http://x")
            .build()
            .unwrap_err();
        assert!(error.0.contains("COURIER_SERVICE_TOKEN"), "{error}");
        let error = ManagementClientBuilder::default()
            .base_url("http://x")
            .build()
            .unwrap_err();
        assert!(error.0.contains("COURIER_CUSTOMER_ID"), "{error}");
    }
}
