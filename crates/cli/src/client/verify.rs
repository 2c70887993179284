//! `courier verify`: courier-verify's scenarios against any base URL (a local `courier serve`,
//! a staging service, the hosted one), with the credentials of the other client commands.

use super::connection::CommonArgs;
use super::exit::{Exit, Failure};
use courier_verify::{Outcome, Report, Verifier};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The options of `courier verify` beside the connection flags.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Also run the writing scenarios. They create their own entries through courier's admin
    /// API (--admin-token) and delete or cancel only those; without --write nothing is written.
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
    /// The report: a table, JSON, or JUnit XML (which CI systems display).
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// How long each request may take, in seconds.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub timeout: u64,
}

/// How the report is printed on stdout.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Table,
    Json,
    Junit,
}

/// Runs every scenario, prints the report, and fails (exit 1) when any scenario failed.
pub async fn run(common: &CommonArgs, args: VerifyArgs) -> Result<(), Failure> {
    let target = common.verify_target()?;
    if args.write && args.admin_token.is_none() {
        return Err(Failure::usage(
            "--write creates its own entries through courier's admin API: pass --admin-token \
             (or set COURIER_ADMIN_TOKEN); nothing is written without a way to seed",
        ));
    }
    let mut builder = Verifier::builder(&target.base_url)
        .service_token(target.service_token)
        .timeout(Duration::from_secs(args.timeout))
        .write(args.write);
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
            let outcome = match scenario.outcome {
                Outcome::Passed => "passed",
                Outcome::Failed => "FAILED",
                Outcome::Skipped => "skipped",
            };
            eprint!("\r\x1b[2K[{count}] {} {outcome}", scenario.name);
        });
    }
    let verifier = builder
        .build()
        .map_err(|error| Failure::usage(error.to_string()))?;
    let report = verifier.run().await;
    if progress {
        eprint!("\r\x1b[2K");
    }
    print_report(&report, args.format);
    if report.passed() {
        return Ok(());
    }
    let failed = report.names(Outcome::Failed);
    Err(Failure::new(
        Exit::Failure,
        format!(
            "{} of {} scenarios failed against {}: {}",
            failed.len(),
            report.scenarios.len(),
            report.base_url,
            failed.join(", ")
        ),
    ))
}

fn print_report(report: &Report, format: ReportFormat) {
    let text = match format {
        ReportFormat::Table => report.to_table(),
        ReportFormat::Json => report.to_json(),
        ReportFormat::Junit => report.to_junit(),
    };
    println!("{}", text.trim_end());
}
