//! The reference service: `MessagingApi` and `ManagementApi` implemented on the durable store.
//!
//! Store calls are synchronous (SQLite) and run on tokio's blocking pool, so a slow disk never
//! stalls the async workers. The account record is cached in memory for authentication and
//! written through to the store on every change.
//!
//! Here are the state every request shares, [`Service`], and the answers both interfaces give
//! for a store failure; each trait is implemented in a module of its own, `messaging` and
//! `management`. Their handlers destructure every generated request without `..`, so a parameter
//! added to the spec is a compile error there until someone decides what it does.

mod management;
mod messaging;

use crate::account::AccountRecord;
use crate::stats::{self, Usage};
use crate::store::{DlqFilter, PageQuery, Store, StoreError};
use crate::time::now_ms;
use courier_models::MessagingAccount;
use courier_server::runtime::error_body;
use std::sync::{Arc, RwLock};

/// The service state shared by every request.
pub struct Service {
    store: Arc<dyn Store>,
    account: RwLock<AccountRecord>,
    usage: Arc<Usage>,
    rate_limiter: crate::ratelimit::RateLimiter,
    kept_pages: crate::kept_pages::KeptPages,
}

impl Service {
    pub fn new(store: Arc<dyn Store>, account: AccountRecord) -> Service {
        // The daily limit counts from what was recorded today, so a restart does not reset it.
        let now = now_ms();
        let today = now - now.rem_euclid(86_400_000);
        let counted_today = store
            .usage_between(stats::REQUESTS, today, now)
            .map(|minutes| minutes.iter().map(|(_, value)| *value as u64).sum())
            .unwrap_or(0);
        Service::counting_from(store, account, counted_today)
    }

    /// [`Service::new`] on a store whose account was created just now, so has recorded no
    /// requests: nothing is read, and a fresh service starts without opening a reader.
    pub fn new_account(store: Arc<dyn Store>, account: AccountRecord) -> Service {
        Service::counting_from(store, account, 0)
    }

