//! Where the client commands connect and with which credentials: flags that override the same
//! `COURIER_*` variables `courier_client`'s `from_env()` reads, with the same precedence.

use super::exit::{Exit, Failure};
use super::output::{Output, OutputFormat};
use courier_client::{Region, RetryPolicy, management, messaging};

/// Options every client command takes (after the command group or after the subcommand).
///
/// `--base-url` and `--region` deliberately read no variable through clap: the client's
/// `from_env()` reads `COURIER_BASE_URL` and `COURIER_REGION` itself, and an explicit `--region`
/// must keep an exported `COURIER_BASE_URL` out, exactly as `builder().region(..)` does.
#[derive(clap::Args, Clone, Debug)]
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
    /// Output format [default: table on a terminal, ndjson otherwise].
    #[arg(long, short = 'o', global = true, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
    /// Retries after a 429, a 5xx or a connection failure (the client's policy: 2, honouring
    /// Retry-After). 0 fails at once.
    #[arg(long, global = true, value_name = "N")]
    pub retries: Option<u32>,
}

impl CommonArgs {
    fn retry_policy(&self) -> RetryPolicy {
        match self.retries {
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

    /// The messaging client: flags first, then what `from_env()` fills in.
    pub fn messaging(&self) -> Result<messaging::Client, Failure> {
        let Some(token) = &self.service_token else {
            return Err(Failure::new(
                Exit::Credentials,
                "no service token: set COURIER_SERVICE_TOKEN or pass --service-token",
            ));
        };
        let mut builder = messaging::Client::builder()
            .token(token)
            .retry(self.retry_policy());
        if let Some(url) = &self.base_url {
            builder = builder.base_url(url);
        }
        if let Some(region) = self.region {
            builder = builder.region(region);
        }
        if let Some(template) = &self.region_url_template {
            builder = builder.region_url_template(template);
        }
        builder
            .from_env()
            .and_then(|builder| builder.build())
            .map_err(|error| Failure::usage(error.to_string()))
    }

    /// The management client. Its address is `--management-url` / `COURIER_MANAGEMENT_URL`,
    /// else `--base-url` / `COURIER_BASE_URL`: each flag overrides its own variable.
    pub fn management(&self) -> Result<management::Client, Failure> {
        let (Some(customer_id), Some(key)) = (&self.customer_id, &self.management_key) else {
            return Err(Failure::new(
                Exit::Credentials,
                "no management credentials: set COURIER_CUSTOMER_ID and COURIER_MANAGEMENT_KEY \
                 or pass --customer-id and --management-key",
            ));
        };
        let mut builder = management::Client::builder()
            .credentials(customer_id, key)
            .retry(self.retry_policy());
        if let Some(url) = self.management_url.as_ref().or(self.base_url.as_ref()) {
            builder = builder.base_url(url);
        }
        builder
            .from_env()
            .and_then(|builder| builder.build())
            .map_err(|error| Failure::usage(error.to_string()))
    }
}
