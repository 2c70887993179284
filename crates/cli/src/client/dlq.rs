//! `courier dlq list|get|delete|purge`: the workflow DLQ from a terminal.

use super::exit::Failure;
use super::output::{Output, OutputFormat, utc};
use super::progress::{Interrupt, spinner};
use super::prompt::confirm;
use super::resources::one_by_one;
use courier_client::models::{FailureFunctionState, WorkflowDlqMessage};
use courier_client::{CourierError, DlqFilter, ResponseValue, messaging};
use std::io::IsTerminal;

/// The filters of the list operation; `dlq purge` takes the same.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct FilterArgs {
    /// Created at or after this time (Unix milliseconds, inclusive).
    #[arg(long, value_name = "MS")]
    pub from_date: Option<i64>,
    /// Created at or before this time (Unix milliseconds, inclusive).
    #[arg(long, value_name = "MS")]
    pub to_date: Option<i64>,
    /// Workflow URL (exact); repeat the flag for any of several. URLs are never split on commas.
    #[arg(long, value_name = "URL")]
    pub workflow_url: Vec<String>,
    /// Workflow run ID.
    #[arg(long, value_name = "ID")]
    pub workflow_run_id: Option<String>,
    /// Creation time of the run (Unix milliseconds, exact).
    #[arg(long, value_name = "MS")]
    pub workflow_created_at: Option<i64>,
    /// Label; repeat or comma-separate for any of several.
    #[arg(long, value_delimiter = ',', value_name = "LABEL")]
    pub label: Vec<String>,
    /// Failure function state; repeat or comma-separate for any of several.
    #[arg(long, value_delimiter = ',', value_name = "STATE", value_parser = parse_state)]
    pub failure_function_state: Vec<FailureFunctionState>,
    /// Publisher's IP address; repeat or comma-separate for any of several.
    #[arg(long, value_delimiter = ',', value_name = "IP")]
    pub caller_ip: Vec<String>,
    /// Flow control key; repeat or comma-separate for any of several.
    #[arg(long, value_delimiter = ',', value_name = "KEY")]
    pub flow_control_key: Vec<String>,
}

const STATES: [FailureFunctionState; 4] = [
    FailureFunctionState::CallbackInprogress,
    FailureFunctionState::CallbackSuccess,
    FailureFunctionState::CallbackFail,
    FailureFunctionState::CallbackCanceled,
];

fn parse_state(text: &str) -> Result<FailureFunctionState, String> {
    text.parse().map_err(|_| {
        let allowed: Vec<String> = STATES.iter().map(ToString::to_string).collect();
        format!("expected one of {}", allowed.join(", "))
    })
}

impl FilterArgs {
    pub fn is_empty(&self) -> bool {
        self.to_filter() == DlqFilter::new()
    }

    /// The client's filter (no count, no cursor: the commands set those per request).
    pub fn to_filter(&self) -> DlqFilter {
        let mut filter = DlqFilter::new()
            .workflow_urls(self.workflow_url.iter().cloned())
            .labels(self.label.iter().cloned())
            .failure_function_states(self.failure_function_state.iter().copied())
            .caller_ips(self.caller_ip.iter().cloned())
            .flow_control_keys(self.flow_control_key.iter().cloned());
        if let Some(ms) = self.from_date {
            filter = filter.from_date(ms);
        }
        if let Some(ms) = self.to_date {
            filter = filter.to_date(ms);
        }
        if let Some(id) = &self.workflow_run_id {
            filter = filter.workflow_run_id(id.clone());
        }
        if let Some(ms) = self.workflow_created_at {
            filter = filter.workflow_created_at(ms);
        }
        filter
    }
}

