//! Building clients: addresses (explicit, or a region through a URL template), credentials,
//! timeouts and retries, in code or from environment variables.
//!
//! | variable | used by | meaning |
//! |---|---|---|
//! | `COURIER_BASE_URL` | messaging | the messaging service address; wins over the region |
//! | `COURIER_REGION` | messaging | `eu-central-1` (default) or `us-east-1` |
//! | `COURIER_REGION_URL_TEMPLATE` | messaging | address template with `{region}`, e.g. `https://{region}.messaging.example` |
//! | `COURIER_SERVICE_TOKEN` | messaging | the service token (bearer) |
//! | `COURIER_MANAGEMENT_URL` | management | the management interface address; else `COURIER_BASE_URL` |
//! | `COURIER_CUSTOMER_ID` | management | Basic user name |
//! | `COURIER_MANAGEMENT_KEY` | management | Basic password |
//! | `COURIER_MAX_RESPONSE_BYTES` | both | the most bytes of one answer the client reads (`67108864`, `64MiB`; default 16 MiB) |
//! | `SSL_CERT_FILE`, `SSL_CERT_DIR` | both (rustls) | CA roots to trust instead of the system's |
//!
//! **Precedence: what the code sets explicitly wins over the environment**, whatever the order
//! of the calls: `from_env()` only fills what is still unset. For the messaging address, an
//! explicit `base_url` or `region` counts as set. The management address falls back to
//! `COURIER_BASE_URL`, because one `courier serve` listener serves both interfaces unless told
//! otherwise.
//!
//! ```no_run
//! # fn demo() -> Result<(), courier_client::CourierError> {
//! use courier_client::{management, messaging};
//! // Sends "my-token" even when COURIER_SERVICE_TOKEN is set; the address comes from
//! // COURIER_BASE_URL (or COURIER_REGION + COURIER_REGION_URL_TEMPLATE).
//! let messaging = messaging::Client::builder().token("my-token").from_env()?.build()?;
//! // Everything from the environment; management falls back to COURIER_BASE_URL.
//! let messaging = messaging::Client::from_env()?;
//! let management = management::Client::from_env()?;
//! # Ok(()) }
//! ```

use crate::hooks::{ManagementInner, MessagingAuth, MessagingInner};
pub use crate::http_options::HttpOptions;
use crate::http_options::http_option_setters;
use crate::retry::RetryPolicy;
use crate::{management, messaging};
use std::fmt;
use std::time::Duration;

/// Regions of the messaging service.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Region {
    /// `us-east-1`.
    UsEast1,
    /// `eu-central-1`, the default.
    #[default]
    EuCentral1,
}

impl Region {
    /// The region's name as it appears in addresses, e.g. `eu-central-1`.
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

pub use crate::error::ConfigError;

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
    region: Option<Region>,
    region_url_template: Option<String>,
    auth: Option<MessagingAuth>,
    options: HttpOptions,
    /// Whether `max_response_bytes` was set, which keeps the environment's out.
    max_response_bytes_chosen: bool,
}

impl MessagingClientBuilder {
    /// The messaging service address; wins over [`region`](Self::region).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Selects the address through [`region_url_template`](Self::region_url_template).
    pub fn region(mut self, region: Region) -> Self {
        self.region = Some(region);
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

    /// Fills what is still unset from `COURIER_BASE_URL`, `COURIER_REGION`,
    /// `COURIER_REGION_URL_TEMPLATE`, `COURIER_SERVICE_TOKEN` and `COURIER_MAX_RESPONSE_BYTES`
    /// (the answer cap; a malformed value is an error naming it): explicit setters win, before
    /// or after this call. An explicit `base_url` or `region` keeps the environment's address
    /// out entirely.
    pub fn from_env(mut self) -> Result<Self, ConfigError> {
        if self.base_url.is_none() && self.region.is_none() {
            self.base_url = env("COURIER_BASE_URL");
            if let Some(region) = env("COURIER_REGION") {
                self.region = Some(region.parse()?);
            }
        }
        if self.region_url_template.is_none() {
            self.region_url_template = env("COURIER_REGION_URL_TEMPLATE");
        }
        if self.auth.is_none() {
            self.auth = env("COURIER_SERVICE_TOKEN").map(MessagingAuth::Bearer);
        }
        if !self.max_response_bytes_chosen
            && let Some(bytes) =
                crate::limits::max_response_bytes_from_env().map_err(ConfigError)?
        {
            self.options.max_response_bytes = bytes;
        }
        Ok(self)
    }

    /// The address the client will use.
    pub fn resolved_url(&self) -> Result<String, ConfigError> {
        if let Some(url) = &self.base_url {
            return Ok(url.clone());
        }
        match &self.region_url_template {
            Some(template) if template.contains("{region}") => Ok(template.replace("{region}", self.region.unwrap_or_default().as_str())),
            Some(template) => Err(ConfigError(format!("the region URL template `{template}` has no `{{region}}`"))),
            None => Err(ConfigError(
                "no messaging address: set a base URL (COURIER_BASE_URL) or a region URL template (COURIER_REGION_URL_TEMPLATE)".into(),
            )),
        }
    }

    /// The messaging client, or what is missing or wrong in the settings.
    pub fn build(self) -> Result<messaging::Client, ConfigError> {
        let url = self.resolved_url()?;
        let auth = self
            .auth
            .ok_or_else(|| ConfigError("no service token (COURIER_SERVICE_TOKEN)".into()))?;
        let http = self.options.reqwest_client()?;
        let limits = self.options.limits();
        let inner = MessagingInner {
            auth,
            retry: self.options.retry,
            validate_responses: self.options.validate_responses,
            limits,
        };
        Ok(messaging::Client::new_with_client(&url, http, inner))
    }
}

/// Builds a [`management::Client`].
#[derive(Clone, Debug, Default)]
pub struct ManagementClientBuilder {
    base_url: Option<String>,
    customer_id: Option<String>,
    management_key: Option<String>,
    options: HttpOptions,
    /// Whether `max_response_bytes` was set, which keeps the environment's out.
    max_response_bytes_chosen: bool,
}

impl ManagementClientBuilder {
    /// The management interface's address (else `COURIER_MANAGEMENT_URL` or `COURIER_BASE_URL`).
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

