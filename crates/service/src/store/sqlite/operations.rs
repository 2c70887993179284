//! The [`Store`] methods: each one transaction on the writer, or one read on a reader.

use super::pool::{HEADROOM_PAGES, RESERVE_BYTES};
use super::scan::{Read, all_records, runs_matching_sql, scan};
use super::schema::{
    ACCOUNT_RECORD, ANY_MARK, EXPIRED_RUNS_DELETE, INDEX_RECORD, LABEL_ENTRY, LIVE_COUNT,
    MANAGEMENT_KEY, MARK_DELETED, MARK_ROW_DELETED, URL_GROUP_RECORD,
};
use super::steps::{
    cancel_in, json_page, next_sequence, reclaim_marked, reclaim_marked_id, scan_page,
};
use super::{SqliteStore, from_json, lock, optional_record, optional_value, to_json, usage};
use crate::store::{
    ActiveRun, DlqFilter, IndexUsage, Inserted, JsonPage, Page, PageQuery, Store, StoreError,
    cut_page, labels_of, put_url_group_record,
};
use courier_models::{
    FailedWorkflowRun, MessagingAccount, SearchIndex, UrlGroup, UrlGroupEndpoint,
    WorkflowDlqMessage,
};
use rusqlite::{OptionalExtension, params, params_from_iter};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::Ordering;

impl Store for SqliteStore {
    fn account(&self) -> Result<Option<MessagingAccount>, StoreError> {
        optional_record(&lock(&self.writer), ACCOUNT_RECORD, [])
    }

    fn management_key(&self) -> Result<Option<String>, StoreError> {
        optional_value(&lock(&self.writer), MANAGEMENT_KEY, [])
    }

    fn create_account(
        &self,
        account: &MessagingAccount,
        management_key: &str,
    ) -> Result<(), StoreError> {
        self.write(|t| insert_account(t, account, management_key))
    }

    fn update_account(&self, account: &MessagingAccount) -> Result<(), StoreError> {
        let record = to_json(account)?;
        self.write(|t| {
            match t.execute(
                "UPDATE account SET record = ?1 WHERE id = 1",
                params![record],
            )? {
                1 => Ok(()),
                _ => Err(StoreError::Invalid("there is no account to update".into())),
            }
        })
    }

    fn rotate_credentials(
        &self,
        token: &str,
        password: &str,
    ) -> Result<MessagingAccount, StoreError> {
        self.write(|t| {
            let mut account: MessagingAccount =
                optional_record(t, "SELECT record FROM account WHERE id = 1", [])?
                    .ok_or_else(|| StoreError::Invalid("there is no account to rotate".into()))?;
            account.token = token.to_owned();
            account.password = password.to_owned();
            t.execute(
                "UPDATE account SET record = ?1 WHERE id = 1",
                params![to_json(&account)?],
            )?;
            Ok(account)
        })
    }

    fn insert_dlq(
        &self,
        entries: &[FailedWorkflowRun],
        max_dlq_size: u64,
    ) -> Result<Inserted, StoreError> {
        self.write(|t| {
            let generated = entries.iter().filter(|e| e.dlq_id.is_empty()).count() as u64;
            let mut sequence = next_sequence(t, generated)?;
            let mut ids = Vec::with_capacity(entries.len());
            let mut new_runs = 0;
            let mut insert = t
                .prepare_cached(
                    "INSERT INTO dlq_rows (dlq_id, created_at, workflow_url, workflow_run_id, workflow_created_at,
                                      failure_state, caller_ip, flow_control_key, record, listed)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                ?;
            let mut label = t.prepare_cached(LABEL_ENTRY)?;
            let mut run = t
                .prepare_cached("INSERT OR IGNORE INTO runs (workflow_run_id, workflow_url, workflow_created_at) VALUES (?1, ?2, ?3)")
                ?;
            for entry in entries {
                let mut entry = entry.clone();
                if entry.dlq_id.is_empty() {
                    entry.dlq_id = format!("{}-{sequence}", entry.created_at);
                    sequence += 1;
                }
                let state = entry.failure_callback_info.as_ref().map(|info| info.state.to_string());
                let record = to_json(&entry)?;
                // Both shapes as serde writes them, once: reads serve these bytes as they are.
                let listed = to_json(&WorkflowDlqMessage::from(entry.clone()))?;
                let row = params![
                    entry.dlq_id,
                    entry.created_at,
                    entry.workflow_url,
                    entry.workflow_run_id,
                    entry.workflow_created_at,
                    state,
                    entry.caller_ip,
                    entry.flow_control_key,
                    record,
                    listed,
                ];
                match insert.execute(row) {
                    Ok(_) => {}
                    // The id may belong to a deleted entry not reclaimed yet: reclaim it now.
                    Err(rusqlite::Error::SqliteFailure(e, _))
                        if e.code == rusqlite::ErrorCode::ConstraintViolation
                            && reclaim_marked_id(t, &entry.dlq_id)? =>
                    {
                        insert.execute(row)?;
                    }
                    Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => {
                        return Err(StoreError::Invalid(format!("dlqId `{}` is already in the DLQ", entry.dlq_id)));
                    }
                    Err(e) => return Err(e.into()),
                }
                let seq = t.last_insert_rowid();
                for name in labels_of(&entry) {
                    label.execute(params![name, seq])?;
                }
                new_runs += run.execute(params![entry.workflow_run_id, entry.workflow_url, entry.workflow_created_at])? as u64;
                ids.push(entry.dlq_id);
            }
            let total: u64 = t.query_row(LIVE_COUNT, params![i64::MIN], |r| r.get(0))?;
            if total > max_dlq_size {
                // A full DLQ evicts its oldest (`docs/decisions.md#d13-retention-and-dlq-size`).
                t.execute(
                    &format!("{MARK_DELETED} seq IN (SELECT seq FROM dlq ORDER BY created_at, dlq_id LIMIT ?1)"),
                    params![total - max_dlq_size],
                )
                ?;
            }
            Ok(Inserted { dlq_ids: ids, new_runs })
        })
    }

