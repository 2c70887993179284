//! The PostgreSQL store: the same [`Store`](crate::store::Store) on a database several
//! `courier serve` processes share (`courier serve --store postgres://…`).
//!
//! Where SQLite's store is tuned for one process and one file, this one is written for many
//! processes and one truth: every multi-row change is one transaction; inserts take a
//! transaction-scoped advisory lock, so the DLQ's size limit stays exact however many processes
//! insert at once; the live entry count is kept by a trigger, so eviction never counts the table;
//! text keys compare byte-wise (`COLLATE "C"`), so ids order exactly as on SQLite and a cursor
//! from one process (or one store) continues on any other. Deletes remove rows at once:
//! PostgreSQL's own MVCC already does what SQLite's tombstones do (a delete marks, `VACUUM`
//! reclaims), so [`Store::reclaim_deleted`](crate::store::Store::reclaim_deleted) has nothing to do.
//!
//! The store is in rooms: `schema` (migrations by refinery, under an advisory lock so processes
//! starting together migrate once), `session` (pooled connections that keep their prepared
//! statements), `scan` (filters as SQL), `steps` (what several methods share), `operations`
//! (the `Store` methods) and `usage` (the statistics' counters and the request limits).

mod operations;
mod scan;
mod schema;
mod session;
mod steps;
mod usage;

use super::StoreError;
use postgres::{Client, Config, NoTls, Transaction};
use r2d2_postgres::PostgresConnectionManager;
use session::{Manager, Session};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

type Pool = r2d2_postgres::r2d2::Pool<Manager>;

/// A PostgreSQL connection string (a `postgres://` URL or libpq's `key=value` form), checked
/// when parsed. Its `Debug` and `Display` show where it points, never its password.
///
/// courier's connection to PostgreSQL has no TLS: an `sslmode` that asks for it (`require`,
/// `verify-ca`, `verify-full`) is refused saying so, and `prefer` is accepted with a warning
/// ([`PostgresUrl::warning`]), since it then connects over plain TCP.
#[derive(Clone)]
pub struct PostgresUrl {
    config: Config,
    location: String,
    /// The string says `sslmode=prefer`, which here means plain TCP.
    prefers_tls: bool,
}

/// Why a connection string asking for TLS is refused, after `sslmode=…: `.
const NO_TLS: &str = "courier's PostgreSQL connection has no TLS (it speaks plain TCP only), so \
                      the database cannot be asked for TLS. Keep the database on the same host \
                      or a private network and say sslmode=disable, or reach it through a TLS \
                      tunnel (stunnel, ssh -L) on this host";

impl FromStr for PostgresUrl {
    type Err = String;

    fn from_str(connection: &str) -> Result<PostgresUrl, String> {
        let config = Config::from_str(connection).map_err(|error| {
            // The parser says only "invalid connection string"; its cause names the option (an
            // option's name, never the string or a value).
            let cause = std::error::Error::source(&error)
                .map(ToString::to_string)
                .unwrap_or_default();
            if cause.contains("`sslmode`") {
                format!(
                    "sslmode: only disable (or prefer, which then means plain TCP) is possible; \
                     {NO_TLS}"
                )
            } else if cause.starts_with("invalid value for option `") {
                format!("the PostgreSQL connection string is not valid: {cause}")
            } else {
                format!("the PostgreSQL connection string is not valid: {error}")
            }
        })?;
        use postgres::config::SslMode;
        if config.get_ssl_mode() == SslMode::Require {
            return Err(format!("sslmode=require cannot be met: {NO_TLS}"));
        }
        Ok(PostgresUrl {
            location: location(&config),
            // `prefer` is also the driver's default; only a string that asks for it is told.
            prefers_tls: config.get_ssl_mode() == SslMode::Prefer && connection.contains("sslmode"),
            config,
        })
    }
}

