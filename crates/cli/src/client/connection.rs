//! Where the client commands connect and with which credentials: flags, then the same `COURIER_*`
//! variables `courier_client`'s `from_env()` reads, then a named profile; the first that says
//! wins. A profile's credentials go only to the profile's own address (see [`ProfileGave`]).

use super::exit::{Exit, Failure};
use super::output::{Output, OutputFormat};
use super::profile::Profile;
use courier_client::{Region, RetryPolicy, management, messaging};
use std::path::PathBuf;

mod leading_flags;

pub(super) use leading_flags::leading_flags_after_the_group;

/// Options every client command takes: before the command group (`courier --base-url URL dlq
/// list`, see [`leading_flags_after_the_group`]) or anywhere after it.
///
/// `--base-url` and `--region` deliberately read no variable through clap: the client's
/// `from_env()` reads `COURIER_BASE_URL` and `COURIER_REGION` itself, and an explicit `--region`
/// must keep an exported `COURIER_BASE_URL` out, exactly as `builder().region(..)` does.
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "Connection and output (also before the command group)")]
pub struct CommonArgs {
    /// Messaging service address [env: COURIER_BASE_URL]; wins over the region.
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Region whose address the URL template gives: eu-central-1 or us-east-1 [env: COURIER_REGION].
    #[arg(long, global = true, value_name = "REGION")]
    pub region: Option<Region>,
    /// Address template containing `{region}`, e.g. https://{region}.messaging.example.
    #[arg(
        long,
        global = true,
        env = "COURIER_REGION_URL_TEMPLATE",
        value_name = "TEMPLATE"
    )]
    pub region_url_template: Option<String>,
    /// Messaging service token (sent as a bearer token).
    #[arg(
        long,
        global = true,
        env = "COURIER_SERVICE_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub service_token: Option<String>,
    /// Management interface address; else the --base-url / COURIER_BASE_URL address.
    #[arg(
        long,
        global = true,
        env = "COURIER_MANAGEMENT_URL",
        value_name = "URL"
    )]
    pub management_url: Option<String>,
    /// Management user name: the account's customer id.
    #[arg(long, global = true, env = "COURIER_CUSTOMER_ID", value_name = "ID")]
    pub customer_id: Option<String>,
    /// Management key (the Basic auth password).
    #[arg(
        long,
        global = true,
        env = "COURIER_MANAGEMENT_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub management_key: Option<String>,
    /// PEM file of a CA to trust besides the system's roots: a private CA, or the certificate of
    /// a local `courier serve --tls-cert`.
    #[arg(long, global = true, env = "COURIER_CA_CERT", value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Named profile of the profiles file (see `courier --help`); flags and variables win over it.
    #[arg(long, global = true, env = "COURIER_PROFILE", value_name = "NAME")]
    pub profile: Option<String>,
    /// Output format [default: table on a terminal, ndjson otherwise].
    #[arg(long, short = 'o', global = true, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
    /// Retries after a 5xx or a connection failure (the client's policy: 2); short 429s are
    /// waited out as Retry-After asks, for up to 30 s in all. 0 fails at once, 429s included.
    #[arg(long, global = true, value_name = "N")]
    pub retries: Option<u32>,
    /// How long one request may take, its whole answer included, in seconds (the client's
    /// default: 30); the whole call, retries and waits included, still ends at the client's
    /// deadline (60 s).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
}

/// The variables the client's `from_env()` reads for the address: a profile must not override
/// them, so their presence keeps the profile's address out.
fn variable_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|value| !value.is_empty())
}

impl CommonArgs {
    fn retry_policy(&self) -> RetryPolicy {
        match self.retries {
            Some(0) => RetryPolicy::none(),
            Some(retries) => RetryPolicy {
                max_attempts: retries.saturating_add(1),
                ..RetryPolicy::default()
            },
            None => RetryPolicy::default(),
        }
    }