    fn get_dlq(
        &self,
        dlq_id: &str,
        min_created_at: i64,
    ) -> Result<Option<FailedWorkflowRun>, StoreError> {
        self.get_dlq_json(dlq_id, min_created_at)?
            .map(|text| from_json(&text))
            .transpose()
    }

    fn get_dlq_json(
        &self,
        dlq_id: &str,
        min_created_at: i64,
    ) -> Result<Option<String>, StoreError> {
        self.read(|c| {
            c.prepare_cached("SELECT record FROM dlq WHERE dlq_id = ?1 AND created_at >= ?2")
                .and_then(|mut s| {
                    s.query_row(params![dlq_id, min_created_at], |r| r.get(0))
                        .optional()
                })
                .map_err(StoreError::from)
        })
    }

    fn list_dlq(&self, query: PageQuery<'_>) -> Result<Page, StoreError> {
        self.read(|c| {
            let (rows, next_after) = scan_page(c, query, Read::Records)?;
            let entries = rows
                .iter()
                .map(|row| from_json(&row.text))
                .collect::<Result<Vec<FailedWorkflowRun>, _>>()?;
            Ok(Page {
                entries,
                next_after,
            })
        })
    }

    fn list_dlq_json(&self, query: PageQuery<'_>) -> Result<JsonPage, StoreError> {
        // Before the read: a write that commits from here on moves the generation past it,
        // so the page is never kept as newer than it is (`KeepWhile`).
        let generation = self.list_generation.load(Ordering::Acquire);
        self.read(|c| json_page(c, query, generation))
    }

    fn list_generation(&self) -> Option<u64> {
        Some(self.list_generation.load(Ordering::Acquire))
    }