#[derive(clap::Subcommand, Debug)]
pub enum DlqCommand {
    /// List failed runs, filtered; one page of 100 unless --limit or --all.
    #[command(after_help = "Examples:
  courier dlq list --label billing --failure-function-state CALLBACK_FAIL
  courier dlq list --all --output ndjson | jq -r .dlqId
  courier dlq list --limit 500 --output json > page.json
  courier dlq list --cursor <CURSOR>          # resume where a listing stopped")]
    List(ListArgs),
    /// Show one failed run with every field the DLQ holds.
    #[command(after_help = "Example:\n  courier dlq get 1761240845000-0 --output json")]
    Get {
        /// The dlqId of the entry.
        id: String,
    },
    /// Delete entries by dlqId (each one; a missing one exits 4 after the others are done).
    #[command(after_help = "Example:\n  courier dlq delete 1761240845000-0 1761240845001-0")]
    Delete {
        /// The dlqIds to delete.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Delete every entry matching the filters, batch by batch until none is left.
    #[command(after_help = "Examples:
  courier dlq purge --label beta              # asks first on a terminal
  courier dlq purge --label beta --yes        # for scripts
  courier dlq purge --all-entries --yes       # empties the whole DLQ")]
    Purge(PurgeArgs),
}

#[derive(clap::Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// List at most N entries, following the cursor across pages [default: 100].
    #[arg(long, value_name = "N", conflicts_with = "all", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// List every matching entry, following the cursor to the end.
    #[arg(long)]
    pub all: bool,
    /// Start after this cursor (printed by an earlier listing that stopped).
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,
    /// Entries per request.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub page_size: u64,
}

#[derive(clap::Args, Debug)]
pub struct PurgeArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Purge with no filter at all: every entry of the DLQ.
    #[arg(long)]
    pub all_entries: bool,
    /// Do not ask for confirmation (needed when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Entries deleted per request.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub batch_size: u64,
    /// Continue an interrupted purge from this cursor.
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,
}

pub(super) async fn run(
    client: &messaging::Client,
    command: DlqCommand,
    output: &mut Output,
) -> Result<(), Failure> {
    match command {
        DlqCommand::List(args) => list(client, args, output).await,
        DlqCommand::Get { id } => {
            let run = client.get_workflow_dlq().dlq_id(id).send().await?;
            output.object(&run.into_inner())
        }
        DlqCommand::Delete { ids } => delete(client, ids, output).await,
        DlqCommand::Purge(args) => purge(client, args, output).await,
    }
}

/// A missing and an empty cursor both mean "no more" (`docs/decisions.md#d5-cursor-at-the-end`).
fn more(cursor: Option<String>) -> Option<String> {
    cursor.filter(|cursor| !cursor.is_empty())
}

/// Writes listed entries as they arrive: JSON is assembled by hand so that even `--all` streams
/// instead of holding the whole DLQ, while the document stays the API's page shape.
struct ListWriter {
    written: u64,
    rows: Vec<WorkflowDlqMessage>,
}

impl ListWriter {
    fn start(output: &mut Output) -> Result<ListWriter, Failure> {
        if output.format == OutputFormat::Json {
            output.raw("{\"messages\":[")?;
        }
        Ok(ListWriter {
            written: 0,
            rows: Vec::new(),
        })
    }

    fn page(
        &mut self,
        output: &mut Output,
        messages: Vec<WorkflowDlqMessage>,
    ) -> Result<(), Failure> {
        for message in messages {
            match output.format {
                OutputFormat::Json => {
                    if self.written > 0 {
                        output.raw(",")?;
                    }
                    output.json(&message)?;
                }
                OutputFormat::Ndjson => output.json_line(&message)?,
                OutputFormat::Table => self.rows.push(message),
            }
            self.written += 1;
        }
        output.flush()
    }