    pub fn output(&self) -> Output {
        Output::new(self.output)
    }

    /// Whether `--output`/`-o` was given (some commands print less by default).
    pub fn output_chosen(&self) -> bool {
        self.output.is_some()
    }

    /// These settings with what the profile adds where neither a flag nor a variable said, and
    /// which of them the profile gave.
    fn with_profile(&self) -> Result<Settings, Failure> {
        let Some(profile) = Profile::load(self.profile.as_deref()).map_err(Failure::usage)? else {
            return Ok(Settings {
                args: self.clone(),
                profile: None,
            });
        };
        let mut merged = self.clone();
        let addressed = self.base_url.is_some()
            || self.region.is_some()
            || variable_set("COURIER_BASE_URL")
            || variable_set("COURIER_REGION");
        let given = ProfileGave {
            name: self
                .profile
                .clone()
                .unwrap_or_else(|| super::profile::DEFAULT_PROFILE.to_owned()),
            base_url: profile.base_url.is_some(),
            has_management_url: profile.management_url.is_some(),
            messaging_address: !addressed && profile.base_url.is_some(),
            management_url: self.management_url.is_none() && profile.management_url.is_some(),
            service_token: self.service_token.is_none() && profile.service_token.is_some(),
            customer_id: self.customer_id.is_none() && profile.customer_id.is_some(),
            management_key: self.management_key.is_none() && profile.management_key.is_some(),
        };
        if !addressed {
            merged.base_url = profile.base_url;
        }
        merged.management_url = merged.management_url.or(profile.management_url);
        merged.service_token = merged.service_token.or(profile.service_token);
        merged.customer_id = merged.customer_id.or(profile.customer_id);
        merged.management_key = merged.management_key.or(profile.management_key);
        merged.ca_cert = merged.ca_cert.or(profile.ca_cert);
        Ok(Settings {
            args: merged,
            profile: Some(given),
        })
    }

