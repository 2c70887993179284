//! `courier-fill`: writes a DLQ of N realistic failed runs straight into a courier store (a
//! data directory, or a PostgreSQL database with `--store`; no HTTP), for the benchmarks in
//! `bench/run.sh` and `bench/postgres.sh`.
//!
//! Creates the account with known credentials (as `courier serve` would on a first start),
//! raises its `max_dlq_size` to hold every entry and its `max_requests_per_second` and
//! `max_requests_per_day_hard` so neither rate limit interferes with a load generator, adds the URL group `orders`, and inserts the
//! entries through the store's `insert_dlq` in large batches (one transaction each). With
//! `--ids-file`, writes a sample of the assigned `dlqId`s (one a line) for get-one loads.

use clap::Parser;
use courier_bench::{Spread, entries};
use courier_models::{FailedWorkflowRun, UrlGroupEndpoint};
use courier_service::account::{InitialCredentials, load_or_create};
use courier_service::store::{PostgresStore, SqliteStore, Store};
use courier_service::time::now_ms;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "courier-fill",
    about = "Fill a courier data directory with N failed runs, straight into the store"
)]
struct Args {
    /// The data directory `courier serve --data-dir` will use (created if missing).
    #[arg(long, required_unless_present = "store", conflicts_with = "store")]
    data_dir: Option<PathBuf>,
    /// Or a PostgreSQL database, as `courier serve --store` takes it (migrated if new).
    #[arg(long)]
    store: Option<String>,
    /// How many failed runs to add.
    #[arg(long)]
    entries: u64,
    /// Entries per transaction.
    #[arg(long, default_value_t = 20_000)]
    batch: u64,
    /// createdAt values spread over this many days before now (retention is 30 days).
    #[arg(long, default_value_t = 3.0)]
    days: f64,
    /// Messaging service token of the account, when this fill creates it.
    #[arg(long, default_value = "bench-service-token")]
    service_token: String,
    /// customer_id of the account, when this fill creates it.
    #[arg(long, default_value = "bench@courier.dev")]
    customer_id: String,
    /// Management key of the account, when this fill creates it.
    #[arg(long, default_value = "bench-management-key")]
    management_key: String,
    /// The account's max_requests_per_second after the fill.
    #[arg(long, default_value_t = 1_000_000_000)]
    max_requests_per_second: i64,
    /// The account's max_requests_per_day_hard after the fill (a full benchmark run sends
    /// tens of millions of requests).
    #[arg(long, default_value_t = 1_000_000_000_000)]
    max_requests_per_day_hard: i64,
    /// Write up to `--ids-sample` assigned dlqIds, evenly spaced, one a line.
    #[arg(long)]
    ids_file: Option<PathBuf>,
    /// Lean entries of about 450 bytes (half the usual): a request without headers or body, no
    /// answer to it, no failure callback.
    #[arg(long)]
    lean: bool,
    #[arg(long, default_value_t = 1000)]
    ids_sample: u64,
}

/// The entries `range` of the fill, lean ones as `--lean` says.
fn batch_of(range: std::ops::Range<u64>, spread: Spread, lean: bool) -> Vec<FailedWorkflowRun> {
    let mut batch = entries(range, spread);
    if lean {
        for entry in &mut batch {
            entry.header = Default::default();
            entry.body = None;
            entry.body_base64 = None;
            entry.failure_callback = None;
            entry.response_status = None;
            entry.response_header = None;
            entry.response_body = None;
            entry.response_body_base64 = None;
            entry.failure_callback_header = None;
            entry.failure_callback_info = None;
        }
    }
    batch
}

fn run(args: &Args) -> Result<(), String> {
    let store: Box<dyn Store> = match (&args.data_dir, &args.store) {
        (_, Some(url)) => Box::new(PostgresStore::connect(url).map_err(|e| e.to_string())?),
        (Some(dir), None) => {
            courier_service::datadir::create_private_dir(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            Box::new(SqliteStore::open(&dir.join("courier.sqlite3")).map_err(|e| e.to_string())?)
        }
        (None, None) => return Err("give --data-dir or --store".into()),
    };
    let store = store.as_ref();
    let now = now_ms();
    let credentials = InitialCredentials {
        customer_id: Some(args.customer_id.clone()),
        service_token: Some(args.service_token.clone()),
        management_key: Some(args.management_key.clone()),
    };
    let record = load_or_create(store, &credentials, now).map_err(|e| e.to_string())?;
    let existing = store.dlq_count(0).map_err(|e| e.to_string())?;
    let mut account = record.account;
    let needed = i64::try_from(existing + args.entries).map_err(|e| e.to_string())?;
    account.max_dlq_size = account.max_dlq_size.max(needed);
    account.max_requests_per_second = args.max_requests_per_second;
    account.max_requests_per_day_hard = args.max_requests_per_day_hard;
    store.update_account(&account).map_err(|e| e.to_string())?;
    let endpoint = |name: &str, url: &str| UrlGroupEndpoint {
        name: name.into(),
        url: url.into(),
    };
    store
        .put_url_group(
            "orders",
            &[
                endpoint("billing", "https://billing.example.com/hooks/orders"),
                endpoint("warehouse", "https://warehouse.example.com/orders"),
                endpoint("", "https://audit.example.com/inbox"),
            ],
            now,
        )
        .map_err(|e| e.to_string())?;

    let spread = Spread {
        now_ms: now,
        span_ms: (args.days * 86_400_000.0) as i64,
        total: args.entries,
    };
    let every = (args.entries / args.ids_sample.max(1)).max(1);
    let mut sample = Vec::new();
    let started = Instant::now();
    let batch = args.batch.max(1);
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut start = 0;
    while start < args.entries {
        let end = (start + batch).min(args.entries);
        let ids = store
            .insert_dlq(
                &batch_of(start..end, spread, args.lean),
                account.max_dlq_size as u64,
            )
            .map_err(|e| e.to_string())?;
        sample.extend(
            ids.dlq_ids
                .into_iter()
                .zip(start..end)
                .filter(|(_, i)| i % every == 0)
                .map(|(id, _)| id),
        );
        start = end;
        if progress {
            eprint!("\r{end} / {} entries", args.entries);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    if progress {
        eprintln!();
    }
    if let Some(file) = &args.ids_file {
        let mut text = sample.join("\n");
        text.push('\n');
        std::fs::write(file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    let total = store.dlq_count(0).map_err(|e| e.to_string())?;
    let _ = writeln!(
        std::io::stdout(),
        "added {} entries in {elapsed:.1} s ({:.0}/s); the DLQ holds {total}; token `{}`, customer `{}`",
        args.entries,
        args.entries as f64 / elapsed.max(1e-9),
        account.token,
        account.customer_id,
    );
    Ok(())
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
