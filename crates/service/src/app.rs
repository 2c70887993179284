//! Assembles and runs the service: store, account, routers, listeners, background tasks, shutdown.

use crate::account::{AccountRecord, InitialCredentials, load_or_create};
use crate::admission::{AdmitState, Interface, admit};
use crate::api::Service;
use crate::body::{BodyBudget, BodyRead};
use crate::connections::{ConnectionLimits, Gate, serve_listener};
use crate::signin::SignInGuard;
use crate::store::{Durability, PostgresStore, PostgresUrl, SqliteStore, Store, StoreError};
use crate::time::now_ms;
use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Everything `courier serve` is configured with.
#[derive(Clone, Debug)]
pub struct Config {
    /// Messaging interface (and management, unless `management_listen` is set).
    pub listen: SocketAddr,
    /// The management interface on its own address.
    pub management_listen: Option<SocketAddr>,
    /// Where the SQLite store lives (unused with [`Config::postgres`]).
    pub data_dir: PathBuf,
    /// Keep the data in this PostgreSQL database instead of SQLite (`--store postgres://…`), so
    /// several processes can serve one service.
    pub postgres: Option<PostgresUrl>,
    pub credentials: InitialCredentials,
    /// Enables `/admin/v1` with this bearer token.
    pub admin_token: Option<String>,
    /// Seed demo data on start (only into an empty DLQ).
    pub demo: bool,
    /// How long a client may take to send a request's headers ([`HEADER_READ_TIMEOUT`]).
    pub header_read_timeout: Duration,
    /// How long a client may take to send a request's body after its headers
    /// ([`crate::body::BODY_READ_TIMEOUT`]).
    pub body_read_timeout: Duration,
    /// How long a write of an answer may make no progress before its connection is closed (a
    /// client that never reads; [`crate::connections::WRITE_STALL_TIMEOUT`] by default).
    pub write_stall_timeout: Duration,
    /// Serve HTTPS with this configuration (`--tls-cert`/`--tls-key`) instead of plain HTTP.
    pub tls: Option<crate::tls::ServerTls>,
    /// Serve the console at `/console` on the management listener (off with `--no-console`).
    pub console: bool,
    /// Whether commits are flushed to disk: always [`Durability::Full`] for `courier serve`;
    /// `TestService` trades that for start-up time (see [`Durability::TestOnly`]).
    pub durability: Durability,
}

impl Config {
    /// `https` when serving TLS, `http` otherwise.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }
}

/// Why the service could not start; each names what it could not do and where.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot create data directory {}: {source}", path.display())]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open the store at {}: {source}", path.display())]
    Store { path: PathBuf, source: StoreError },
    /// `location` is the connection string without its password.
    #[error("cannot open the store in {location}: {source}")]
    Database {
        location: String,
        source: StoreError,
    },
    #[error("cannot load the account: {0}")]
    Account(#[source] StoreError),
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
}

/// Opens the store (SQLite in the data directory, or the PostgreSQL database of
/// [`Config::postgres`]) and loads (or creates) the account.
pub async fn open_service(config: &Config) -> Result<Arc<Service>, StartError> {
    match &config.postgres {
        None => open_service_now(config),
        // Every call to the database blocks on the network: off the async threads.
        Some(_) => {
            let config = config.clone();
            tokio::task::spawn_blocking(move || open_service_now(&config))
                .await
                .unwrap_or_else(|panicked| std::panic::resume_unwind(panicked.into_panic()))
        }
    }
}