    /// Fills what is still unset from `COURIER_MANAGEMENT_URL` (else `COURIER_BASE_URL`: one
    /// listener serves both interfaces by default), `COURIER_CUSTOMER_ID` and
    /// `COURIER_MANAGEMENT_KEY` and `COURIER_MAX_RESPONSE_BYTES` (the answer cap). Explicit setters
    /// win, before or after this call.
    pub fn from_env(mut self) -> Result<Self, ConfigError> {
        self.base_url = self
            .base_url
            .or_else(|| env("COURIER_MANAGEMENT_URL"))
            .or_else(|| env("COURIER_BASE_URL"));
        self.customer_id = self.customer_id.or_else(|| env("COURIER_CUSTOMER_ID"));
        self.management_key = self
            .management_key
            .or_else(|| env("COURIER_MANAGEMENT_KEY"));
        if !self.max_response_bytes_chosen
            && let Some(bytes) =
                crate::limits::max_response_bytes_from_env().map_err(ConfigError)?
        {
            self.options.max_response_bytes = bytes;
        }
        Ok(self)
    }

    /// The address the client will use.
    pub fn resolved_url(&self) -> Result<String, ConfigError> {
        require(
            self.base_url.clone(),
            "the management address (COURIER_MANAGEMENT_URL or COURIER_BASE_URL)",
        )
    }

    /// The management client, or what is missing or wrong in the settings.
    pub fn build(self) -> Result<management::Client, ConfigError> {
        let url = self.resolved_url()?;
        let customer_id = require(self.customer_id, "the customer id (COURIER_CUSTOMER_ID)")?;
        let management_key = require(
            self.management_key,
            "the management key (COURIER_MANAGEMENT_KEY)",
        )?;
        let http = self.options.reqwest_client()?;
        let limits = self.options.limits();
        let inner = ManagementInner {
            customer_id,
            management_key,
            retry: self.options.retry,
            validate_responses: self.options.validate_responses,
            limits,
        };
        Ok(management::Client::new_with_client(&url, http, inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(
        unsafe_code,
        reason = "changing the environment is unsafe in edition 2024"
    )]
    fn explicit_settings_win_over_the_environment_in_any_order() {
        // Only this test touches these variables; the values are unique to it.
        // SAFETY: no other test of this binary reads or writes COURIER_* variables.
        unsafe {
            std::env::set_var("COURIER_BASE_URL", "http://env.example");
            std::env::set_var("COURIER_SERVICE_TOKEN", "env-token");
            std::env::set_var("COURIER_CUSTOMER_ID", "env-customer");
            std::env::remove_var("COURIER_MANAGEMENT_URL");
        }
        let before = MessagingClientBuilder::default()
            .token("explicit")
            .base_url("http://explicit.example")
            .from_env()
            .unwrap();
        assert!(matches!(&before.auth, Some(MessagingAuth::Bearer(t)) if t == "explicit"));
        assert_eq!(before.resolved_url().unwrap(), "http://explicit.example");
        let after = MessagingClientBuilder::default()
            .from_env()
            .unwrap()
            .token("explicit");
        assert!(matches!(&after.auth, Some(MessagingAuth::Bearer(t)) if t == "explicit"));
        let region = MessagingClientBuilder::default()
            .region(Region::UsEast1)
            .region_url_template("https://{region}.mq.example")
            .from_env()
            .unwrap();
        assert_eq!(
            region.resolved_url().unwrap(),
            "https://us-east-1.mq.example"
        );
        let unset = MessagingClientBuilder::default().from_env().unwrap();
        assert!(matches!(&unset.auth, Some(MessagingAuth::Bearer(t)) if t == "env-token"));
        assert_eq!(unset.resolved_url().unwrap(), "http://env.example");

        // Management: falls back to COURIER_BASE_URL, explicit credentials win.
        let management = ManagementClientBuilder::default()
            .credentials("explicit-customer", "key")
            .from_env()
            .unwrap();
        assert_eq!(management.resolved_url().unwrap(), "http://env.example");
        assert_eq!(management.customer_id.as_deref(), Some("explicit-customer"));
        assert!(management.build().is_ok());
    }

    #[test]
    fn a_root_certificate_that_is_not_pem_fails_the_build_clearly() {
        let error = MessagingClientBuilder::default()
            .base_url("https://x")
            .token("t")
            .add_root_certificate_pem("not a certificate")
            .build()
            .unwrap_err();
        assert!(error.0.contains("root certificate"), "{error}");
    }

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