    /// Where the messaging address comes from when not from the profile: the flag or variable
    /// to name in a refusal, or `None` when it is the profile's (or there is none).
    fn messaging_address_source(&self, profile: &ProfileGave) -> Option<&'static str> {
        if profile.messaging_address {
            return None;
        }
        if self.base_url.is_some() {
            Some("--base-url")
        } else if self.region.is_some() {
            Some("--region")
        } else if variable_set("COURIER_BASE_URL") {
            Some("COURIER_BASE_URL")
        } else if variable_set("COURIER_REGION") {
            Some("COURIER_REGION")
        } else if let Some(template) = &self.region_url_template {
            Some(flag_or_variable(
                template,
                "--region-url-template",
                "COURIER_REGION_URL_TEMPLATE",
            ))
        } else {
            None
        }
    }

    /// Where the management address comes from when not from the profile (see
    /// [`messaging_address_source`](Self::messaging_address_source)): its own flag or variable,
    /// else the messaging address's.
    fn management_address_source(&self, profile: &ProfileGave) -> Option<&'static str> {
        if profile.management_url {
            return None;
        }
        if let Some(url) = &self.management_url {
            return Some(flag_or_variable(
                url,
                "--management-url",
                "COURIER_MANAGEMENT_URL",
            ));
        }
        if profile.messaging_address {
            return None;
        }
        if self.base_url.is_some() {
            Some("--base-url")
        } else if variable_set("COURIER_BASE_URL") {
            Some("COURIER_BASE_URL")
        } else {
            None
        }
    }

    /// The CA file's PEM text, when one is configured.
    fn ca_pem(&self) -> Result<Option<Vec<u8>>, Failure> {
        let Some(path) = &self.ca_cert else {
            return Ok(None);
        };
        std::fs::read(path).map(Some).map_err(|error| {
            Failure::usage(format!(
                "cannot read the CA certificate {} (--ca-cert / COURIER_CA_CERT): {error}",
                path.display()
            ))
        })
    }

    /// The messaging client: flags first, then what `from_env()` fills in, then the profile.
    pub fn messaging(&self) -> Result<messaging::Client, Failure> {
        self.messaging_builder()?
            .build()
            .map_err(|error| Failure::usage(with_flag_hint(error.to_string())))
    }

    /// The messaging client's builder, every setting applied.
    fn messaging_builder(&self) -> Result<courier_client::MessagingClientBuilder, Failure> {
        let Settings {
            args: settings,
            profile,
        } = self.with_profile()?;
        if let Some(profile) = &profile
            && profile.service_token
            && let Some(source) = self.messaging_address_source(profile)
        {
            return Err(profile.refusal(
                "service token",
                source,
                "--service-token or COURIER_SERVICE_TOKEN",
                profile.base_url,
                "base_url",
            ));
        }
        let Some(token) = &settings.service_token else {
            return Err(Failure::new(
                Exit::Credentials,
                "no service token: set COURIER_SERVICE_TOKEN or pass --service-token",
            ));
        };
        let mut builder = messaging::Client::builder()
            .token(token)
            .retry(settings.retry_policy());
        if let Some(seconds) = settings.timeout {
            builder = builder.timeout(std::time::Duration::from_secs(seconds));
        }
        if let Some(url) = &settings.base_url {
            builder = builder.base_url(url);
        }
        if let Some(region) = settings.region {
            builder = builder.region(region);
        }
        if let Some(template) = &settings.region_url_template {
            builder = builder.region_url_template(template);
        }
        if let Some(pem) = settings.ca_pem()? {
            builder = builder.add_root_certificate_pem(pem);
        }
        builder
            .from_env()
            .map_err(|error| Failure::usage(with_flag_hint(error.to_string())))
    }

    /// What `courier verify` connects to: the messaging address and token as the messaging
    /// client resolves them, the management address and credentials when configured (the
    /// management scenarios are skipped without them), and the CA file's PEM.
    pub fn verify_target(&self) -> Result<VerifyTarget, Failure> {
        let settings = self.with_profile()?.args;
        let hint = |error: courier_client::config::ConfigError| {
            Failure::usage(with_flag_hint(error.to_string()))
        };
        let base_url = self.messaging_builder()?.resolved_url().map_err(hint)?;
        let management = match (&settings.customer_id, &settings.management_key) {
            (Some(id), Some(key)) => Some((id.clone(), key.clone())),
            _ => None,
        };
        let management_url = match &management {
            Some(_) => Some(self.management_builder()?.resolved_url().map_err(hint)?),
            None => None,
        };
        Ok(VerifyTarget {
            base_url,
            service_token: settings.service_token.clone().ok_or_else(|| {
                Failure::new(
                    Exit::Credentials,
                    "no service token: set COURIER_SERVICE_TOKEN or pass --service-token",
                )
            })?,
            management_url,
            management,
            ca_pem: settings.ca_pem()?,
        })
    }

    /// The management client. Its address is `--management-url` / `COURIER_MANAGEMENT_URL`,
    /// else `--base-url` / `COURIER_BASE_URL`: each flag overrides its own variable.
    pub fn management(&self) -> Result<management::Client, Failure> {
        self.management_builder()?
            .build()
            .map_err(|error| Failure::usage(with_flag_hint(error.to_string())))
    }

    /// The management client's builder, every setting applied.
    fn management_builder(&self) -> Result<courier_client::ManagementClientBuilder, Failure> {
        let Settings {
            args: settings,
            profile,
        } = self.with_profile()?;
        if let Some(profile) = &profile
            && (profile.customer_id || profile.management_key)
            && let Some(source) = self.management_address_source(profile)
        {
            let what = match (profile.customer_id, profile.management_key) {
                (true, true) => "customer id and management key",
                (false, true) => "management key",
                _ => "customer id",
            };
            return Err(profile.refusal(
                what,
                source,
                "--customer-id and --management-key, or COURIER_CUSTOMER_ID and \
                 COURIER_MANAGEMENT_KEY",
                profile.base_url || profile.has_management_url,
                "management_url or base_url",
            ));
        }
        let (Some(customer_id), Some(key)) = (&settings.customer_id, &settings.management_key)
        else {
            return Err(Failure::new(
                Exit::Credentials,
                "no management credentials: set COURIER_CUSTOMER_ID and COURIER_MANAGEMENT_KEY \
                 or pass --customer-id and --management-key",
            ));
        };
        let mut builder = management::Client::builder()
            .credentials(customer_id, key)
            .retry(settings.retry_policy());
        if let Some(seconds) = settings.timeout {
            builder = builder.timeout(std::time::Duration::from_secs(seconds));
        }
        if let Some(url) = settings
            .management_url
            .as_ref()
            .or(settings.base_url.as_ref())
        {
            builder = builder.base_url(url);
        }
        if let Some(pem) = settings.ca_pem()? {
            builder = builder.add_root_certificate_pem(pem);
        }
        builder
            .from_env()
            .map_err(|error| Failure::usage(with_flag_hint(error.to_string())))
    }
}

