//! `courier runs cancel`, `courier token rotate`, and the arguments of `courier topics get` and
//! `courier index get` (each one request, sent where the commands are dispatched).

use super::exit::{Failure, exit_for};
use super::output::{Output, OutputFormat};
use super::prompt::confirm;
use courier_client::{CourierError, management, messaging};

#[derive(clap::Subcommand, Debug)]
pub enum RunsCommand {
    /// Cancel workflow runs: each run and every DLQ entry of it is removed.
    #[command(after_help = "Example:\n  courier runs cancel wfr_demo01000 wfr_demo01001")]
    Cancel {
        /// The workflow run IDs.
        #[arg(required = true)]
        run_ids: Vec<String>,
    },
}

#[derive(clap::Subcommand, Debug)]
pub enum TopicsCommand {
    /// Show a URL group (topic) and its endpoints.
    #[command(after_help = "Example:\n  courier topics get orders")]
    Get {
        /// The URL group's name.
        name: String,
    },
}

#[derive(clap::Subcommand, Debug)]
pub enum IndexCommand {
    /// Show a search index (its throughput as a sparkline in a table).
    #[command(after_help = "Example:\n  courier index get 6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10")]
    Get {
        /// The index ID.
        id: String,
    },
}

#[derive(clap::Subcommand, Debug)]
pub enum TokenCommand {
    /// Replace the account's messaging token and password; the old token stops working at once.
    ///
    /// Prints the new service token alone on stdout; `--export` prints `export` lines for a shell
    /// instead, and `--output json|ndjson|table` the whole account record.
    #[command(after_help = "Examples:
  courier token rotate                       # asks first on a terminal; prints the new token
  export COURIER_SERVICE_TOKEN=$(courier token rotate --yes)
  eval \"$(courier token rotate --yes --export)\"
  courier token rotate --yes --output json   # the whole account record")]
    Rotate {
        /// Do not ask for confirmation (needed when stdin is not a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
        /// Print `export COURIER_SERVICE_TOKEN=…` for a shell to eval (instead of any --output).
        #[arg(long)]
        export: bool,
    },
}

pub(super) async fn runs(
    client: &messaging::Client,
    RunsCommand::Cancel { run_ids }: RunsCommand,
    output: &mut Output,
) -> Result<(), Failure> {
    let cancel = |id| async move {
        let sent = client.cancel_workflow_run().workflow_run_id(id).send();
        sent.await.map(drop)
    };
    one_by_one(run_ids, ("workflowRunId", "cancelled"), output, cancel).await
}

/// Sends one request per id (cancel a run, delete an entry), going on past failures: each
/// success is an ndjson line `{key: id, done: true}`, each failure a line on stderr, and the
/// count `{done: n}` (or `done n`) ends the output; the exit code is the first failure's.
pub(super) async fn one_by_one<Fut>(
    ids: Vec<String>,
    (key, done): (&str, &str),
    output: &mut Output,
    mut send: impl FnMut(String) -> Fut,
) -> Result<(), Failure>
where
    Fut: Future<Output = Result<(), CourierError>>,
{
    let mut count = 0u64;
    let mut first_failure = None;
    for id in ids {
        match send(id.clone()).await {
            Ok(()) => {
                count += 1;
                if output.format == OutputFormat::Ndjson {
                    output.json_line(&serde_json::json!({ key: id, done: true }))?;
                }
            }
            Err(error) => {
                eprintln!("error: {id}: {error}");
                first_failure.get_or_insert(exit_for(&error));
            }
        }
    }
    match output.format {
        OutputFormat::Json => output.json_line(&serde_json::json!({ done: count }))?,
        OutputFormat::Table => output.line(&format!("{done} {count}"))?,
        OutputFormat::Ndjson => {}
    }
    output.flush()?;
    match first_failure {
        Some(exit) => Err(Failure::reported(exit)),
        None => Ok(()),
    }
}

/// `token rotate`. Without `--output` the new token is the whole of stdout, so that a pipe or a
/// `$(…)` cannot lose it in a table; the account record is there on request.
pub(super) async fn token(
    client: &management::Client,
    TokenCommand::Rotate { yes, export }: TokenCommand,
    output: &mut Output,
    plain: bool,
) -> Result<(), Failure> {
    confirm(
        "Replace the messaging token and password? Every client using the current token stops working.",
        yes,
    )?;
    let account = client.rotate_token().send().await?.into_inner();
    if export {
        let quoted = |value: &str| format!("'{}'", value.replace('\'', r"'\''"));
        output.line(&format!(
            "export COURIER_SERVICE_TOKEN={}",
            quoted(&account.token)
        ))?;
        return output.flush();
    }
    if plain {
        output.line(&account.token)?;
        return output.flush();
    }
    output.show(&account)
}
