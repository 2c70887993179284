//! Assembles and runs the service: store, account, routers, listeners, background tasks, shutdown.

use crate::account::{InitialCredentials, load_or_create};
use crate::api::Service;
use crate::stats;
use crate::store::{SqliteStore, Store, StoreError};
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
    pub data_dir: PathBuf,
    pub credentials: InitialCredentials,
    /// Enables `/admin/v1` with this bearer token.
    pub admin_token: Option<String>,
    /// Seed demo data on start (only into an empty DLQ).
    pub demo: bool,
    /// How long a client may take to send a request's headers ([`HEADER_READ_TIMEOUT`]).
    pub header_read_timeout: Duration,
    /// Serve HTTPS with this configuration (`--tls-cert`/`--tls-key`) instead of plain HTTP.
    pub tls: Option<crate::tls::ServerTls>,
    /// Serve the console at `/console` on the management listener (off with `--no-console`).
    pub console: bool,
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
    #[error("cannot load the account: {0}")]
    Account(#[source] StoreError),
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
}

/// Opens the store in the data directory and loads (or creates) the account.
pub fn open_service(config: &Config) -> Result<Arc<Service>, StartError> {
    std::fs::create_dir_all(&config.data_dir).map_err(|source| StartError::DataDir {
        path: config.data_dir.clone(),
        source,
    })?;
    let path = config.data_dir.join("courier.sqlite3");
    let store = SqliteStore::open(&path).map_err(|source| StartError::Store {
        path: path.clone(),
        source,
    })?;
    let store: Arc<dyn Store> = Arc::new(store);
    let account = load_or_create(store.as_ref(), &config.credentials, now_ms())
        .map_err(StartError::Account)?;
    Ok(Arc::new(Service::new(store, account)))
}

/// `ok`, or 503 `degraded` with the reason while the store refuses writes (a full disk).
async fn health(service: Arc<Service>) -> Response {
    match service.storage_refusal().await {
        None => {
            courier_server::runtime::json(StatusCode::OK, &serde_json::json!({ "status": "ok" }))
        }
        Some(reason) => courier_server::runtime::json(
            StatusCode::SERVICE_UNAVAILABLE,
            &serde_json::json!({ "status": "degraded", "reason": reason }),
        ),
    }
}

/// Meters every interface request: the usage counters of the statistics (authenticated,
/// admitted requests and their bytes) and a debug log line. Only the path is logged: the query
/// may carry a `service_token`.
async fn meter(
    axum::extract::State(service): axum::extract::State<Arc<Service>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let started = std::time::Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let request_bytes = content_length(request.headers());
    let interface = path.starts_with("/v2/");
    let response = next.run(request).await;
    let status = response.status();
    if interface && status != StatusCode::UNAUTHORIZED && status != StatusCode::TOO_MANY_REQUESTS {
        let now = now_ms();
        let usage = service.usage();
        usage.add(stats::REQUESTS, now, 1.0);
        usage.add(
            stats::BANDWIDTH,
            now,
            (request_bytes + content_length(response.headers())) as f64,
        );
        if path.starts_with("/v2/workflows") || path.starts_with("/v2/dlq") {
            usage.add(stats::WORKFLOW_REQUESTS, now, 1.0);
        }
    }
    tracing::debug!(%method, %path, status = status.as_u16(), micros = started.elapsed().as_micros() as u64, "request");
    response
}

/// Which interface's credentials a route takes.
#[derive(Clone, Copy)]
enum Interface {
    Messaging,
    Management,
}

