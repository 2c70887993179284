//! The reference service: `MessagingApi` and `ManagementApi` implemented on the durable store.
//!
//! Store calls are synchronous (SQLite) and run on tokio's blocking pool, so a slow disk never
//! stalls the async workers. The account record is cached in memory for authentication and
//! written through to the store on every change.

use crate::account::{AccountRecord, rotated_credentials};
use crate::cursor;
use crate::stats::{self, Usage};
use crate::store::{DlqFilter, PageQuery, Store, StoreError};
use crate::time::now_ms;
use crate::wire::page_json;
use courier_models::{BulkDeleteResult, MessagingAccount};
use courier_server::auth::constant_time_eq;
use courier_server::runtime::{JsonBody, error_body};
use courier_server::*;
use std::sync::{Arc, RwLock};

/// The service state shared by every request.
pub struct Service {
    store: Arc<dyn Store>,
    account: RwLock<AccountRecord>,
    usage: Arc<Usage>,
    rate_limiter: crate::ratelimit::RateLimiter,
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
        Service {
            store,
            account: RwLock::new(account),
            usage: Arc::new(Usage::default()),
            rate_limiter: crate::ratelimit::RateLimiter::starting_with(counted_today, now),
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn usage(&self) -> &Usage {
        &self.usage
    }

    /// Counts one interface request against the account's `max_requests_per_second` and
    /// `max_requests_per_day_hard` (`docs/decisions.md#d18-rate-limit-headers`).
    pub fn rate_limit(&self) -> crate::ratelimit::Decision {
        let account = self.account();
        let limit = |value: i64| u64::try_from(value).unwrap_or(0);
        self.rate_limiter.check(
            limit(account.max_requests_per_second),
            limit(account.max_requests_per_day_hard),
            now_ms(),
        )
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

    /// Runs a point read (one row by key) on the calling thread. It takes microseconds, less than
    /// the two thread switches of a trip through the blocking pool, which profiling showed as
    /// the largest cost of a get-one request (BENCHMARKS.md, findings). Never for scans or writes.
    pub fn read_now<T>(
        &self,
        call: impl FnOnce(&dyn Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        call(self.store.as_ref())
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
        now_ms().saturating_sub(self.account().max_dlq_retention_time_milis)
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

fn internal(context: &str, error: StoreError) -> courier_models::ErrorBody {
    tracing::error!(%error, "{context}");
    error_body(format!("internal error while {context}"))
}

/// A store error is the caller's fault only when the store says the input was invalid.
macro_rules! store_failure {
    ($response:ident, $context:expr, $error:expr) => {
        match $error {
            StoreError::Invalid(message) => $response::BadRequest(error_body(message)),
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

impl MessagingApi for Service {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        let account = self.record();
        credentials.expect_token(&account.account.token, "the service token is not valid")
    }

    async fn list_workflow_dlq(
        &self,
        _: (),
        ListWorkflowDlqRequest {
            filter,
            cursor,
            count,
        }: ListWorkflowDlqRequest,
    ) -> ListWorkflowDlqResponse {
        let after = after_cursor!(ListWorkflowDlqResponse, cursor);
        let limit = count as usize;
        let floor = self.retention_floor();
        match self
            .blocking(move |store| {
                store.list_dlq_json(
                    PageQuery::first(&filter, limit)
                        .after(after.as_deref())
                        .retained_from(floor),
                )
            })
            .await
        {
            Ok(page) => ListWorkflowDlqResponse::Ok(JsonBody::preserialized(page_json(
                page.next_after.as_deref().map(cursor::encode),
                &page.messages,
            ))),
            Err(error) => store_failure!(ListWorkflowDlqResponse, "listing the DLQ", error),
        }
    }

    async fn get_workflow_dlq(
        &self,
        _: (),
        GetWorkflowDlqRequest { dlq_id }: GetWorkflowDlqRequest,
    ) -> GetWorkflowDlqResponse {
        let floor = self.retention_floor();
        found_or_404!(
            GetWorkflowDlqResponse,
            // The record as stored at insert: the full shape, as serde writes it.
            self.read_now(|store| store.get_dlq_json(&dlq_id, floor))
                .map(|found| found.map(JsonBody::preserialized)),
            "reading a DLQ entry",
            format!("no failed run with dlqId `{}` in the DLQ", dlq_id)
        )
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        DeleteWorkflowDlqBulkRequest {
            filter,
            dlq_ids,
            cursor,
            count,
        }: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        let limit = count as usize;
        // The cursor is validated even though `docs/decisions.md#d6-bulk-delete-count` ignores it
        // when ids are given.
        let after = after_cursor!(DeleteWorkflowDlqBulkResponse, cursor);
        // The parser guarantees that a `dlqIds` key, however spelled, carries at least one
        // non-empty id (`docs/decisions.md#d12-multi-value-encoding`), so an empty list here means
        // the key was absent.
        let batch = (filter, after, limit);
        let bulk = self.bulk(
            dlq_ids,
            Store::delete_dlq_ids,
            batch,
            Store::delete_dlq_matching,
        );
        match bulk.await {
            Ok((deleted, next_after)) => DeleteWorkflowDlqBulkResponse::Ok(BulkDeleteResult {
                deleted: deleted as i64,
                cursor: next_after.as_deref().map(cursor::encode),
            }),
            Err(error) => {
                write_failure!(DeleteWorkflowDlqBulkResponse, "deleting DLQ entries", error)
            }
        }
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        DeleteDlqMessageRequest { dlq_id }: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        let deleted = self.change_one(&dlq_id, Store::delete_dlq_one);
        match deleted.await {
            Ok(true) => DeleteDlqMessageResponse::Ok,
            Ok(false) => DeleteDlqMessageResponse::NotFound(error_body(format!(
                "no failed run with dlqId `{}` in the DLQ",
                dlq_id
            ))),
            Err(error) => write_failure!(DeleteDlqMessageResponse, "deleting a DLQ entry", error),
        }
    }

    async fn get_url_group(
        &self,
        _: (),
        GetUrlGroupRequest { url_group_name }: GetUrlGroupRequest,
    ) -> GetUrlGroupResponse {
        found_or_404!(
            GetUrlGroupResponse,
            self.read_now(|store| store.url_group(&url_group_name)),
            "reading a URL group",
            format!("no URL group named `{}`", url_group_name)
        )
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        CancelWorkflowRunRequest {
            workflow_run_id,
            cancel,
        }: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        // `cancel=false` is how the official client ends a finished run
        // (`docs/decisions.md#d19-official-client-compatibility`).
        let finished = cancel == Some(false);
        let cancelled = self.change_one(&workflow_run_id, Store::cancel_run);
        match cancelled.await {
            Ok(true) => {
                if finished {
                    self.usage.add(stats::RUN_SUCCEEDED, now_ms(), 1.0);
                } else {
                    self.count_cancelled(1);
                }
                CancelWorkflowRunResponse::Ok
            }
            Ok(false) => CancelWorkflowRunResponse::NotFound(error_body(format!(
                "no workflow run with id `{}`",
                workflow_run_id
            ))),
            Err(error) => write_failure!(CancelWorkflowRunResponse, "cancelling a run", error),
        }
    }

    // `list_dlq_compat` and `delete_workflow_dlq_message`, the official clients' addresses of
    // list and delete one, answer with those operations' code: the trait's default methods.

    async fn cancel_workflow_runs(
        &self,
        _: (),
        CancelWorkflowRunsRequest {
            filter,
            workflow_run_ids,
            cursor,
            count,
            workflow_url_exact_match,
        }: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        let after = after_cursor!(CancelWorkflowRunsResponse, cursor);
        if workflow_run_ids.is_empty() && filter.is_empty() {
            return CancelWorkflowRunsResponse::BadRequest(error_body(
                "give `workflowRunIds` or at least one filter: a bulk cancel never takes every run by default",
            ));
        }
        let limit = count as usize;
        let url_prefix = workflow_url_exact_match != Some(true);
        let batch = (filter, after, limit);
        let ids = workflow_run_ids;
        let bulk = self.bulk(ids, Store::cancel_runs, batch, move |store, query| {
            store.cancel_runs_matching(query, url_prefix)
        });
        let result = bulk.await;
        match result {
            Ok((cancelled, next_after)) => {
                self.count_cancelled(cancelled);
                CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResult {
                    cancelled: cancelled as i64,
                    cursor: next_after.as_deref().map(cursor::encode),
                })
            }
            Err(error) => write_failure!(CancelWorkflowRunsResponse, "cancelling runs", error),
        }
    }
}

impl ManagementApi for Service {
    type Principal = ();

    async fn authenticate(&self, credentials: ManagementCredentials) -> Result<(), Unauthorized> {
        let account = self.record();
        // Both comparisons always run, so timing does not tell which half was wrong.
        let user_ok = constant_time_eq(&credentials.username, &account.account.customer_id);
        let key_ok = constant_time_eq(&credentials.password, &account.management_key);
        if user_ok & key_ok {
            Ok(())
        } else {
            Err(Unauthorized::basic(
                "the customer id or management key is not valid",
            ))
        }
    }

    async fn get_search_index(
        &self,
        _: (),
        GetSearchIndexRequest { id: index_id }: GetSearchIndexRequest,
    ) -> GetSearchIndexResponse {
        let id = index_id.clone();
        let now = now_ms();
        let result = self
            .blocking(move |store| {
                let Some(mut index) = store.index(&id)? else {
                    return Ok(None);
                };
                index.throughput_vector = stats::index_throughput(store, &id, now)?;
                Ok(Some(index))
            })
            .await;
        found_or_404!(
            GetSearchIndexResponse,
            result,
            "reading a search index",
            format!("no search index with id `{}`", index_id)
        )
    }

    async fn get_search_index_stats(
        &self,
        _: (),
        GetSearchIndexStatsRequest {
            id: index_id,
            period,
        }: GetSearchIndexStatsRequest,
    ) -> GetSearchIndexStatsResponse {
        let id = index_id.clone();
        let now = now_ms();
        let result = self
            .blocking(move |store| match store.index(&id)? {
                Some(_) => stats::index_stats(store, &id, period, now).map(Some),
                None => Ok(None),
            })
            .await;
        found_or_404!(
            GetSearchIndexStatsResponse,
            result,
            "computing index statistics",
            format!("no search index with id `{}`", index_id)
        )
    }

    async fn get_account_stats(
        &self,
        _: (),
        GetAccountStatsRequest { period }: GetAccountStatsRequest,
    ) -> GetAccountStatsResponse {
        if let Err(error) = self.flush_usage().await {
            tracing::warn!(%error, "usage flush before statistics failed; the figures may lag");
        }
        let floor = self.retention_floor();
        let now = now_ms();
        let result = self
            .blocking(move |store| {
                let count = store.dlq_count(floor)?;
                stats::account_stats(store, period, now, count)
            })
            .await;
        match result {
            Ok(stats) => GetAccountStatsResponse::Ok(stats),
            Err(error) => store_failure!(
                GetAccountStatsResponse,
                "computing account statistics",
                error
            ),
        }
    }

    async fn rotate_token(
        &self,
        _: (),
        RotateTokenRequest {}: RotateTokenRequest,
    ) -> RotateTokenResponse {
        let customer_id = self.account().customer_id;
        let (token, password) = rotated_credentials(&customer_id);
        match self
            .blocking(move |store| store.rotate_credentials(&token, &password))
            .await
        {
            Ok(account) => {
                // The store committed first: a crash between the two leaves the new token durable.
                self.set_account(account.clone());
                tracing::info!("messaging credentials rotated");
                RotateTokenResponse::Ok(account)
            }
            Err(error) => write_failure!(RotateTokenResponse, "rotating credentials", error),
        }
    }
}