impl PostgresUrl {
    /// What to tell the operator on start about this connection string: that an explicit
    /// `sslmode=prefer` connects over plain TCP. `None` when there is nothing to say.
    pub fn warning(&self) -> Option<String> {
        self.prefers_tls.then(|| {
            format!(
                "warning: the PostgreSQL connection string says sslmode=prefer, but courier's \
                 PostgreSQL connection has no TLS: it connects to {} over plain TCP. Say \
                 sslmode=disable to make that explicit (and silence this warning), and keep the \
                 database on the same host or a private network",
                self.location
            )
        })
    }

    /// Whether the connection string carries a password (shown in the process list when given
    /// as a flag).
    pub fn has_password(&self) -> bool {
        self.config.get_password().is_some()
    }
}

impl std::fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.location)
    }
}

impl std::fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PostgresUrl({})", self.location)
    }
}

/// A courier store in a PostgreSQL database (or in one schema of it: set `search_path` in the
/// connection string's `options`, e.g. `?options=-csearch_path%3Dcourier_ci`).
pub struct PostgresStore {
    /// Always `Some` until dropped (see the `Drop` impl).
    pool: Option<Pool>,
    /// Where the store is, without its password: what logs and errors may say.
    location: String,
    /// Whether the last call found no connection: the server is down, so calls wait only
    /// [`OUTAGE_WAIT`] for one until a call gets one again.
    unreachable: AtomicBool,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("location", &self.location)
            .finish()
    }
}

/// Connections one process keeps: the calls it serves at once (more wait for one).
const CONNECTIONS: u32 = 8;

/// How long a call waits for a connection (the server down or every connection busy) before it
/// fails with [`StoreError::Unavailable`].
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a call waits for a connection while the server is known to be unreachable. Each
/// request makes a few store calls, so waiting [`CONNECT_TIMEOUT`] on each would hold every
/// request of an outage for many seconds before its 503; the pool keeps reconnecting in the
/// background all the same, and the first call that gets a connection ends the short waits.
const OUTAGE_WAIT: Duration = Duration::from_millis(250);

impl PostgresStore {
    /// The class of the advisory lock the retention purge takes, tried and never waited for
    /// (`pg_try_advisory_xact_lock(3, hashtext(schema))`; visible in `pg_locks`): while one process
    /// purges, the others skip their turn, so the upkeep runs once however many processes run.
    pub const PURGE_LOCK: i32 = 3;

    /// Connects to the database `connection` names (a `postgres://` URL or libpq's `key=value`
    /// form) and brings it to the current schema; refuses a schema newer than this courier's.
    ///
    /// No error, log line or `Debug` output carries the connection string's password.
    pub fn connect(connection: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect_to(&connection.parse().map_err(StoreError::Invalid)?)
    }

    /// [`PostgresStore::connect`] with a connection string already parsed.
    pub fn connect_to(url: &PostgresUrl) -> Result<PostgresStore, StoreError> {
        let PostgresUrl {
            config, location, ..
        } = url.clone();
        let mut config = config;
        if config.get_application_name().is_none() {
            config.application_name("courier");
        }
        config.connect_timeout(CONNECT_TIMEOUT);
        // One connection first, to migrate on and to fail fast with the server's own words (a
        // wrong password, an unknown database): the pool would retry until its timeout and then
        // say only that it timed out.
        let mut first = config.connect(NoTls).map_err(|error| {
            StoreError::Unavailable(format!(
                "cannot connect to PostgreSQL at {location}: {}",
                explain(&error)
            ))
        })?;
        schema::migrate(&mut first)?;
        drop(first);
        let manager = Manager(PostgresConnectionManager::new(config, NoTls));
        let pool = r2d2_postgres::r2d2::Pool::builder()
            .max_size(CONNECTIONS)
            .min_idle(Some(1))
            .connection_timeout(CONNECT_TIMEOUT)
            // A connection is tested before it is handed out, so one that died with a server
            // restart is replaced instead of failing a request.
            .test_on_check_out(true)
            .error_handler(Box::new(LogConnectionErrors))
            .build(manager)
            .map_err(|error| {
                StoreError::Unavailable(format!(
                    "cannot connect to PostgreSQL at {location}: {error}"
                ))
            })?;
        Ok(PostgresStore {
            pool: Some(pool),
            location,
            unreachable: AtomicBool::new(false),
        })
    }

