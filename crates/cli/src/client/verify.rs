//! `courier verify`: courier-verify's scenarios against any base URL (a local `courier serve`,
//! a staging service, the hosted one), with the credentials of the other client commands.

use super::connection::CommonArgs;
use super::exit::{Exit, Failure};
use super::output::OutputFormat;
use courier_verify::{Outcome, Report, Verifier};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The options of `courier verify` beside the connection flags.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Also run the writing scenarios, and seed the data every reading scenario checks. They
    /// create their own entries through courier's admin API (--admin-token) and delete or
    /// cancel only those; without --write nothing is written.
    #[arg(long)]
    pub write: bool,
    /// Admin token of a courier service (`courier serve --admin-token`): how --write seeds.
    #[arg(
        long,
        env = "COURIER_ADMIN_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub admin_token: Option<String>,
    /// Exit 0 even when some scenarios were inconclusive (they could not check their rule: no
    /// data, a seed that offers no index, ...). They are reported either way.
    #[arg(long)]
    pub allow_inconclusive: bool,
    /// Run only these scenarios (repeat the flag; a name, or a prefix ending in `*` such as
    /// `filter-*`). `rotation`, `retention`, `dlq-size` and `rate-limit`, which change
    /// credentials or the account's limits or spend its budget, run only when named here.
    #[arg(long = "scenario", value_name = "NAME")]
    pub scenarios: Vec<String>,
    /// Leave these scenarios out (repeat the flag; a name or a prefix ending in `*`).
    #[arg(long = "exclude", value_name = "NAME")]
    pub exclude: Vec<String>,
    /// Print every scenario with the rule it checks, and exit.
    #[arg(long)]
    pub list_scenarios: bool,
    /// The report: a table, JSON, or JUnit XML (which CI systems display). `--output json`
    /// (`-o json`) chooses JSON too.
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
    /// Send at most this many requests a second (default: as fast as answers come).
    #[arg(long, value_name = "N")]
    pub max_rate: Option<f64>,
    /// How long one request keeps waiting out 429 answers, as their headers ask, in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub rate_limit_patience: u64,
    /// The largest answer read, in bytes; a larger one fails its scenario naming this cap.
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    pub max_answer_bytes: usize,
}

/// How the report is printed on stdout.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Table,
    Json,
    Junit,
}

/// Runs the chosen scenarios, prints the report, and fails when the run did not pass: exit 1
/// when a scenario failed or was inconclusive (unless allowed), 6 when the service could not
/// be reached at all.
pub(super) async fn run(common: &CommonArgs, args: VerifyArgs) -> Result<(), Failure> {
    if args.list_scenarios {
        for info in courier_verify::catalogue() {
            let flags = match (info.writes, info.opt_in) {
                (_, true) => " (only when named)",
                (true, false) => " (--write)",
                (false, false) => "",
            };
            println!("{}{flags}\t{}", info.name, info.rule);
        }
        return Ok(());
    }
    let target = common.verify_target()?;
    if args.write && args.admin_token.is_none() {
        return Err(Failure::usage(
            "--write creates its own entries through courier's admin API: pass --admin-token \
             (or set COURIER_ADMIN_TOKEN); nothing is written without a way to seed",
        ));
    }
    let format = match (args.format, common.output) {
        (Some(format), _) => format,
        (None, Some(OutputFormat::Json | OutputFormat::Ndjson)) => ReportFormat::Json,
        (None, _) => ReportFormat::Table,
    };
    let mut builder = Verifier::builder(&target.base_url)
        .service_token(target.service_token)
        .timeout(Duration::from_secs(common.timeout.unwrap_or(30)))
        .rate_limit_patience(Duration::from_secs(args.rate_limit_patience))
        .max_answer_bytes(args.max_answer_bytes)
        .write(args.write)
        .allow_inconclusive(args.allow_inconclusive)
        .scenarios(args.scenarios)
        .exclude(args.exclude);
    if let Some(rate) = args.max_rate {
        builder = builder.max_requests_per_second(rate);
    }
    if let Some(url) = target.management_url {
        builder = builder.management_url(url);
    }
    if let Some((customer_id, key)) = target.management {
        builder = builder.management_credentials(customer_id, key);
    }
    if let Some(token) = args.admin_token {
        builder = builder.admin_token(token);
    }
    if let Some(pem) = target.ca_pem {
        builder = builder.add_root_certificate_pem(pem);
    }
    // A line that rewrites itself on a terminal; nothing on a pipe or in CI's log.
    let progress = std::io::stderr().is_terminal();
    if progress {
        let done = Arc::new(AtomicUsize::new(0));
        builder = builder.on_scenario(move |scenario| {
            let count = done.fetch_add(1, Ordering::Relaxed) + 1;
            eprint!(
                "\r\x1b[2K[{count}] {} {}",
                scenario.name,
                scenario.outcome.label()
            );
        });
    }
    let verifier = builder
        .build()
        .map_err(|error| Failure::usage(error.to_string()))?;
    let names = verifier.scenario_names();
    for opt_in in courier_verify::catalogue()
        .iter()
        .filter(|i| i.opt_in && names.contains(&i.name))
    {
        eprintln!("warning: scenario `{}`: {}", opt_in.name, opt_in.rule);
    }
    let report = verifier.run().await;
    if progress {
        eprint!("\r\x1b[2K");
    }
    if let Some(cause) = unreachable(&report) {
        return Err(Failure::new(
            Exit::Unavailable,
            format!("no request to {} got an answer: {cause}", report.base_url),
        ));
    }
    print_report(&report, format);
    if report.passed() {
        return Ok(());
    }
    let failed = report.names(Outcome::Failed);
    let inconclusive = report.names(Outcome::Inconclusive);
    let mut message = format!("{} against {}", report.summary(), report.base_url);
    if !failed.is_empty() {
        message.push_str(&format!("; failed: {}", failed.join(", ")));
    }
    if !inconclusive.is_empty() {
        message.push_str(&format!(
            "; inconclusive (--allow-inconclusive lets them pass): {}",
            inconclusive.join(", ")
        ));
    }
    Err(Failure::new(Exit::Failure, message))
}

/// The cause, when no request of the run got any answer (the service is not there).
fn unreachable(report: &Report) -> Option<String> {
    let failures: Vec<_> = report.scenarios.iter().flat_map(|s| &s.failures).collect();
    let answered = report
        .scenarios
        .iter()
        .any(|s| s.outcome == Outcome::Passed || s.failures.iter().any(|f| f.status.is_some()));
    if answered || failures.is_empty() {
        return None;
    }
    failures.iter().find_map(|f| f.error.clone())
}

fn print_report(report: &Report, format: ReportFormat) {
    let text = match format {
        ReportFormat::Table => report.to_table(),
        ReportFormat::Json => report.to_json(),
        ReportFormat::Junit => report.to_junit(),
    };
    println!("{}", text.trim_end());
}