    /// Closes the document; `cursor` is where more entries remain, as the API gives it.
    fn finish(self, output: &mut Output, cursor: Option<&str>) -> Result<(), Failure> {
        match output.format {
            OutputFormat::Json => {
                output.raw("]")?;
                if let Some(cursor) = cursor {
                    output.raw(",\"cursor\":")?;
                    output.json(&cursor)?;
                }
                output.raw("}\n")?;
            }
            OutputFormat::Ndjson => {}
            OutputFormat::Table => {
                let mut table = output.table(&[
                    "DLQ ID", "CREATED", "RUN ID", "URL", "STATUS", "CALLBACK", "LABELS",
                ]);
                for message in &self.rows {
                    table.add_row(vec![
                        message.dlq_id.clone(),
                        utc(message.created_at),
                        message.workflow_run_id.clone(),
                        message.url.clone(),
                        message
                            .response_status
                            .map(|s| s.to_string())
                            .unwrap_or_default(),
                        message
                            .failure_function_state
                            .map(|s| s.to_string())
                            .unwrap_or_default(),
                        labels_of(message),
                    ]);
                }
                output.print_table(&table)?;
                let noun = if self.written == 1 {
                    "entry"
                } else {
                    "entries"
                };
                output.line(&format!("{} {noun}", self.written))?;
            }
        }
        output.flush()
    }
}

fn labels_of(message: &WorkflowDlqMessage) -> String {
    if message.labels.is_empty() {
        message.label.clone().unwrap_or_default()
    } else {
        message.labels.join(", ")
    }
}

/// One page of a walk (list, bulk delete); on failure the spinner is cleared first, so the
/// error is not drawn over.
async fn fetch<T>(
    progress: &indicatif::ProgressBar,
    send: impl Future<Output = Result<ResponseValue<T>, CourierError>>,
) -> Result<T, CourierError> {
    let answer = send.await;
    if answer.is_err() {
        progress.finish_and_clear();
    }
    answer.map(ResponseValue::into_inner)
}

async fn list(
    client: &messaging::Client,
    args: ListArgs,
    output: &mut Output,
) -> Result<(), Failure> {
    let filter = args.filter.to_filter();
    let wanted = if args.all {
        None
    } else {
        Some(args.limit.unwrap_or(100))
    };
    // Progress and Ctrl-C matter only when more than one page may be fetched.
    let paged = wanted.is_none_or(|wanted| wanted > args.page_size);
    let interrupt = paged.then(Interrupt::install);
    let progress = if paged {
        spinner()
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut writer = ListWriter::start(output)?;
    let mut cursor = args.cursor;
    loop {
        let count = match wanted {
            Some(wanted) => (wanted - writer.written).min(args.page_size),
            None => args.page_size,
        };
        let mut request = client.list_workflow_dlq().filter(&filter).count(count);
        if let Some(cursor) = cursor.take() {
            request = request.cursor(cursor);
        }
        let page = fetch(&progress, request.send()).await?;
        cursor = more(page.cursor);
        progress.suspend(|| writer.page(output, page.messages))?;
        progress.set_message(format!("{} listed", writer.written));
        let done = wanted.is_some_and(|wanted| writer.written >= wanted);
        let Some(next) = cursor.as_deref() else { break };
        if done {
            break;
        }
        if interrupt.as_ref().is_some_and(Interrupt::requested) {
            progress.finish_and_clear();
            writer.finish(output, Some(next))?;
            return Err(Interrupt::stopped_at(next));
        }
    }
    progress.finish_and_clear();
    writer.finish(output, cursor.as_deref())?;
    if let Some(cursor) = &cursor
        && output.format != OutputFormat::Json
    {
        eprintln!("more entries: continue with --cursor {cursor}");
    }
    Ok(())
}

async fn delete(
    client: &messaging::Client,
    ids: Vec<String>,
    output: &mut Output,
) -> Result<(), Failure> {
    one_by_one(ids, ("dlqId", "deleted"), output, |id| async move {
        client
            .delete_dlq_message()
            .dlq_id(id)
            .send()
            .await
            .map(drop)
    })
    .await
}

/// Counting stops here: past it the question says "more than".
const COUNT_AT_MOST: usize = 10_000;

/// How many entries `filter` matches now, in words ("12 entries"), by walking the list pages.
async fn count_matching(client: &messaging::Client, filter: &DlqFilter) -> Result<String, Failure> {
    let mut counted = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut request = client.list_workflow_dlq().filter(filter);
        if let Some(cursor) = cursor.take() {
            request = request.cursor(cursor);
        }
        let page = request.send().await?.into_inner();
        counted += page.messages.len();
        cursor = more(page.cursor);
        if cursor.is_none() {
            let noun = if counted == 1 { "entry" } else { "entries" };
            return Ok(format!("{counted} {noun}"));
        }
        if counted >= COUNT_AT_MOST {
            return Ok(format!("more than {COUNT_AT_MOST} entries"));
        }
    }
}