fn open_service_now(config: &Config) -> Result<Arc<Service>, StartError> {
    let (store, created): (Arc<dyn Store>, Option<AccountRecord>) = match &config.postgres {
        Some(url) => {
            let store = PostgresStore::connect_to(url).map_err(|source| StartError::Database {
                location: url.to_string(),
                source,
            })?;
            (Arc::new(store), None)
        }
        None => {
            crate::datadir::create_private_dir(&config.data_dir).map_err(|source| {
                StartError::DataDir {
                    path: config.data_dir.clone(),
                    source,
                }
            })?;
            let path = config.data_dir.join("courier.sqlite3");
            let record = crate::account::new_account(&config.credentials, now_ms());
            let (store, created) = SqliteStore::open_with_account(
                &path,
                config.durability,
                &record.account,
                &record.management_key,
            )
            .map_err(|source| StartError::Store {
                path: path.clone(),
                source,
            })?;
            (Arc::new(store), created.then_some(record))
        }
    };
    if let Some(account) = created {
        return Ok(Arc::new(Service::new_account(store, account)));
    }
    let new_account = store.account().map_err(StartError::Account)?.is_none();
    let account = load_or_create(store.as_ref(), &config.credentials, now_ms())
        .map_err(StartError::Account)?;
    Ok(Arc::new(match new_account {
        true => Service::new_account(store, account),
        false => Service::new(store, account),
    }))
}

/// What `/health` says while the store's database cannot be reached. Anyone may ask, so it
/// names no user, host or port: the log says where, and so do the 503s of authenticated requests.
pub const DATABASE_UNREACHABLE: &str =
    "the store's database (PostgreSQL) cannot be reached; the service's log says why";

/// `ok`; 503 `unavailable` while the store's database cannot be reached ([`DATABASE_UNREACHABLE`],
/// the cause in the log at debug); 503 `degraded` with the reason while the store refuses writes
/// (a full disk).
async fn health(service: Arc<Service>) -> Response {
    // On this thread for an embedded store, whose answers are at hand. Only a store that is
    // refusing writes is asked why (a look at the disk and the writer's pages), and in the
    // blocking pool: an anonymous client asking often must not hold up the async threads.
    let state = service
        .read_now(|store| Ok((store.unavailable(), store.may_refuse_writes())))
        .await;
    let (unavailable, refusal) = match state {
        Ok((unavailable, false)) => (unavailable, None),
        Ok((unavailable, true)) => (unavailable, service.storage_refusal().await),
        Err(error) => (None, Some(error.to_string())),
    };
    if let Some(cause) = unavailable {
        tracing::debug!(%cause, "health: the store's database cannot be reached");
        return courier_server::runtime::json(
            StatusCode::SERVICE_UNAVAILABLE,
            &serde_json::json!({ "status": "unavailable", "reason": DATABASE_UNREACHABLE }),
        );
    }
    match refusal {
        None => {
            courier_server::runtime::json(StatusCode::OK, &serde_json::json!({ "status": "ok" }))
        }
        Some(reason) => courier_server::runtime::json(
            StatusCode::SERVICE_UNAVAILABLE,
            &serde_json::json!({ "status": "degraded", "reason": reason }),
        ),
    }
}

/// The routers: `(main, management)`; management is `None` when both interfaces share `main`.
///
/// No route reads a request body before its credentials: the interfaces' operations, `/health`
/// and the spec take none and read none; the admin API reads its body after the admin token;
/// the console's signed-in forms are read by the console after its session check, held to the
/// body deadline and budget as they are read; only the login form, itself the credential, is
/// read first, at most the console's 16 KiB. Every body read shares one budget.
pub fn routers(service: Arc<Service>, config: &Config) -> (Router, Option<Router>) {
    let usage = crate::metering::MeterLayer::new(service.clone());
    let budget = BodyBudget::new(crate::body::BODY_BUDGET_BYTES);
    let guard = Arc::new(SignInGuard::default());
    let admitted = |interface| {
        let state = AdmitState {
            service: service.clone(),
            guard: guard.clone(),
            interface,
        };
        axum::middleware::from_fn_with_state(state, admit)
    };
    let health = {
        let service = service.clone();
        axum::routing::get(move || health(service.clone()))
    };
    let mut main = courier_server::messaging_router(service.clone())
        .merge(crate::delivery::needs_delivery_engine(service.clone()))
        .route_layer(admitted(Interface::Messaging))
        .merge(crate::spec_docs::router())
        .route("/health", health.clone());
    if let Some(token) = &config.admin_token {
        main = main.merge(crate::admin::router(
            service.clone(),
            token.clone(),
            guard.clone(),
            BodyRead::api(config.body_read_timeout, budget.clone()),
        ));
    }
    let management = courier_server::management_router(service.clone())
        .route_layer(admitted(Interface::Management));
    let form = BodyRead {
        deadline: config.body_read_timeout,
        limit: crate::console::MAX_FORM_BYTES,
        too_large: crate::console::form_too_large,
        budget,
    };
    let console = config.console.then(|| {
        let (service, guard, secure_cookies) =
            (service.clone(), guard.clone(), config.tls.is_some());
        move || {
            crate::console::router(service.clone(), guard.clone(), secure_cookies).layer(
                axum::middleware::from_fn_with_state(form.clone(), console_bodies),
            )
        }
    });
    let with_console = |router: Router| match console {
        Some(build) => crate::console::mount(router, build),
        None => router,
    };
    if config.management_listen.is_some() {
        let management = management
            .route("/health", health)
            .merge(crate::spec_docs::router());
        (
            courier_server::finish(main).layer(usage.clone()),
            Some(courier_server::finish(with_console(management)).layer(usage)),
        )
    } else {
        (
            courier_server::finish(with_console(main.merge(management))).layer(usage),
            None,
        )
    }
}

