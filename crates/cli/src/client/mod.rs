//! The client subcommands of `courier` (`dlq`, `runs`, `topics`, `index`, `stats`, `token`),
//! built on `courier-client` alone, configured like its `from_env()` with flags that override.

mod connection;
mod dlq;
pub mod exit;
mod output;
pub mod profile;
mod progress;
mod prompt;
mod resources;
mod stats;
mod verify;

use connection::CommonArgs;
use exit::Failure;
use output::colour_for;
use resources::{IndexCommand, TopicsCommand};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Shown under `courier --help`: examples, and the exit codes scripts can rely on.
pub const AFTER_HELP: &str = "\
Examples (with COURIER_BASE_URL, COURIER_SERVICE_TOKEN, COURIER_CUSTOMER_ID and
COURIER_MANAGEMENT_KEY exported, e.g. for a local `courier serve --demo`):
  courier serve --demo
  courier dlq list --label billing --failure-function-state CALLBACK_FAIL
  courier dlq list --all --output ndjson | jq -r .dlqId
  courier dlq get 1761240845000-0
  courier dlq purge --label beta --yes
  courier runs cancel wfr_demo01000
  courier topics get orders
  courier stats account --period 1d
  courier token rotate
  courier verify --format junit > verify.xml
  courier completions bash > ~/.local/share/bash-completion/completions/courier
  courier --profile staging dlq list --limit 5

Connection flags (--base-url, --service-token, --ca-cert, --profile, -o, …) go before or after
the command group. Each setting comes from its flag, else its COURIER_* variable, else the named
profile (--profile or COURIER_PROFILE; `default` when none is named) of the profiles file
(COURIER_CONFIG, else ~/.config/courier/profiles.toml), a TOML table per service:
  [staging]
  base_url = \"https://staging.example\"
  service_token = \"…\"
  customer_id = \"ops@example.com\"
  management_key = \"…\"
  ca_cert = \"/etc/ssl/private-ca.pem\"
A profile's credentials go only to the profile's own address: with an address from a flag or a
variable (--base-url, --region, COURIER_BASE_URL, …) give the credentials as flags or variables
too, or the command is refused (exit 2).

Exit codes of the client commands:
  0    success
  1    other failure (a declined confirmation; a scenario of `verify` failed)
  2    usage: bad flags or values, no address configured, or 400 from the service
  3    credentials: none configured, or refused by the service (401/403)
  4    not found (404)
  5    rate limited (429) after the client's retries
  6    server or network: 5xx, 507, connection refused, timeout, TLS
  130  interrupted by Ctrl-C between pages (the cursor to resume with is printed)";

// Parsed once per process; boxing the filter-heavy variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(clap::Subcommand, Debug)]
pub enum ClientCommand {
    /// Inspect and clean the workflow dead-letter queue.
    Dlq {
        #[command(flatten)]
        common: CommonArgs,
        #[command(subcommand)]
        command: dlq::DlqCommand,
    },
    /// Cancel workflow runs.
    Runs {
        #[command(flatten)]
        common: CommonArgs,
        #[command(subcommand)]
        command: resources::RunsCommand,
    },
    /// URL groups (topics).
    Topics {
        #[command(flatten)]
        common: CommonArgs,
        #[command(subcommand)]
        command: TopicsCommand,
    },
    /// Search indexes (management interface).
    Index {
        #[command(flatten)]
        common: CommonArgs,
        #[command(subcommand)]
        command: IndexCommand,
    },
    /// Account and index statistics (management interface).
    Stats {
        #[command(flatten)]
        common: CommonArgs,
        #[command(subcommand)]
        command: stats::StatsCommand,
    },
    /// Credential rotation (management interface).
    Token {
        #[command(flatten)]
        common: CommonArgs,
        #[command(subcommand)]
        command: resources::TokenCommand,
    },
    /// Verify a service against the spec: every answer against its schema, and the
    /// interface's rules, one per scenario (filters, pages, order, deletes seen in every list,
    /// errors, credentials, series). Exit 0 when nothing failed and nothing was inconclusive
    /// (unless --allow-inconclusive); 1 otherwise; 6 when nothing answered.
    #[command(after_help = "Examples:
  courier verify --base-url http://127.0.0.1:8080
  courier verify --format junit > verify.xml
  courier verify --write --admin-token \"$COURIER_ADMIN_TOKEN\"
  courier verify --list-scenarios
  courier verify --scenario 'filter-*' --exclude filter-and -o json")]
    Verify {
        #[command(flatten)]
        common: CommonArgs,
        #[command(flatten)]
        args: verify::VerifyArgs,
    },
}

async fn execute(command: ClientCommand) -> Result<(), Failure> {
    match command {
        ClientCommand::Dlq { common, command } => {
            dlq::run(&common.messaging()?, command, &mut common.output()).await
        }
        ClientCommand::Runs { common, command } => {
            resources::runs(&common.messaging()?, command, &mut common.output()).await
        }
        ClientCommand::Stats { common, command } => {
            stats::run(&common.management()?, command, &mut common.output()).await
        }
        ClientCommand::Token { common, command } => {
            let client = common.management()?;
            let plain = !common.output_chosen();
            resources::token(&client, command, &mut common.output(), plain).await
        }
        ClientCommand::Verify { common, args } => verify::run(&common, args).await,
        // `topics get` and `index get`: one request, its answer printed.
        ClientCommand::Topics { common, command } => {
            let TopicsCommand::Get { name } = command;
            let client = common.messaging()?;
            let group = client.get_url_group().url_group_name(name).send().await?;
            common.output().show(&group.into_inner())
        }
        ClientCommand::Index { common, command } => {
            let IndexCommand::Get { id } = command;
            let client = common.management()?;
            let index = client.get_search_index().id(id).send().await?;
            common.output().show(&index.into_inner())
        }
    }
}

/// The command line with connection flags given before the command group moved after it
/// (see `connection::leading_flags_after_the_group`).
pub fn with_leading_flags_moved(args: Vec<String>) -> Vec<String> {
    connection::leading_flags_after_the_group(
        args,
        <ClientCommand as clap::Subcommand>::has_subcommand,
    )
}

/// Runs one client command; failures go to stderr as `error: <message>`, the service's own
/// message kept verbatim, with an exit status from [`exit::Exit`].
pub async fn run(command: ClientCommand) -> ExitCode {
    match execute(command).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if let Some(message) = &failure.message {
                let label = if colour_for(std::io::stderr().is_terminal()) {
                    "\x1b[1;31merror:\x1b[0m"
                } else {
                    "error:"
                };
                eprintln!("{label} {message}");
            }
            failure.exit_code()
        }
    }
}