/// The filters in words, for the confirmation question.
fn describe(filter: &FilterArgs) -> String {
    fn texts<T: ToString>(values: impl IntoIterator<Item = T>) -> Vec<String> {
        values.into_iter().map(|value| value.to_string()).collect()
    }
    let fields = [
        ("fromDate", texts(filter.from_date)),
        ("toDate", texts(filter.to_date)),
        ("workflowUrl", texts(&filter.workflow_url)),
        ("workflowRunId", texts(&filter.workflow_run_id)),
        ("workflowCreatedAt", texts(filter.workflow_created_at)),
        ("label", texts(&filter.label)),
        (
            "failureFunctionState",
            texts(&filter.failure_function_state),
        ),
        ("callerIp", texts(&filter.caller_ip)),
        ("flowControlKey", texts(&filter.flow_control_key)),
    ];
    let parts: Vec<String> = fields
        .into_iter()
        .filter(|(_, values)| !values.is_empty())
        .map(|(name, values)| format!("{name}={}", values.join("|")))
        .collect();
    parts.join(" ")
}

async fn purge(
    client: &messaging::Client,
    args: PurgeArgs,
    output: &mut Output,
) -> Result<(), Failure> {
    if args.filter.is_empty() && !args.all_entries {
        return Err(Failure::usage(
            "refusing to purge without a filter: give filters (see --help) or --all-entries",
        ));
    }
    let filter = args.filter.to_filter();
    // Only a person is asked, so only then is the DLQ walked to say how many entries would go.
    let asking = !args.yes && std::io::stdin().is_terminal();
    let how_many = if asking {
        count_matching(client, &filter).await?
    } else {
        String::new()
    };
    let question = if args.filter.is_empty() {
        format!("Delete EVERY entry of the DLQ ({how_many})?")
    } else {
        format!(
            "Delete every DLQ entry matching {} ({how_many})?",
            describe(&args.filter)
        )
    };
    confirm(&question, args.yes)?;
    let interrupt = Interrupt::install();
    let progress = spinner();
    let mut deleted: u64 = 0;
    let mut cursor = args.cursor;
    loop {
        let mut request = client
            .delete_workflow_dlq_bulk()
            .filter(&filter)
            .count(args.batch_size);
        if let Some(cursor) = cursor.take() {
            request = request.cursor(cursor);
        }
        let batch = fetch(&progress, request.send())
            .await
            .inspect_err(|_| eprintln!("{deleted} deleted before the failure"))?;
        deleted += u64::try_from(batch.deleted).unwrap_or(0);
        progress.set_message(format!("{deleted} deleted"));
        if output.format == OutputFormat::Ndjson {
            progress.suspend(|| output.json_line(&batch).and_then(|()| output.flush()))?;
        }
        cursor = more(batch.cursor);
        let Some(next) = cursor.as_deref() else { break };
        if interrupt.requested() {
            progress.finish_and_clear();
            eprintln!("{deleted} deleted");
            return Err(Interrupt::stopped_at(next));
        }
    }
    progress.finish_and_clear();
    match output.format {
        OutputFormat::Json => output.json_line(&serde_json::json!({ "deleted": deleted }))?,
        OutputFormat::Table => output.line(&format!("deleted {deleted}"))?,
        OutputFormat::Ndjson => {}
    }
    output.flush()
}