/// The console's bodies: the login form read before the handler (it is the credential), every
/// other form left to the console to read after its session check ([`crate::body`]).
async fn console_bodies(
    rule: axum::extract::State<BodyRead>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if request.uri().path() == "/console/login" && request.method() == axum::http::Method::POST {
        crate::body::read_body_within(rule, request, next).await
    } else {
        crate::body::guard_body_within(rule, request, next).await
    }
}

/// Background upkeep: deleted DLQ entries reclaimed every 100 ms (paced by the store), usage
/// counters to disk every second, expired DLQ entries purged every minute (deleted and expired
/// entries are already invisible to readers; this frees the space).
pub fn spawn_upkeep(service: Arc<Service>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        // The first tick one period after start, not at once: nothing marked at start cannot
        // wait 100 ms, and a fresh service's first requests then do not share its cores with
        // the upkeep opening a reader (which parses the whole schema, as opening the store does).
        let first = tokio::time::Instant::now() + UPKEEP_TICK;
        let mut tick = tokio::time::interval_at(first, UPKEEP_TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let ticks_per_second =
            (Duration::from_secs(1).as_millis() / UPKEEP_TICK.as_millis()) as u64;
        let mut ticks: u64 = 0;
        loop {
            tick.tick().await;
            ticks += 1;
            // Often, so that under a steady stream of deletes the store's pacing (a small
            // batch per call while requests write) keeps up with the marking.
            reclaim_deleted(&service).await;
            if !ticks.is_multiple_of(ticks_per_second) {
                continue;
            }
            // While the disk is full this checks whether space has returned, so the service
            // recovers without a request; the counters stay in memory until then.
            if service.storage_refusal().await.is_none()
                && let Err(error) = service.flush_usage().await
            {
                tracing::warn!(%error, "writing usage counters failed; will retry");
            }
            if ticks.is_multiple_of(60 * ticks_per_second) {
                let memory = crate::memory::report();
                // Its own target, so `RUST_LOG=courier_service::memory=debug` shows it alone.
                tracing::debug!(
                    target: "courier_service::memory",
                    sqlite_bytes = memory.sqlite,
                    heap_in_use_bytes = memory.heap_in_use,
                    heap_free_bytes = memory.heap_free,
                    "memory"
                );
                let floor = service.retention_floor();
                match service
                    .blocking(move |store| store.purge_expired(floor))
                    .await
                {
                    Ok(0) => {}
                    Ok(purged) => tracing::info!(purged, "removed DLQ entries past retention"),
                    Err(error) => tracing::warn!(%error, "purging expired DLQ entries failed"),
                }
            }
        }
    })
}

/// How often the upkeep looks for work.
const UPKEEP_TICK: Duration = Duration::from_millis(100);

/// Entries reclaimed per transaction: small enough that a request waiting for the writer waits
/// a few milliseconds at most.
const RECLAIM_BATCH: usize = 500;