    fn client(&self) -> Result<r2d2_postgres::r2d2::PooledConnection<Manager>, StoreError> {
        let pool = self
            .pool
            .as_ref()
            .expect("the pool lives as long as the store");
        let wait = if self.unreachable.load(Ordering::Relaxed) {
            OUTAGE_WAIT
        } else {
            CONNECT_TIMEOUT
        };
        match pool.get_timeout(wait) {
            Ok(client) => {
                self.unreachable.store(false, Ordering::Relaxed);
                Ok(client)
            }
            Err(error) => {
                self.unreachable.store(true, Ordering::Relaxed);
                Err(StoreError::Unavailable(format!(
                    "PostgreSQL at {} is unavailable: {error}",
                    self.location
                )))
            }
        }
    }

    /// Runs `call` with a connection of the pool.
    fn read<T>(
        &self,
        call: impl FnOnce(&mut Session<'_, Client>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        call(&mut self.client()?.session())
    }

    /// Runs `call` in one transaction, committed when it returns `Ok`.
    fn write<T>(
        &self,
        call: impl FnOnce(&mut Session<'_, Transaction<'_>>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.client()?.in_transaction(call)
    }
}

/// Closing a connection of the synchronous client runs a small runtime of its own, which
/// cannot start on a thread that drives an async runtime, where the service's last reference
/// may well be dropped. So the pool (and its connections) is dropped on a thread of its own.
impl Drop for PostgresStore {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            let closing = std::thread::Builder::new()
                .name("courier-pg-close".into())
                .spawn(move || drop(pool));
            if let Ok(closing) = closing {
                let _ = closing.join();
            }
        }
    }
}

/// Logs why the pool could not open a connection, in the server's words.
#[derive(Debug)]
struct LogConnectionErrors;

impl r2d2_postgres::r2d2::HandleError<postgres::Error> for LogConnectionErrors {
    fn handle_error(&self, error: postgres::Error) {
        tracing::error!(error = %explain(&error), "connecting to PostgreSQL failed");
    }
}

/// The error with its causes (the driver's own message is often just "db error").
fn explain(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!("{} ({})", db.message(), db.code().code());
    }
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// `postgres://user@host:port/dbname` of `config`: everything an operator needs to tell stores
/// apart, nothing secret.
fn location(config: &Config) -> String {
    use postgres::config::Host;
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let name = match host {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            };
            match config.get_ports().get(i).or(config.get_ports().first()) {
                Some(port) => format!("{name}:{port}"),
                None => name,
            }
        })
        .collect();
    let user = config
        .get_user()
        .map(|user| format!("{user}@"))
        .unwrap_or_default();
    let dbname = config.get_dbname().unwrap_or("");
    format!("postgres://{user}{}/{dbname}", hosts.join(","))
}

/// A failed PostgreSQL call: a full disk is told apart (507, deletes go on), and so is a server
/// that cannot be reached or is shutting down (503: try again), from a failure of the query (500).
impl From<postgres::Error> for StoreError {
    fn from(error: postgres::Error) -> StoreError {
        use postgres::error::SqlState;
        match error.code() {
            Some(code) if *code == SqlState::DISK_FULL => StoreError::Full(format!(
                "the database has no room for the write: {}",
                explain(&error)
            )),
            Some(code)
                if code.code().starts_with("08")
                    || code.code().starts_with("57P")
                    || *code == SqlState::TOO_MANY_CONNECTIONS =>
            {
                StoreError::Unavailable(format!("PostgreSQL is unavailable: {}", explain(&error)))
            }
            // No SQLSTATE: the connection broke (an I/O error) or was closed under the call.
            None if error.is_closed()
                || std::error::Error::source(&error).is_some_and(|s| s.is::<std::io::Error>()) =>
            {
                StoreError::Unavailable(format!("PostgreSQL is unavailable: {}", explain(&error)))
            }
            _ => StoreError::Internal(explain(&error)),
        }
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|error| StoreError::Internal(error.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::Internal(format!("a stored record does not parse: {e}")))
}