/// The rate limit, after the credentials (`docs/decisions.md#d16-order-of-checks`): a request whose
/// credentials are missing or wrong goes on to the generated handler, which answers 401, and spends
/// nothing of the account's limit; only an authenticated request is counted, and refused with 429
/// before its parameters are read. The handler checks the credentials again; a comparison costs
/// nanoseconds and keeps the generated router the only place that decides the 401.
async fn admit(
    axum::extract::State((service, interface)): axum::extract::State<(Arc<Service>, Interface)>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    use courier_server::{ManagementApi, MessagingApi, auth, query::Query};
    let query = Query::parse(request.uri().query().unwrap_or(""));
    let authenticated = match interface {
        Interface::Messaging => match auth::messaging_credentials(request.headers(), &query) {
            Ok(credentials) => MessagingApi::authenticate(&*service, credentials)
                .await
                .is_ok(),
            Err(_) => false,
        },
        Interface::Management => match auth::management_credentials(request.headers(), &query) {
            Ok(credentials) => ManagementApi::authenticate(&*service, credentials)
                .await
                .is_ok(),
            Err(_) => false,
        },
    };
    if !authenticated {
        return next.run(request).await;
    }
    let decision = service.rate_limit();
    let mut response = match decision.refused {
        None => next.run(request).await,
        Some(refusal) => too_many_requests(refusal),
    };
    rate_limit_headers(&mut response, &decision);
    response
}

fn too_many_requests(refusal: crate::ratelimit::Refusal) -> Response {
    let message = match refusal {
        crate::ratelimit::Refusal::PerSecond => {
            "too many requests: the account's max_requests_per_second is reached; retry after the time in Retry-After"
        }
        crate::ratelimit::Refusal::Daily => {
            "too many requests: the account's max_requests_per_day_hard is reached for this UTC day; retry after the time in Retry-After"
        }
    };
    courier_server::runtime::error(StatusCode::TOO_MANY_REQUESTS, message)
}

/// The rate-limit headers of an authenticated interface response
/// (`docs/decisions.md#d18-rate-limit-headers`): the per-second window as `Burst-RateLimit-*`
/// always; the daily limit as `RateLimit-*` on a success and on its own 429, but never on a
/// per-second 429, whose `RateLimit-*` the official clients would read as the daily limit.
/// `Retry-After` on every 429.
fn rate_limit_headers(response: &mut Response, decision: &crate::ratelimit::Decision) {
    use crate::ratelimit::Refusal;
    let now = now_ms();
    let headers = response.headers_mut();
    let mut set = |name: &'static str, value: u64| {
        headers.insert(name, axum::http::HeaderValue::from(value));
    };
    let burst = &decision.per_second;
    set("burst-ratelimit-limit", burst.limit);
    set("burst-ratelimit-remaining", burst.remaining);
    set("burst-ratelimit-reset", burst.reset_unix_seconds());
    if decision.refused != Some(Refusal::PerSecond) {
        let daily = &decision.daily;
        set("ratelimit-limit", daily.limit);
        set("ratelimit-remaining", daily.remaining);
        set("ratelimit-reset", daily.reset_unix_seconds());
    }
    match decision.refused {
        Some(Refusal::PerSecond) => set("retry-after", burst.retry_after_seconds(now)),
        Some(Refusal::Daily) => set("retry-after", decision.daily.retry_after_seconds(now)),
        None => {}
    }
}

fn content_length(headers: &axum::http::HeaderMap) -> u64 {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse().ok())
        .unwrap_or(0)
}

/// What the official workflow client can ask of the hosted service and a local service without a
/// delivery engine cannot do: resume and restart failed runs, retry a failure callback. They
/// answer 501 with the error body saying so, never a 404 that reads like a wrong address.
fn needs_delivery_engine() -> Router {
    async fn not_implemented(uri: axum::http::Uri) -> Response {
        courier_server::runtime::error(
            StatusCode::NOT_IMPLEMENTED,
            format!(
                "{} needs a delivery engine, which the local courier service does not have: it \
                 keeps the DLQ but delivers nothing; resume, restart and failure-callback retry \
                 are the hosted service's",
                uri.path()
            ),
        )
    }
    let post = || {
        axum::routing::post(not_implemented).fallback(courier_server::runtime::method_not_allowed)
    };
    Router::new()
        .route("/v2/workflows/dlq/resume", post())
        .route("/v2/workflows/dlq/restart", post())
        .route("/v2/workflows/dlq/callback/{dlqId}", post())
}

