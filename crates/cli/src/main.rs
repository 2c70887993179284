//! `courier`: the reference service of the courier interface, run with `courier serve`, and a
//! client for it (or the hosted service) from a terminal: `courier dlq …`, `courier stats …`.

use courier_cli::client;

mod secrets;

use secrets::{Secrets, flag_warnings, parse_store, secrets};

use clap::{CommandFactory, FromArgMatches as _, Parser, Subcommand};
use courier_service::account::InitialCredentials;
use courier_service::app::{Config, banner, bind, open_service, serve};
use courier_service::demo;
use courier_service::store::Durability;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "courier",
    version,
    about = "A faithful local version of the workflow DLQ, messaging and management interface, and a client for it",
    after_help = client::AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process; boxing the client commands would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the messaging and management interfaces.
    Serve(ServeArgs),
    #[command(flatten)]
    Client(client::ClientCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Example:\n  courier completions zsh > ~/.zfunc/_courier")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Address of the messaging interface (and of management, unless --management-listen is given).
    #[arg(long, env = "COURIER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Serve the management interface on its own address.
    #[arg(long, env = "COURIER_MANAGEMENT_LISTEN")]
    management_listen: Option<SocketAddr>,
    /// Where the SQLite database lives (the default store).
    #[arg(long, env = "COURIER_DATA_DIR", default_value = "./courier-data")]
    data_dir: PathBuf,
    /// Keep the data in PostgreSQL instead: a `postgres://user:password@host/db` URL (or libpq's
    /// `key=value` form). Several `courier serve` processes on one database serve one service.
    /// As a flag its password shows in the process list: prefer --store-file or the
    /// environment. The connection has no TLS: sslmode=require, verify-ca and verify-full are
    /// refused, and prefer means plain TCP (with a warning).
    #[arg(
        long = "store",
        env = "COURIER_STORE",
        hide_env_values = true,
        value_name = "postgres://…",
        conflicts_with_all = ["data_dir", "allow_shared_data_dir"]
    )]
    // Parsed by `parse_store`, not by clap: clap's message for a bad value repeats the value,
    // password and all.
    store: Option<String>,
    /// File whose first line is the PostgreSQL connection string (instead of --store).
    #[arg(
        long,
        env = "COURIER_STORE_FILE",
        value_name = "FILE",
        conflicts_with_all = ["store", "data_dir", "allow_shared_data_dir"]
    )]
    store_file: Option<PathBuf>,
    /// Messaging service token of the account on first start (random otherwise). As a flag it
    /// shows in the process list: prefer --service-token-file or the environment.
    #[arg(long, env = "COURIER_SERVICE_TOKEN", hide_env_values = true)]
    service_token: Option<String>,
    /// File whose first line is the service token (instead of --service-token).
    #[arg(
        long,
        env = "COURIER_SERVICE_TOKEN_FILE",
        conflicts_with = "service_token"
    )]
    service_token_file: Option<PathBuf>,
    /// customer_id of the account on first start (the Basic auth user name).
    #[arg(long, env = "COURIER_CUSTOMER_ID")]
    customer_id: Option<String>,
    /// Management key (the Basic auth password) on first start (random otherwise). As a flag it
    /// shows in the process list: prefer --management-key-file or the environment.
    #[arg(long, env = "COURIER_MANAGEMENT_KEY", hide_env_values = true)]
    management_key: Option<String>,
    /// File whose first line is the management key (instead of --management-key).
    #[arg(
        long,
        env = "COURIER_MANAGEMENT_KEY_FILE",
        conflicts_with = "management_key"
    )]
    management_key_file: Option<PathBuf>,
    /// Enable the admin API under /admin/v1 with this bearer token. As a flag it shows in the
    /// process list: prefer --admin-token-file or the environment.
    #[arg(long, env = "COURIER_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// File whose first line is the admin token (instead of --admin-token).
    #[arg(long, env = "COURIER_ADMIN_TOKEN_FILE", conflicts_with = "admin_token")]
    admin_token_file: Option<PathBuf>,
    /// Start even when group or other users can reach the data directory (refused otherwise:
    /// it holds every credential and payload).
    #[arg(long, env = "COURIER_ALLOW_SHARED_DATA_DIR")]
    allow_shared_data_dir: bool,
    /// Serve HTTPS: PEM certificate chain, leaf first (needs --tls-key).
    #[arg(long, env = "COURIER_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "COURIER_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Seed demo data (failed runs, URL groups, a search index) into an empty DLQ.
    #[arg(long, env = "COURIER_DEMO")]
    demo: bool,
    /// Do not serve the browser console at /console on the management listener.
    #[arg(long, env = "COURIER_NO_CONSOLE")]
    no_console: bool,
    /// Close a connection when a write of its answer has made no progress for this long, in
    /// seconds: a client that never reads would otherwise hold it for ever.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = courier_service::connections::WRITE_STALL_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    write_stall_timeout: u64,
}

