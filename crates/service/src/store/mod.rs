//! The durable store behind the service: a small synchronous trait and its two implementations,
//! SQLite (the default: one process, one data directory) and PostgreSQL (several processes,
//! one database).
//!
//! The trait speaks the models' types and keeps the interface's semantics (keyset order by `dlqId`, OR within a filter, AND across,
//! retention floors, one transaction per multi-row change) so the HTTP layer stays thin.

mod postgres;
mod sqlite;

pub use postgres::{PostgresStore, PostgresUrl};
pub use sqlite::{Durability, SqliteStore};

use courier_models::{
    FailedWorkflowRun, MessagingAccount, SearchIndex, UrlGroup, UrlGroupEndpoint,
};

/// Why a store call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The caller's input cannot be stored (duplicate id, ...): a 400.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The data directory has no room for the write (SQLite's `SQLITE_FULL`): a 507. Nothing
    /// of the write was stored. The message names the cause.
    #[error("{0}")]
    Full(String),
    /// The database cannot be reached right now (a PostgreSQL server restarting, every
    /// connection busy): a 503, and the caller may try again. Nothing was changed.
    #[error("{0}")]
    Unavailable(String),
    /// The database failed: a 500.
    #[error("store failure: {0}")]
    Internal(String),
}

/// Every label of an entry: its `labels` and its deprecated `label`, once each (what the label
/// filter matches).
pub(crate) fn labels_of(entry: &FailedWorkflowRun) -> std::collections::BTreeSet<&str> {
    entry
        .labels
        .iter()
        .map(String::as_str)
        .chain(entry.label.as_deref())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The filters of the list and bulk-delete operations: the spec's `DlqFilter` group, generated
/// into `courier-models`. An empty member means "no filter"; a non-empty one matches any of its
/// values (OR); members combine with AND. `from_date`/`to_date` bound `createdAt` inclusively;
/// `label` matches any of an entry's `labels` or its deprecated `label`.
pub use courier_models::DlqFilter;

/// Which matching entries a list page or a bulk change takes: those matching `filter` and
/// created at or after `min_created_at` (retention), after the id `after` in id order, at
/// most `limit`.
#[derive(Clone, Copy, Debug)]
pub struct PageQuery<'a> {
    pub filter: &'a DlqFilter,
    pub after: Option<&'a str>,
    pub limit: usize,
    pub min_created_at: i64,
}

impl<'a> PageQuery<'a> {
    /// The first `limit` entries matching `filter`, with no retention floor.
    pub fn first(filter: &'a DlqFilter, limit: usize) -> PageQuery<'a> {
        PageQuery {
            filter,
            after: None,
            limit,
            min_created_at: 0,
        }
    }

    /// Only the entries after the id `after` (none: from the first).
    pub fn after(self, after: Option<&'a str>) -> Self {
        PageQuery { after, ..self }
    }

    /// Only the entries created at or after `min_created_at` (the retention floor).
    pub fn retained_from(self, min_created_at: i64) -> Self {
        PageQuery {
            min_created_at,
            ..self
        }
    }
}

/// One page of a keyset scan.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    /// Entries in ascending `dlqId` order.
    pub entries: Vec<FailedWorkflowRun>,
    /// The last id of this page when more matching entries exist.
    pub next_after: Option<String>,
}

/// A page of entries as their stored list-shape JSON (`WorkflowDLQMessage`), exactly what serde writes
/// for each `WorkflowDlqMessage`: a list response is these joined, with no entry parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPage {
    /// One JSON object per entry, in ascending `dlqId` order.
    pub messages: Vec<String>,
    /// The last id of this page when more matching entries exist.
    pub next_after: Option<String>,
    /// Whether the page may be kept and served again without reading the store, and while
    /// what holds (`None`: it may not; a store other processes write to never says it may).
    pub keep: Option<KeepWhile>,
}

/// While a kept list page is still what the store would answer for the same query
/// (`docs/decisions.md#d21-kept-list-pages`): no write has committed since it was read (the
/// store's [`list_generation`](Store::list_generation) is still `generation`), and the retention
/// floor has not passed the oldest stored entry (`floor_up_to`), so the floor hides nothing it
/// did not hide when the page was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeepWhile {
    pub generation: u64,
    pub floor_up_to: i64,
}

/// What kind of index activity a usage event records (`docs/decisions.md#d17-index-statistics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IndexActivity {
    Query,
    Update,
    Rerank,
    Embed,
}