/// The settings of a command with its profile's applied, and what the profile gave.
struct Settings {
    args: CommonArgs,
    /// `None` when no profile was loaded.
    profile: Option<ProfileGave>,
}

/// Which settings a profile gave (the others came from a flag or a variable, or nowhere).
///
/// A profile's credentials go only to the profile's own address: an address from a flag or a
/// variable beside them is refused, since `COURIER_BASE_URL=http://elsewhere courier --profile
/// prod dlq list` would otherwise hand prod's token to `elsewhere`. Credentials given the way
/// the address is (a flag or a variable) are the caller's to send where they like.
struct ProfileGave {
    name: String,
    /// The profile has a `base_url` (used or not).
    base_url: bool,
    /// The profile has a `management_url` (used or not).
    has_management_url: bool,
    /// The messaging address is the profile's `base_url`.
    messaging_address: bool,
    /// The management address is the profile's `management_url`.
    management_url: bool,
    service_token: bool,
    customer_id: bool,
    management_key: bool,
}

impl ProfileGave {
    /// The usage failure (exit 2) for `what` of this profile beside an address from `source`:
    /// says why, and the two ways out: `flags`, how to give the credentials with the address;
    /// or the profile's own address, which the profile has when `has_address`, else is `keys`.
    fn refusal(
        &self,
        what: &str,
        source: &str,
        flags: &str,
        has_address: bool,
        keys: &str,
    ) -> Failure {
        let name = &self.name;
        let own_address = if has_address {
            format!("drop {source} to use the profile's own address")
        } else {
            format!("add {keys} to profile `{name}`")
        };
        Failure::usage(format!(
            "the {what} of profile `{name}` would be sent to the address from {source}, which is \
             not the profile's: a profile's credentials go only to its own address. Pass \
             credentials beside the address ({flags}), or {own_address}"
        ))
    }
}

/// `--flag` or `VARIABLE`, whichever gave `value`: clap merges the two, so a value equal to the
/// variable's is taken to be the variable's.
fn flag_or_variable(value: &str, flag: &'static str, variable: &'static str) -> &'static str {
    if std::env::var(variable).is_ok_and(|set| set == value) {
        variable
    } else {
        flag
    }
}

/// The service `courier verify` checks, as the other client commands would reach it.
pub struct VerifyTarget {
    pub base_url: String,
    pub service_token: String,
    pub management_url: Option<String>,
    pub management: Option<(String, String)>,
    pub ca_pem: Option<Vec<u8>>,
}

/// The client's configuration errors name the variables; a terminal user also wants the flag.
fn with_flag_hint(message: String) -> String {
    if message.contains("COURIER_BASE_URL") && !message.contains("--base-url") {
        format!("{message} (or pass --base-url, or --profile with a base_url)")
    } else {
        message
    }
}