    fn delete_dlq_ids(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError> {
        let ids: Vec<&String> = ids.iter().collect::<BTreeSet<_>>().into_iter().collect();
        // One transaction, unless the disk is full: then parts small enough to fit, each whole.
        let (mut deleted, mut start, mut part) = (0, 0, ids.len());
        while start < ids.len() {
            let end = (start + part).min(ids.len());
            let result = self.shrink(|t| {
                // Past retention is gone already: not deleted, not counted (`docs/decisions.md#d13-retention-and-dlq-size`).
                let mut delete =
                    t.prepare_cached(&format!("{MARK_DELETED} dlq_id = ?1 AND created_at >= ?2"))?;
                let mut deleted = 0;
                for id in &ids[start..end] {
                    deleted += delete.execute(params![id, min_created_at])? as u64;
                }
                Ok(deleted)
            });
            match result {
                Ok(count) => (deleted, start) = (deleted + count, end),
                Err(StoreError::Full(_)) if part > 1 => part = part.div_ceil(4),
                Err(error) => return Err(error),
            }
        }
        Ok(deleted)
    }

    fn delete_dlq_matching(
        &self,
        query: PageQuery<'_>,
    ) -> Result<(u64, Option<String>), StoreError> {
        // On a full disk a smaller batch may fit where a whole one does not; the cursor it
        // returns covers the rest, as the interface allows ("at most `count`").
        let mut limit = query.limit;
        let (filter, after, min_created_at) = (query.filter, query.after, query.min_created_at);
        loop {
            let result = self.shrink(|t| {
                let rows = scan(t, filter, after, limit + 1, min_created_at, Read::Ids)?;
                let (rows, next_after) = cut_page(rows, limit, |row| &row.dlq_id);
                // Marked by the row numbers the scan read: no second lookup by id.
                let mut delete = t.prepare_cached(MARK_ROW_DELETED)?;
                for row in &rows {
                    delete.execute(params![row.seq])?;
                }
                Ok((rows.len() as u64, next_after))
            });
            match result {
                Err(StoreError::Full(_)) if limit > 1 => limit = limit.div_ceil(4),
                other => return other,
            }
        }
    }

    fn delete_dlq_one(&self, dlq_id: &str, min_created_at: i64) -> Result<bool, StoreError> {
        self.shrink(|t| {
            Ok(t.execute(
                &format!("{MARK_DELETED} dlq_id = ?1 AND created_at >= ?2"),
                params![dlq_id, min_created_at],
            )? > 0)
        })
    }

    fn dlq_count(&self, min_created_at: i64) -> Result<u64, StoreError> {
        self.read(|c| {
            c.query_row(LIVE_COUNT, params![min_created_at], |r| r.get(0))
                .map_err(StoreError::from)
        })
    }

    fn dlq_count_matching(
        &self,
        filter: &DlqFilter,
        min_created_at: i64,
        at_most: usize,
    ) -> Result<u64, StoreError> {
        // Ids only: the same scan as a list, without reading any record.
        self.read(|c| Ok(scan(c, filter, None, at_most, min_created_at, Read::Ids)?.len() as u64))
    }

    fn purge_expired(&self, min_created_at: i64) -> Result<u64, StoreError> {
        self.shrink(|t| {
            // A run that entered the DLQ and has no entry left within retention is gone with
            // its entries, so cancel answers the same before and after a purge (`docs/decisions.md#d13-retention-and-dlq-size`).
            t.execute(EXPIRED_RUNS_DELETE, params![min_created_at])?;
            // Expired entries go for good, marked or not; the count is of the live ones.
            let marked = t.execute(
                "DELETE FROM dlq_tombstones WHERE seq IN (SELECT rowid FROM dlq_rows WHERE created_at < ?1)",
                params![min_created_at],
            )?;
            let rows = t.execute(
                "DELETE FROM dlq_rows WHERE created_at < ?1",
                params![min_created_at],
            )?;
            Ok((rows - marked) as u64)
        })
    }

    fn reclaim_deleted(&self, at_most: usize) -> Result<u64, StoreError> {
        let allowed = lock(&self.pacing).allowance(at_most);
        // Without marks, no write transaction: on a full store, `remove` would also compact
        // (truncating the write-ahead log) on every tick of the upkeep, where only deletes
        // that went through should give space back.
        if allowed == 0 || !self.read(|c| Ok(optional_value::<i64>(c, ANY_MARK, [])?.is_some()))? {
            return Ok(0);
        }
        self.remove(|t| reclaim_marked(t, allowed))
    }

    fn insert_runs(&self, runs: &[ActiveRun]) -> Result<u64, StoreError> {
        self.write(|t| {
            let mut insert = t
                .prepare_cached(
                    "INSERT INTO runs (workflow_run_id, workflow_url, workflow_created_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (workflow_run_id) DO NOTHING",
                )
                ?;
            let mut registered = 0;
            for run in runs {
                registered += insert.execute(params![run.workflow_run_id, run.workflow_url, run.workflow_created_at])? as u64;
            }
            Ok(registered)
        })
    }

    fn cancel_run(&self, workflow_run_id: &str, min_created_at: i64) -> Result<bool, StoreError> {
        self.shrink(|t| cancel_in(t, workflow_run_id, min_created_at))
    }

    fn cancel_runs(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError> {
        self.shrink(|t| {
            let mut cancelled = 0;
            for id in ids.iter().collect::<BTreeSet<_>>() {
                cancelled += u64::from(cancel_in(t, id, min_created_at)?);
            }
            Ok(cancelled)
        })
    }

    fn cancel_runs_matching(
        &self,
        query: PageQuery<'_>,
        url_prefix: bool,
    ) -> Result<(u64, Option<String>), StoreError> {
        let limit = query.limit;
        let min_created_at = query.min_created_at;
        self.shrink(|t| {
            let (sql, values) = runs_matching_sql(
                query.filter,
                url_prefix,
                query.after,
                limit + 1,
                min_created_at,
            );
            let ids: Vec<String> = t.prepare(&sql).and_then(|mut statement| {
                statement
                    .query_map(params_from_iter(values), |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()
            })?;
            let (ids, next_after) = cut_page(ids, limit, String::as_str);
            let mut cancelled = 0;
            for id in &ids {
                cancelled += u64::from(cancel_in(t, id, min_created_at)?);
            }
            Ok((cancelled, next_after))
        })
    }

    fn put_url_group(
        &self,
        name: &str,
        endpoints: &[UrlGroupEndpoint],
        now_ms: i64,
    ) -> Result<UrlGroup, StoreError> {
        self.write(|t| {
            let existing: Option<UrlGroup> =
                optional_record(t, URL_GROUP_RECORD, params![name])?;
            let group = put_url_group_record(existing, name, endpoints, now_ms);
            t.execute(
                "INSERT INTO url_groups (name, record) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET record = excluded.record",
                params![name, to_json(&group)?],
            )
            ?;
            Ok(group)
        })
    }

    fn url_group(&self, name: &str) -> Result<Option<UrlGroup>, StoreError> {
        self.read(|c| optional_record(c, URL_GROUP_RECORD, params![name]))
    }

    fn url_groups(&self) -> Result<Vec<UrlGroup>, StoreError> {
        self.read(|c| all_records(c, "SELECT record FROM url_groups ORDER BY name"))
    }

    fn put_index(&self, index: &SearchIndex) -> Result<(), StoreError> {
        let record = to_json(index)?;
        let id = index.id.to_string();
        self.write(|t| {
            t.execute(
                "INSERT INTO search_indexes (id, record) VALUES (?1, ?2) ON CONFLICT (id) DO UPDATE SET record = excluded.record",
                params![id, record],
            )
            ?;
            Ok(())
        })
    }

    fn index(&self, id: &str) -> Result<Option<SearchIndex>, StoreError> {
        // Ids are UUIDs, stored lower-case; a path with upper-case hex finds the same index.
        let id = id.to_ascii_lowercase();
        self.read(|c| optional_record(c, INDEX_RECORD, params![id]))
    }

    fn indexes(&self) -> Result<Vec<SearchIndex>, StoreError> {
        self.read(|c| all_records(c, "SELECT record FROM search_indexes ORDER BY id"))
    }

    fn record_index_usage(
        &self,
        index_id: &str,
        events: &[IndexUsage],
    ) -> Result<bool, StoreError> {
        let index_id = index_id.to_ascii_lowercase();
        self.write(|t| usage::record_index_usage(t, &index_id, events))
    }

    fn index_usage_between(
        &self,
        index_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<IndexUsage>, StoreError> {
        let index_id = index_id.to_ascii_lowercase();
        self.read(|c| usage::index_usage_between(c, &index_id, from_ms, to_ms))
    }

    fn add_usage_batch(&self, counters: &[(String, i64, f64)]) -> Result<(), StoreError> {
        self.write(|t| usage::add_usage_batch(t, counters))
    }

    fn may_refuse_writes(&self) -> bool {
        lock(&self.full).is_some()
    }

    fn write_refusal(&self) -> Option<String> {
        let mut full = lock(&self.full);
        let reason = full.clone()?;
        let headroom = Self::page_headroom(&lock(&self.writer)).unwrap_or(0);
        // Room for the reserve and a quarter more for writes: the released reserve's own space
        // coming back is not space returning.
        let room = self
            .reserve
            .parent()
            .map(|dir| match dir.as_os_str().is_empty() {
                true => Path::new("."),
                false => dir,
            })
            .and_then(|dir| fs4::available_space(dir).ok())
            .unwrap_or(0);
        if headroom < HEADROOM_PAGES
            || room < RESERVE_BYTES + RESERVE_BYTES / 4
            || self.allocate_reserve().is_err()
        {
            return Some(reason);
        }
        tracing::info!("storage has room again: accepting writes");
        *full = None;
        None
    }

    fn usage_between(
        &self,
        metric: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.read(|c| usage::usage_between(c, metric, from_ms, to_ms))
    }
}

/// Writes the account of a new store: by [`Store::create_account`], or into a new durable store's
/// image before its first flush.
pub(super) fn insert_account(
    connection: &rusqlite::Connection,
    account: &MessagingAccount,
    management_key: &str,
) -> Result<(), StoreError> {
    let record = to_json(account)?;
    connection
        .execute(
            "INSERT INTO account (id, record, management_key) VALUES (1, ?1, ?2)",
            params![record, management_key],
        )
        .map_err(|e| StoreError::Invalid(format!("the account already exists: {e}")))?;
    Ok(())
}