impl IndexActivity {
    /// The activity a stored `kind` names (`None`: another kind, a size sample).
    pub fn from_kind(kind: &str) -> Option<IndexActivity> {
        IndexActivity::ALL
            .into_iter()
            .find(|activity| activity.as_str() == kind)
    }

    pub const ALL: [IndexActivity; 4] = [
        IndexActivity::Query,
        IndexActivity::Update,
        IndexActivity::Rerank,
        IndexActivity::Embed,
    ];

    /// The `kind` of the admin API and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexActivity::Query => "query",
            IndexActivity::Update => "update",
            IndexActivity::Rerank => "rerank",
            IndexActivity::Embed => "embed",
        }
    }
}

/// One recorded usage event of a search index, the only source of its statistics
/// (`docs/decisions.md#d17-index-statistics`).
#[derive(Clone, Debug, PartialEq)]
pub enum IndexUsage {
    /// `count` requests of one kind; `latency_ms` is the latency of each of them.
    Activity {
        activity: IndexActivity,
        at: i64,
        count: u64,
        latency_ms: Option<f64>,
        bytes: u64,
    },
    /// The index's size at `at`.
    Size {
        at: i64,
        vector_count: u64,
        data_size: u64,
        pending: u64,
    },
}

impl IndexUsage {
    pub fn at(&self) -> i64 {
        match self {
            IndexUsage::Activity { at, .. } | IndexUsage::Size { at, .. } => *at,
        }
    }
}

/// What [`Store::spend_request`] counted: the requests in the current second and day after
/// this one (a refused request is not counted), and which limit refused it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpentRequest {
    pub second_used: u64,
    pub day_used: u64,
    pub refused: Option<crate::ratelimit::Refusal>,
}

/// The rules every store applies the same way, whatever its SQL: written once here.
///
/// A page is scanned one entry past `limit`; that extra entry only says more follow. Cut to
/// `limit`, and the id (`id_of`) of the page's last entry when more matched: the keyset cursor.
pub(crate) fn cut_page<T>(
    mut rows: Vec<T>,
    limit: usize,
    id_of: impl Fn(&T) -> &str,
) -> (Vec<T>, Option<String>) {
    let more = rows.len() > limit;
    rows.truncate(limit);
    let next_after = more
        .then(|| rows.last().map(|row| id_of(row).to_owned()))
        .flatten();
    (rows, next_after)
}

/// Whether a cancelled run counted as there (see [`Store::cancel_run`]), from what the cancel
/// found: its `live` entries (within retention), its `expired` ones, and whether a run row was
/// removed. A run whose only entries are past retention is gone already
/// (`docs/decisions.md#d13-retention-and-dlq-size`): what is left of it is removed as the purge
/// would, and the caller hears 404.
pub(crate) fn cancelled_run_was_there(live: u64, expired: u64, run_removed: bool) -> bool {
    live > 0 || (run_removed && expired == 0)
}

/// The URL group `name` as a put leaves it: `createdAt` kept from the group it replaces.
pub(crate) fn put_url_group_record(
    existing: Option<UrlGroup>,
    name: &str,
    endpoints: &[UrlGroupEndpoint],
    now_ms: i64,
) -> UrlGroup {
    UrlGroup {
        created_at: existing.map_or(now_ms, |group| group.created_at),
        updated_at: now_ms,
        name: name.to_owned(),
        endpoints: endpoints.to_vec(),
    }
}

/// A console session kept in a store several processes share, so that a sign-in through one
/// process holds on every other (`console::auth` keeps them in memory otherwise).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleSession {
    pub csrf: String,
    /// Unix milliseconds after which the session is gone.
    pub expires_at_ms: i64,
    /// The management key at sign-in: a changed key ends the session.
    pub management_key: String,
}

/// What [`Store::insert_dlq`] stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inserted {
    /// The ids of the entries, in input order.
    pub dlq_ids: Vec<String>,
    /// Runs registered for the first time (a statistics `run_started` each).
    pub new_runs: u64,
}

/// A workflow run that can be cancelled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActiveRun {
    pub workflow_run_id: String,
    pub workflow_url: String,
    pub workflow_created_at: i64,
}