/// Removes the entries deletes have marked, a small transaction at a time, until none is left.
async fn reclaim_deleted(service: &Arc<Service>) {
    loop {
        match service
            .blocking(|store| store.reclaim_deleted(RECLAIM_BATCH))
            .await
        {
            Ok(0) => return,
            Ok(_) => tokio::task::yield_now().await,
            Err(error) => {
                tracing::warn!(%error, "reclaiming deleted DLQ entries failed; will retry");
                return;
            }
        }
    }
}

/// The bound listeners of a running service.
pub struct Listeners {
    pub main: tokio::net::TcpListener,
    pub management: Option<tokio::net::TcpListener>,
}

pub async fn bind(config: &Config) -> Result<Listeners, StartError> {
    let listen = |address: SocketAddr| async move {
        tokio::net::TcpListener::bind(address)
            .await
            .map_err(|source| StartError::Listen { address, source })
    };
    let main = listen(config.listen).await?;
    let management = match config.management_listen {
        Some(address) => Some(listen(address).await?),
        None => None,
    };
    Ok(Listeners { main, management })
}

/// How long a client may take to send a request's headers. Without it (axum::serve sets no
/// timer), a client that trickles bytes holds a connection and its task forever.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves until `shutdown` resolves, then drains connections and writes pending counters.
pub async fn serve(
    service: Arc<Service>,
    config: &Config,
    listeners: Listeners,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let upkeep = spawn_upkeep(service.clone());
    let (main_router, management_router) = routers(service.clone(), config);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    let timeout = config.header_read_timeout;
    let tls = config.tls.clone().map(tokio_rustls::TlsAcceptor::from);
    // One gate for both listeners: the descriptors they spend are the process's.
    let limits = ConnectionLimits::for_this_process();
    tracing::debug!(
        total = limits.total,
        per_client = limits.per_client,
        "connections held at most"
    );
    let gate = Gate::new(limits);
    let stall = config.write_stall_timeout;
    let main = serve_listener(
        listeners.main,
        main_router,
        (timeout, stall),
        tls.clone(),
        gate.clone(),
        stop_rx.clone(),
    );
    match (listeners.management, management_router) {
        (Some(listener), Some(router)) => {
            tokio::join!(
                main,
                serve_listener(listener, router, (timeout, stall), tls, gate, stop_rx)
            );
        }
        _ => main.await,
    }
    upkeep.abort();
    if let Err(error) = service.flush_usage().await {
        tracing::warn!(%error, "writing usage counters at shutdown failed");
    }
}

/// Prints what a newcomer needs to talk to the service.
pub fn banner(service: &Service, config: &Config, listeners: &Listeners) -> String {
    let account = service.account();
    let main = listeners
        .main
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let management = listeners
        .management
        .as_ref()
        .and_then(|l| l.local_addr().ok())
        .map(|a| a.to_string())
        .unwrap_or_else(|| main.clone());
    let scheme = config.scheme();
    let store = match &config.postgres {
        Some(url) => url.to_string(),
        None => format!("{} (SQLite)", config.data_dir.display()),
    };
    let admin = match &config.admin_token {
        Some(_) => format!("  admin API:      {scheme}://{main}/admin/v1 (Bearer <admin token>)\n"),
        None => String::new(),
    };
    let console = if config.console {
        format!(
            "  console:        {scheme}://{management}/console (sign in with customer_id and management_key)\n"
        )
    } else {
        String::new()
    };
    // Everything a client command needs to reach this service, ready to paste.
    let management_url = if management == main {
        String::new()
    } else {
        format!("export COURIER_MANAGEMENT_URL='{scheme}://{management}'\n")
    };
    format!(
        "courier is serving\n  messaging:      {scheme}://{main}  (Authorization: Bearer $COURIER_SERVICE_TOKEN)\n  \
         management:     {scheme}://{management}  (Basic customer_id:management_key)\n{admin}{console}  store:          {store}\n\n\
         export COURIER_BASE_URL='{scheme}://{main}'\n{management_url}\
         export COURIER_SERVICE_TOKEN='{}'\nexport COURIER_CUSTOMER_ID='{}'\nexport COURIER_MANAGEMENT_KEY='{}'\n",
        account.token,
        account.customer_id,
        service.management_key(),
    )
}