/// The routers: `(main, management)`; management is `None` when both interfaces share `main`.
pub fn routers(service: Arc<Service>, config: &Config) -> (Router, Option<Router>) {
    let usage = axum::middleware::from_fn_with_state(service.clone(), meter);
    let admitted =
        |interface| axum::middleware::from_fn_with_state((service.clone(), interface), admit);
    let health = {
        let service = service.clone();
        axum::routing::get(move || health(service.clone()))
    };
    let mut main = courier_server::messaging_router(service.clone())
        .route_layer(admitted(Interface::Messaging))
        .merge(needs_delivery_engine())
        .route("/health", health.clone());
    if let Some(token) = &config.admin_token {
        main = main.merge(crate::admin::router(service.clone(), token.clone()));
    }
    let mut management = courier_server::management_router(service.clone())
        .route_layer(admitted(Interface::Management));
    if config.console {
        management = management.merge(crate::console::router(
            service.clone(),
            config.tls.is_some(),
        ));
    }
    if config.management_listen.is_some() {
        let management = management.route("/health", health);
        (
            courier_server::finish(main).layer(usage.clone()),
            Some(courier_server::finish(management).layer(usage)),
        )
    } else {
        (
            courier_server::finish(main.merge(management)).layer(usage),
            None,
        )
    }
}

/// Background upkeep: deleted DLQ entries reclaimed every 100 ms (paced by the store), usage
/// counters to disk every second, expired DLQ entries purged every minute (deleted and expired
/// entries are already invisible to readers; this frees the space).
pub fn spawn_upkeep(service: Arc<Service>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(UPKEEP_TICK);
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

/// How long shutdown waits for open connections to finish before closing them.
const DRAIN_DEADLINE: Duration = Duration::from_secs(10);

/// Accepts connections on `listener` until `stop` turns true, then drains them.
async fn serve_listener(
    listener: tokio::net::TcpListener,
    router: Router,
    header_read_timeout: Duration,
    tls: Option<tokio_rustls::TlsAcceptor>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    // HTTP/1.1 only: the auto (HTTP/1 + h2c) builder first waits, untimed, for bytes to sniff
    // the protocol, which a silent client never sends.
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|stop| *stop) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors and the like: back off instead of spinning or dying.
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let watcher = graceful.watcher();
        let builder = builder.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            // Errors here are a client's broken connection or timeout: nothing to report upward.
            let result = match tls {
                None => {
                    let connection = builder.serve_connection(TokioIo::new(stream), service);
                    watcher.watch(connection).await
                }
                Some(acceptor) => {
                    // The handshake runs in the connection's task, bounded like the headers,
                    // so a silent client neither blocks accepting nor holds the task forever.
                    let handshake =
                        tokio::time::timeout(header_read_timeout, acceptor.accept(stream)).await;
                    let stream = match handshake {
                        Ok(Ok(stream)) => stream,
                        Ok(Err(error)) => {
                            tracing::debug!(%error, "TLS handshake failed");
                            return;
                        }
                        Err(_) => {
                            tracing::debug!("TLS handshake timed out");
                            return;
                        }
                    };
                    let connection = builder.serve_connection(TokioIo::new(stream), service);
                    watcher.watch(connection).await
                }
            };
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_DEADLINE) => tracing::warn!("connections still open after the drain deadline; closing them"),
    }
}

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
    let main = serve_listener(
        listeners.main,
        main_router,
        timeout,
        tls.clone(),
        stop_rx.clone(),
    );
    match (listeners.management, management_router) {
        (Some(listener), Some(router)) => {
            tokio::join!(
                main,
                serve_listener(listener, router, timeout, tls, stop_rx)
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
    format!(
        "courier is serving\n  messaging:      {scheme}://{main}  (Authorization: Bearer $COURIER_SERVICE_TOKEN)\n  \
         management:     {scheme}://{management}  (Basic customer_id:management_key)\n{admin}{console}  data directory: {}\n\n\
         export COURIER_SERVICE_TOKEN='{}'\nexport COURIER_CUSTOMER_ID='{}'\nexport COURIER_MANAGEMENT_KEY='{}'\n",
        config.data_dir.display(),
        account.token,
        account.customer_id,
        service.management_key(),
    )
}