    fn counting_from(store: Arc<dyn Store>, account: AccountRecord, counted_today: u64) -> Service {
        let now = now_ms();
        Service {
            store,
            account: RwLock::new(account),
            usage: Arc::new(Usage::default()),
            rate_limiter: crate::ratelimit::RateLimiter::starting_with(counted_today, now),
            kept_pages: crate::kept_pages::KeptPages::default(),
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn usage(&self) -> &Usage {
        &self.usage
    }

    /// Counts one interface request against the account's `max_requests_per_second` and
    /// `max_requests_per_day_hard` (`docs/decisions.md#d18-rate-limit-headers`): in the store
    /// when other processes share it (one budget for all of them), in memory otherwise.
    pub async fn rate_limit(&self) -> crate::ratelimit::Decision {
        let limit = |value: i64| u64::try_from(value).unwrap_or(0);
        let (per_second, per_day) = {
            let account = &self.record().account;
            (
                limit(account.max_requests_per_second),
                limit(account.max_requests_per_day_hard),
            )
        };
        let now = now_ms();
        if self.store.shared() {
            let windows = crate::ratelimit::Windows::at(now);
            let spent = self
                .blocking(move |store| store.spend_request(windows, per_second, per_day))
                .await;
            match spent {
                Ok(Some(spent)) => {
                    return windows.decision(
                        per_second,
                        per_day,
                        spent.second_used,
                        spent.day_used,
                        spent.refused,
                    );
                }
                Ok(None) => {}
                // The request then meets the same failure in the store; this process's own
                // count still bounds it.
                Err(error) => {
                    tracing::warn!(%error, "counting a request in the shared store failed")
                }
            }
        }
        self.rate_limiter.check(per_second, per_day, now)
    }

    /// The cached account record. A writer that panicked cannot have left it half-written (it
    /// only ever replaces a whole value), so a poisoned lock is read all the same.
    fn record(&self) -> std::sync::RwLockReadGuard<'_, AccountRecord> {
        self.account
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The current account record (with the live credentials).
    pub fn account(&self) -> MessagingAccount {
        self.account
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .account
            .clone()
    }

    pub fn management_key(&self) -> String {
        self.account
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .management_key
            .clone()
    }

    /// On a store other processes share, reloads the cached account from the store, so that a
    /// rotation (or a new limit) made through another process holds here from the next request
    /// on; on a store of this process alone the cache is the truth and nothing is read. Within
    /// [`account_read`] (the rest of a request the admission already read it for) nothing is
    /// read either: the handler's own check of the credentials would read it a second time
    /// microseconds later, a round trip to the database for nothing.
    pub async fn refresh_account(&self) {
        if !self.store.shared() || ACCOUNT_READ.try_with(|_| ()).is_ok() {
            return;
        }
        match self.blocking(|store| store.account()).await {
            Ok(Some(account)) => self.set_account(account),
            Ok(None) => {}
            // The request then fails on the store anyway; the last account read still decides
            // who gets that far.
            Err(error) => tracing::warn!(%error, "reading the shared account failed"),
        }
    }

    /// Replaces the cached account after the store accepted the change.
    pub fn set_account(&self, account: MessagingAccount) {
        self.account
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .account = account;
    }

    /// Runs a store call on the blocking pool.
    pub async fn blocking<T, F>(&self, call: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
    {
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || call(store.as_ref())).await {
            Ok(result) => result,
            Err(join) => Err(StoreError::Internal(format!("store task failed: {join}"))),
        }
    }

    /// Runs a point read (one row by key) on the calling thread when the store is embedded: it
    /// takes microseconds, less than the two thread switches of a trip through the blocking
    /// pool, which profiling showed as the largest cost of a get-one request (BENCHMARKS.md,
    /// findings). A store across the network goes through the pool like every other call.
    /// Never for scans or writes.
    pub async fn read_now<T: Send + 'static>(
        &self,
        call: impl FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        if !self.store.shared() {
            call(self.store.as_ref())
        } else {
            self.blocking(call).await
        }
    }

    /// A change to one entry by its key (delete, cancel) among those still within retention:
    /// whether there was one.
    async fn change_one(
        &self,
        key: &str,
        change: fn(&dyn Store, &str, i64) -> Result<bool, StoreError>,
    ) -> Result<bool, StoreError> {
        let key = key.to_owned();
        let floor = self.retention_floor();
        self.blocking(move |store| change(store, &key, floor)).await
    }

    /// A bulk change (delete entries, cancel runs) among those still within retention: by `ids`
    /// when there are any (`docs/decisions.md#d6-bulk-delete-count`: every filter and the cursor
    /// are then ignored), else `matching` on one batch: up to `limit` matches of `filter` after
    /// `after`. How many changed, and where the rest starts when more may match.
    async fn bulk(
        &self,
        ids: Vec<String>,
        by_ids: fn(&dyn Store, &[String], i64) -> Result<u64, StoreError>,
        (filter, after, limit): (DlqFilter, Option<String>, usize),
        matching: impl FnOnce(&dyn Store, PageQuery<'_>) -> Result<(u64, Option<String>), StoreError>
        + Send
        + 'static,
    ) -> Result<(u64, Option<String>), StoreError> {
        let floor = self.retention_floor();
        if ids.is_empty() {
            return self
                .blocking(move |store| {
                    let query = PageQuery::first(&filter, limit)
                        .after(after.as_deref())
                        .retained_from(floor);
                    matching(store, query)
                })
                .await;
        }
        self.blocking(move |store| by_ids(store, &ids, floor))
            .await
            .map(|changed| (changed, None))
    }

    /// Counts cancelled runs in the statistics (`docs/decisions.md#d7-metric-identifiers`):
    /// `canceled` and `run_canceled`.
    fn count_cancelled(&self, runs: u64) {
        if runs > 0 {
            let now = now_ms();
            self.usage.add(stats::CANCELED, now, runs as f64);
            self.usage.add(stats::RUN_CANCELED, now, runs as f64);
        }
    }

    /// Entries created before this are past the account's retention and count as gone
    /// (`docs/decisions.md#d13-retention-and-dlq-size`).
    pub fn retention_floor(&self) -> i64 {
        let retention = self.record().account.max_dlq_retention_time_milis;
        now_ms().saturating_sub(retention)
    }

    /// Why the store refuses writes right now (a full data directory), or `None`; checks
    /// whether space has returned, so asking is what lets a degraded service recover.
    pub async fn storage_refusal(&self) -> Option<String> {
        self.blocking(|store| Ok(store.write_refusal()))
            .await
            .unwrap_or_else(|error| Some(error.to_string()))
    }

    /// Flushes pending usage counters to the store.
    pub async fn flush_usage(&self) -> Result<(), StoreError> {
        let usage = self.usage.clone();
        self.blocking(move |store| usage.flush(store)).await
    }
}

tokio::task_local! {
    /// Set for the rest of a request whose account was just read from a shared store.
    static ACCOUNT_READ: ();
}

/// Runs `request` (the rest of a request's handling, in the same task) as one whose account was
/// just read from the store: [`Service::refresh_account`] reads nothing within it.
pub async fn account_read<F: std::future::Future>(request: F) -> F::Output {
    ACCOUNT_READ.scope((), request).await
}

fn internal(context: &str, error: StoreError) -> courier_models::ErrorBody {
    tracing::error!(%error, "{context}");
    error_body(format!("internal error while {context}"))
}

/// A store error is the caller's fault only when the store says the input was invalid; a
/// shared store that cannot be reached is a 503 (nothing was read or changed, retrying is safe),
/// never a 500 and never an answer made up without it.
macro_rules! store_failure {
    ($response:ident, $context:expr, $error:expr) => {
        match $error {
            StoreError::Invalid(message) => $response::BadRequest(error_body(message)),
            StoreError::Unavailable(message) => {
                tracing::warn!(%message, "{}: the store is unavailable", $context);
                $response::ServiceUnavailable(error_body(message))
            }
            other => $response::InternalServerError(internal($context, other)),
        }
    };
}

/// [`store_failure!`] for the operations that change stored data, which document 507: a full
/// data directory is the operator's to fix, not a fault of the service.
macro_rules! write_failure {
    ($response:ident, $context:expr, $error:expr) => {
        match $error {
            StoreError::Full(message) => {
                tracing::warn!(%message, "{}: storage is full", $context);
                $response::InsufficientStorage(error_body(message))
            }
            other => store_failure!($response, $context, other),
        }
    };
}

/// The cursor a page request resumes after, decoded, or else the operation's 400: every
/// parameter is validated before anything is read or changed
/// (`docs/decisions.md#d16-order-of-checks`).
macro_rules! after_cursor {
    ($response:ident, $cursor:expr) => {
        match $cursor.as_deref().map(cursor::decode).transpose() {
            Ok(after) => after,
            Err(message) => return $response::BadRequest(error_body(message)),
        }
    };
}

/// The answer of a read of one thing by its key: the thing, a 404 saying what is missing, or
/// the store's failure.
macro_rules! found_or_404 {
    ($response:ident, $result:expr, $context:expr, $missing:expr) => {
        match $result {
            Ok(Some(found)) => $response::Ok(found),
            Ok(None) => $response::NotFound(error_body($missing)),
            Err(error) => store_failure!($response, $context, error),
        }
    };
}

// Imported by name in `messaging` and `management`, so each says where its macros come from.
use {after_cursor, found_or_404, store_failure, write_failure};