/// Everything the service keeps. Synchronous: the HTTP layer calls it on the blocking pool.
pub trait Store: Send + Sync + 'static {
    /// The account, if one was created.
    fn account(&self) -> Result<Option<MessagingAccount>, StoreError>;
    /// The management key (Basic password) of the account.
    fn management_key(&self) -> Result<Option<String>, StoreError>;
    /// Creates the one account with its management key, atomically.
    fn create_account(
        &self,
        account: &MessagingAccount,
        management_key: &str,
    ) -> Result<(), StoreError>;
    /// Replaces the account record (limits); credentials are kept as given.
    fn update_account(&self, account: &MessagingAccount) -> Result<(), StoreError>;
    /// Replaces the messaging token and password; returns the updated account.
    fn rotate_credentials(
        &self,
        token: &str,
        password: &str,
    ) -> Result<MessagingAccount, StoreError>;

    /// Adds entries in one transaction. An empty `dlq_id` gets `<createdAt>-<seq>`; a duplicate
    /// id stores nothing. Each entry also registers its run. Past `max_dlq_size` entries, the
    /// oldest are evicted in the same transaction. Returns the ids in input order and how many
    /// runs were registered for the first time.
    fn insert_dlq(
        &self,
        entries: &[FailedWorkflowRun],
        max_dlq_size: u64,
    ) -> Result<Inserted, StoreError>;
    /// One entry, unless it is missing or created before `min_created_at` (retention).
    fn get_dlq(
        &self,
        dlq_id: &str,
        min_created_at: i64,
    ) -> Result<Option<FailedWorkflowRun>, StoreError>;
    /// The entries `query` takes, in `dlqId` order.
    fn list_dlq(&self, query: PageQuery<'_>) -> Result<Page, StoreError>;
    /// [`Store::get_dlq`] as the entry's stored JSON: the full shape (`FailedWorkflowRun`), exactly
    /// what serde writes for the `FailedWorkflowRun`.
    fn get_dlq_json(&self, dlq_id: &str, min_created_at: i64)
    -> Result<Option<String>, StoreError>;
    /// [`Store::list_dlq`] as each entry's stored list-shape JSON (see [`JsonPage`]).
    fn list_dlq_json(&self, query: PageQuery<'_>) -> Result<JsonPage, StoreError>;

    /// A number that grows with every committed write, read before a list page is read (see
    /// [`KeepWhile`]); `None` on a store other processes write to, whose writes this process
    /// cannot see coming, so that no page is ever kept there.
    fn list_generation(&self) -> Option<u64> {
        None
    }
    /// Deletes these ids (unknown ones, and ones created before `min_created_at`, skipped) in one
    /// transaction; returns how many went.
    fn delete_dlq_ids(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError>;
    /// Deletes the entries `query` takes in one transaction; returns the count and, when more
    /// may match, the last id deleted.
    fn delete_dlq_matching(
        &self,
        query: PageQuery<'_>,
    ) -> Result<(u64, Option<String>), StoreError>;
    /// Deletes one entry; false when there was none created at or after `min_created_at`.
    fn delete_dlq_one(&self, dlq_id: &str, min_created_at: i64) -> Result<bool, StoreError>;
    /// Entries created at or after `min_created_at`.
    fn dlq_count(&self, min_created_at: i64) -> Result<u64, StoreError>;
    /// How many entries match `filter`, counting at most `at_most` (so a console showing the
    /// count never scans an unbounded DLQ). Uses the same filter SQL as [`Store::list_dlq`].
    fn dlq_count_matching(
        &self,
        filter: &DlqFilter,
        min_created_at: i64,
        at_most: usize,
    ) -> Result<u64, StoreError>;
    /// Physically removes entries created before `min_created_at`, and the runs that entered
    /// the DLQ and have no entry left.
    fn purge_expired(&self, min_created_at: i64) -> Result<u64, StoreError>;
    /// The deletes above only mark entries (every read honours the mark at once); this removes
    /// up to `at_most` marked entries for good, in one small transaction, and returns how many.
    /// The upkeep calls it until it returns 0. Paced: while requests write, it takes a batch of
    /// at most 100 at most every 100 ms (0 otherwise), so it never holds them up for long.
    fn reclaim_deleted(&self, at_most: usize) -> Result<u64, StoreError>;

    /// Registers runs (existing ones are kept); returns how many were new.
    fn insert_runs(&self, runs: &[ActiveRun]) -> Result<u64, StoreError>;
    /// Removes a run and every DLQ entry of it; false when no such run exists, or when every
    /// entry it has was created before `min_created_at` (past retention, so already gone).
    fn cancel_run(&self, workflow_run_id: &str, min_created_at: i64) -> Result<bool, StoreError>;
    /// Cancels these runs (as [`Store::cancel_run`], unknown ones skipped) in one transaction;
    /// returns how many were cancelled.
    fn cancel_runs(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError>;
    /// Cancels the runs `query` takes (by run id: `after` and `limit` count runs) in one
    /// transaction: `workflow_url` as a prefix when `url_prefix`, run attributes on the run,
    /// entry filters on its live DLQ entries. Returns the count and, when more may match, the
    /// last run id taken.
    fn cancel_runs_matching(
        &self,
        query: PageQuery<'_>,
        url_prefix: bool,
    ) -> Result<(u64, Option<String>), StoreError>;

    /// Creates or replaces a URL group, keeping `createdAt` on replace.
    fn put_url_group(
        &self,
        name: &str,
        endpoints: &[UrlGroupEndpoint],
        now_ms: i64,
    ) -> Result<UrlGroup, StoreError>;
    fn url_group(&self, name: &str) -> Result<Option<UrlGroup>, StoreError>;
    /// Every URL group, by name (the console's topics page).
    fn url_groups(&self) -> Result<Vec<UrlGroup>, StoreError>;

    fn put_index(&self, index: &SearchIndex) -> Result<(), StoreError>;
    fn index(&self, id: &str) -> Result<Option<SearchIndex>, StoreError>;
    /// Every search index, by id (the console's index list).
    fn indexes(&self) -> Result<Vec<SearchIndex>, StoreError>;
    /// Records usage events of an index in one transaction; false (nothing stored) when there
    /// is no such index.
    fn record_index_usage(&self, index_id: &str, events: &[IndexUsage])
    -> Result<bool, StoreError>;
    /// The usage events of an index with `from_ms <= at <= to_ms`, in time order, preceded by
    /// the last size sample before `from_ms` (if any), from which sizes carry forward.
    fn index_usage_between(
        &self,
        index_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<IndexUsage>, StoreError>;

    /// Adds `(metric, minute_ms, amount)` counters in one transaction.
    fn add_usage_batch(&self, counters: &[(String, i64, f64)]) -> Result<(), StoreError>;
    /// Why writes that add data are refused right now (the data directory is full), or `None`.
    /// While they are refused each call checks whether space has returned, so the service
    /// recovers by itself. Deletes are never refused: they are how an operator frees space.
    fn write_refusal(&self) -> Option<String> {
        None
    }

    /// Whether [`write_refusal`](Self::write_refusal) may have a reason now: a check that takes
    /// no lock but its own and touches neither the disk nor the database, so a caller on an async
    /// thread asks this first and sends only a store that is refusing to the blocking pool.
    fn may_refuse_writes(&self) -> bool {
        false
    }

    /// Why the store cannot serve right now (its database unreachable), or `None`: what
    /// `/health` reports. An embedded store is always there.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// On a store several processes share, counts one request against the account's limits in
    /// the store, so that every process spends one budget; `None` (nothing counted) on a store of
    /// one process, whose service counts in memory.
    fn spend_request(
        &self,
        _windows: crate::ratelimit::Windows,
        _per_second: u64,
        _per_day: u64,
    ) -> Result<Option<SpentRequest>, StoreError> {
        Ok(None)
    }

    /// Keeps a console session under `id` (shared stores only; see [`ConsoleSession`]), and
    /// drops the expired ones.
    fn save_console_session(
        &self,
        _id: &str,
        _session: &ConsoleSession,
        _now_ms: i64,
    ) -> Result<(), StoreError> {
        Err(StoreError::Internal(
            "this store keeps no console sessions".into(),
        ))
    }

    /// The live console session `id`, if any (shared stores only).
    fn console_session(
        &self,
        _id: &str,
        _now_ms: i64,
    ) -> Result<Option<ConsoleSession>, StoreError> {
        Ok(None)
    }

    /// Ends the console session `id` (shared stores only).
    fn end_console_session(&self, _id: &str) -> Result<(), StoreError> {
        Ok(())
    }

    /// Leaves a one-time notice for the next page of session `id` (`None` takes it away), and
    /// returns the one that was there (shared stores only).
    fn swap_console_flash(
        &self,
        _id: &str,
        _flash: Option<&str>,
    ) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// Whether other processes may share this store (PostgreSQL): the service then reads the
    /// account and its credentials from the store on every request rather than from memory, so
    /// a rotation through one process is refused by every other at once. Such a store is across
    /// the network, so the service never calls it from an async thread (even a point read).
    fn shared(&self) -> bool {
        false
    }

    /// Per-minute values of `metric` with `from_ms <= minute <= to_ms`.
    fn usage_between(
        &self,
        metric: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<(i64, f64)>, StoreError>;
}