async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: draining connections");
}

/// Threads for blocking work, the store's calls above all: the store serves
/// `SqliteStore::CONNECTIONS` at a time and further threads would only wait for a connection,
/// so a few beyond those (files, name lookups). tokio's default of 512 lets a busy service keep
/// many idle threads, each holding freed memory in its own malloc cache, so the heap grows for
/// minutes (BENCHMARKS.md, "Soak").
const BLOCKING_THREADS: usize = courier_service::store::SqliteStore::CONNECTIONS + 3;

fn main() -> ExitCode {
    courier_service::memory::bound_malloc_arenas();
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .on_thread_start(learn_cpu_features)
        .build()
    {
        Ok(runtime) => runtime.block_on(run()),
        Err(error) => {
            eprintln!("courier: cannot start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The first request's parse (httparse) asks which SIMD instructions the processor has, which
/// std finds out once per process with CPUID, each a trap to the hypervisor on a virtual
/// machine: 40 µs of a fresh `courier serve`'s first answer. Asked by the runtime's threads as
/// they start, while the main thread opens the store, the answer is known before a request.
fn learn_cpu_features() {
    #[cfg(target_arch = "x86_64")]
    let _ = std::arch::is_x86_feature_detected!("sse4.2");
}

/// The command line's parser: only `serve`'s when the line starts with it. Building every
/// client subcommand as well was a tenth of the instructions `courier serve` spends before its
/// first answer. `tests::serve_parses_the_same_with_either_parser` holds the two the same.
fn parser_for(args: &[String]) -> clap::Command {
    match args.get(1).map(String::as_str) {
        Some("serve") => serve_parser(),
        _ => Cli::command(),
    }
}

/// [`Cli`]'s parser with `serve` as its only subcommand.
fn serve_parser() -> clap::Command {
    let serve = clap::Command::new("serve").about("Serve the messaging and management interfaces");
    clap::Command::new("courier")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand(<ServeArgs as clap::Args>::augment_args(serve))
}

async fn run() -> ExitCode {
    let args = client::with_leading_flags_moved(std::env::args().collect());
    let matches = parser_for(&args).get_matches_from(args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    match cli.command {
        Command::Serve(args) => {
            let warnings = flag_warnings(matches.subcommand_matches("serve"));
            match secrets(&args) {
                Ok(secrets) => serve_command(args, secrets, &warnings).await,
                Err(message) => {
                    eprintln!("error: {message}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Client(command) => client::run(command).await,
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "courier",
                &mut std::io::stdout(),
            );
            ExitCode::SUCCESS
        }
    }
}

async fn serve_command(args: ServeArgs, secrets: Secrets, warnings: &[String]) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    for warning in warnings {
        eprintln!("{warning}");
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => match courier_service::tls::load(cert, key) {
            Ok(tls) => Some(tls),
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::FAILURE;
            }
        },
        _ => None,
    };
    let postgres = match &secrets.store {
        None => None,
        Some((store, option)) => match parse_store(store) {
            Ok(postgres) => {
                if let Some(warning) = postgres.warning() {
                    eprintln!("{warning}");
                }
                Some(postgres)
            }
            Err(message) => {
                eprintln!("error: {option}: {message}");
                return ExitCode::FAILURE;
            }
        },
    };
    let config = Config {
        listen: args.listen,
        management_listen: args.management_listen,
        data_dir: args.data_dir.clone(),
        postgres,
        credentials: InitialCredentials {
            customer_id: args
                .customer_id
                .clone()
                .or_else(|| args.demo.then(|| demo::DEMO_CUSTOMER_ID.to_owned())),
            service_token: secrets.service_token,
            management_key: secrets.management_key,
        },
        admin_token: secrets.admin_token,
        demo: args.demo,
        header_read_timeout: courier_service::app::HEADER_READ_TIMEOUT,
        body_read_timeout: courier_service::body::BODY_READ_TIMEOUT,
        write_stall_timeout: std::time::Duration::from_secs(args.write_stall_timeout),
        tls,
        console: !args.no_console,
        // The served store never trades crash safety for speed.
        durability: Durability::Full,
    };
    let result = async {
        // Held until serving ends; the kernel releases it however the process exits.
        let shared = if args.allow_shared_data_dir {
            courier_service::datadir::SharedDataDir::Allow
        } else {
            courier_service::datadir::SharedDataDir::Refuse
        };
        // One process per data directory; a database has room for many (that is what it is for).
        let _data_dir_lock = match config.postgres {
            None => Some(courier_service::datadir::open_data_dir(
                &config.data_dir,
                shared,
            )?),
            Some(_) => None,
        };
        // Bound before the store opens, so that a client connecting during the start waits in
        // the backlog for its answer rather than being refused and retrying.
        let listeners = bind(&config).await?;
        let service = open_service(&config).await?;
        if config.demo {
            let seeded = demo::seed(&service)
                .await
                .map_err(|e| format!("seeding demo data failed: {e}"))?;
            tracing::info!(seeded, "demo data ready");
        }
        // A closed stdout (a supervisor that stopped reading) must not take the server down,
        // which println! would do by panicking.
        let _ = writeln!(
            std::io::stdout(),
            "{}",
            banner(&service, &config, &listeners)
        );
        serve(service, &config, listeners, shutdown_signal()).await;
        Ok::<(), Box<dyn std::error::Error>>(())
    }
    .await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `serve`'s help and every parse of a `serve` line are the full parser's.
    #[test]
    fn serve_parses_the_same_with_either_parser() {
        let mut full = Cli::command();
        let mut only = serve_parser();
        full.build();
        only.build();
        let help = |command: &mut clap::Command| {
            command
                .find_subcommand_mut("serve")
                .expect("serve")
                .render_long_help()
                .to_string()
        };
        assert_eq!(help(&mut full), help(&mut only));
        assert_eq!(full.get_name(), only.get_name());
        assert_eq!(full.get_version(), only.get_version());
        for line in [
            "courier serve",
            "courier serve --listen 127.0.0.1:9 --data-dir d --no-console --demo",
            "courier serve --store-file f --management-listen 127.0.0.1:10",
        ] {
            let args: Vec<String> = line.split(' ').map(str::to_owned).collect();
            let parsed = |command: clap::Command| {
                let matches = command.try_get_matches_from(&args).expect(line);
                assert!(matches!(
                    Cli::from_arg_matches(&matches).expect(line).command,
                    Command::Serve(_)
                ));
                matches.subcommand_matches("serve").cloned().expect(line)
            };
            assert_eq!(parsed(Cli::command()), parsed(parser_for(&args)), "{line}");
        }
        for wrong in ["courier serve --nope", "courier serve --listen nowhere"] {
            let args: Vec<String> = wrong.split(' ').map(str::to_owned).collect();
            let error = |command: clap::Command| {
                command
                    .try_get_matches_from(&args)
                    .map(|_| ())
                    .expect_err(wrong)
                    .render()
                    .to_string()
            };
            assert_eq!(error(Cli::command()), error(parser_for(&args)), "{wrong}");
        }
    }
}
