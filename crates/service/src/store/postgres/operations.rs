//! The [`Store`] methods on PostgreSQL: each one transaction, or one read.

use super::scan::runs_matching_sql;
use super::schema::SCOPED_LOCK;
use super::steps::{Read, all_records, cancel_in, count, optional_record, scan, scan_page};
use super::{PostgresStore, from_json, to_json, usage};
use crate::store::{
    ActiveRun, ConsoleSession, DlqFilter, IndexUsage, Inserted, JsonPage, Page, PageQuery,
    SpentRequest, Store, StoreError, cut_page, put_url_group_record,
};
use courier_models::{
    FailedWorkflowRun, MessagingAccount, SearchIndex, UrlGroup, UrlGroupEndpoint,
    WorkflowDlqMessage,
};
use postgres::Row;
use postgres::error::SqlState;
use std::collections::BTreeSet;

/// Held by every insert's transaction: inserts happen one at a time across every process, so
/// the count they evict by is exact (two concurrent inserts would each see the other's rows
/// missing and evict too few).
const INSERT_LOCK: i32 = 2;

const PURGE_LOCK: i32 = PostgresStore::PURGE_LOCK;

impl Store for PostgresStore {
    fn account(&self) -> Result<Option<MessagingAccount>, StoreError> {
        self.read(|c| optional_record(c, "SELECT record FROM account WHERE id = 1", &[]))
    }

    fn management_key(&self) -> Result<Option<String>, StoreError> {
        self.read(|c| {
            Ok(
                c.query_opt("SELECT management_key FROM account WHERE id = 1", &[])?
                    .map(|row| row.get(0)),
            )
        })
    }

    fn create_account(
        &self,
        account: &MessagingAccount,
        management_key: &str,
    ) -> Result<(), StoreError> {
        let record = to_json(account)?;
        self.write(|t| {
            t.execute(
                "INSERT INTO account (id, record, management_key) VALUES (1, $1, $2)",
                &[&record, &management_key],
            )
            .map_err(|e| match e.code() {
                Some(code) if *code == SqlState::UNIQUE_VIOLATION => {
                    StoreError::Invalid(format!("the account already exists: {e}"))
                }
                _ => StoreError::from(e),
            })?;
            Ok(())
        })
    }

    fn update_account(&self, account: &MessagingAccount) -> Result<(), StoreError> {
        let record = to_json(account)?;
        self.write(|t| {
            match t.execute("UPDATE account SET record = $1 WHERE id = 1", &[&record])? {
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
                optional_record(t, "SELECT record FROM account WHERE id = 1 FOR UPDATE", &[])?
                    .ok_or_else(|| StoreError::Invalid("there is no account to rotate".into()))?;
            account.token = token.to_owned();
            account.password = password.to_owned();
            t.execute(
                "UPDATE account SET record = $1 WHERE id = 1",
                &[&to_json(&account)?],
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
            t.execute(&format!("SELECT pg_advisory_xact_lock({SCOPED_LOCK})"), &[&INSERT_LOCK])?;
            // This transaction adds its entries to the count once, below, instead of the
            // trigger doing so per row (schema migration 4).
            t.execute("SELECT set_config('courier.batch_counted', 'on', true)", &[])?;
            let insert = t.prepare(
                "INSERT INTO dlq (dlq_id, created_at, workflow_url, workflow_run_id, workflow_created_at,
                                  failure_state, caller_ip, flow_control_key, labels, record, listed)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (dlq_id) DO NOTHING",
            )?;
            let run = t.prepare(
                "INSERT INTO runs (workflow_run_id, workflow_url, workflow_created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (workflow_run_id) DO NOTHING",
            )?;
            let mut ids = Vec::with_capacity(entries.len());
            let mut new_runs = 0;
            for entry in entries {
                let mut entry = entry.clone();
                if entry.dlq_id.is_empty() {
                    let sequence: i64 =
                        t.query_one("SELECT nextval('dlq_generated_ids') - 1", &[])?.get(0);
                    entry.dlq_id = format!("{}-{sequence}", entry.created_at);
                }
                let state = entry
                    .failure_callback_info
                    .as_ref()
                    .map(|info| info.state.to_string());
                let labels: Vec<String> = crate::store::labels_of(&entry)
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                let record = to_json(&entry)?;
                // Both shapes as serde writes them, once: reads serve these bytes as they are.
                let listed = to_json(&WorkflowDlqMessage::from(entry.clone()))?;
                let inserted = t.execute(
                    &insert,
                    &[
                        &entry.dlq_id,
                        &entry.created_at,
                        &entry.workflow_url,
                        &entry.workflow_run_id,
                        &entry.workflow_created_at,
                        &state,
                        &entry.caller_ip,
                        &entry.flow_control_key,
                        &labels,
                        &record,
                        &listed,
                    ],
                )?;
                if inserted == 0 {
                    return Err(StoreError::Invalid(format!(
                        "dlqId `{}` is already in the DLQ",
                        entry.dlq_id
                    )));
                }
                new_runs += t.execute(
                    &run,
                    &[
                        &entry.workflow_run_id,
                        &entry.workflow_url,
                        &entry.workflow_created_at,
                    ],
                )?;
                ids.push(entry.dlq_id);
            }
            let added = i64::try_from(ids.len()).unwrap_or(i64::MAX);
            let total: i64 = t
                .query_one(
                    "UPDATE meta SET value = value + $1 WHERE key = 'dlq_entries' RETURNING value",
                    &[&added],
                )?
                .get(0);
            let total = count(total);
            if total > max_dlq_size {
                // A full DLQ evicts its oldest (as on SQLite).
                let excess = i64::try_from(total - max_dlq_size).unwrap_or(i64::MAX);
                t.execute(
                    "DELETE FROM dlq WHERE dlq_id IN
                         (SELECT dlq_id FROM dlq ORDER BY created_at, dlq_id LIMIT $1)",
                    &[&excess],
                )?;
            }
            Ok(Inserted {
                dlq_ids: ids,
                new_runs,
            })
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
            Ok(c.query_opt(
                "SELECT record FROM dlq WHERE dlq_id = $1 AND created_at >= $2",
                &[&dlq_id, &min_created_at],
            )?
            .map(|row: Row| row.get(0)))
        })
    }

    fn list_dlq(&self, query: PageQuery<'_>) -> Result<Page, StoreError> {
        self.read(|c| {
            let (rows, next_after) = scan_page(c, query, Read::Records)?;
            let entries = rows
                .iter()
                .map(|(_, text)| from_json(text))
                .collect::<Result<Vec<FailedWorkflowRun>, _>>()?;
            Ok(Page {
                entries,
                next_after,
            })
        })
    }

    fn list_dlq_json(&self, query: PageQuery<'_>) -> Result<JsonPage, StoreError> {
        self.read(|c| {
            let (rows, next_after) = scan_page(c, query, Read::Listed)?;
            Ok(JsonPage {
                messages: rows.into_iter().map(|(_, text)| text).collect(),
                next_after,
                // Other processes write here unseen: a kept page could outlive their writes.
                keep: None,
            })
        })
    }

    fn delete_dlq_ids(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError> {
        let ids: Vec<&String> = ids.iter().collect::<BTreeSet<_>>().into_iter().collect();
        self.write(|t| {
            Ok(t.execute(
                "DELETE FROM dlq WHERE dlq_id = ANY($1) AND created_at >= $2",
                &[&ids, &min_created_at],
            )?)
        })
    }

    fn delete_dlq_matching(
        &self,
        query: PageQuery<'_>,
    ) -> Result<(u64, Option<String>), StoreError> {
        self.write(|t| {
            let (rows, next_after) = scan_page(t, query, Read::Ids)?;
            let ids: Vec<String> = rows.into_iter().map(|(id, _)| id).collect();
            let deleted = t.execute("DELETE FROM dlq WHERE dlq_id = ANY($1)", &[&ids])?;
            Ok((deleted, next_after))
        })
    }

    fn delete_dlq_one(&self, dlq_id: &str, min_created_at: i64) -> Result<bool, StoreError> {
        self.write(|t| {
            Ok(t.execute(
                "DELETE FROM dlq WHERE dlq_id = $1 AND created_at >= $2",
                &[&dlq_id, &min_created_at],
            )? > 0)
        })
    }

    fn dlq_count(&self, min_created_at: i64) -> Result<u64, StoreError> {
        self.read(|c| {
            let row = c.query_one(
                "SELECT CASE WHEN COALESCE((SELECT MIN(created_at) FROM dlq), $1) >= $1
                             THEN (SELECT value FROM meta WHERE key = 'dlq_entries')
                             ELSE (SELECT COUNT(*) FROM dlq WHERE created_at >= $1) END",
                &[&min_created_at],
            )?;
            Ok(count(row.get(0)))
        })
    }

    fn dlq_count_matching(
        &self,
        filter: &DlqFilter,
        min_created_at: i64,
        at_most: usize,
    ) -> Result<u64, StoreError> {
        self.read(|c| Ok(scan(c, filter, None, at_most, min_created_at, Read::Ids)?.len() as u64))
    }

    fn purge_expired(&self, min_created_at: i64) -> Result<u64, StoreError> {
        self.write(|t| {
            let mine: bool = t
                .query_one(
                    &format!("SELECT pg_try_advisory_xact_lock({SCOPED_LOCK})"),
                    &[&PURGE_LOCK],
                )?
                .get(0);
            if !mine {
                return Ok(0);
            }
            t.execute(
                "DELETE FROM runs WHERE workflow_run_id IN (
                     SELECT workflow_run_id FROM dlq WHERE created_at < $1
                     EXCEPT SELECT workflow_run_id FROM dlq WHERE created_at >= $1)",
                &[&min_created_at],
            )?;
            Ok(t.execute("DELETE FROM dlq WHERE created_at < $1", &[&min_created_at])?)
        })
    }

    fn unavailable(&self) -> Option<String> {
        self.read(|c| c.batch_execute("SELECT 1").map_err(StoreError::from))
            .err()
            .map(|error| error.to_string())
    }

    fn shared(&self) -> bool {
        true
    }

    fn save_console_session(
        &self,
        id: &str,
        session: &ConsoleSession,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        usage::save_console_session(self, id, session, now_ms)
    }

    fn console_session(&self, id: &str, now_ms: i64) -> Result<Option<ConsoleSession>, StoreError> {
        usage::console_session(self, id, now_ms)
    }

    fn end_console_session(&self, id: &str) -> Result<(), StoreError> {
        usage::end_console_session(self, id)
    }

    fn swap_console_flash(
        &self,
        id: &str,
        flash: Option<&str>,
    ) -> Result<Option<String>, StoreError> {
        usage::swap_console_flash(self, id, flash)
    }

    fn spend_request(
        &self,
        windows: crate::ratelimit::Windows,
        per_second: u64,
        per_day: u64,
    ) -> Result<Option<SpentRequest>, StoreError> {
        usage::spend_request(self, windows, per_second, per_day)
    }

    fn reclaim_deleted(&self, _at_most: usize) -> Result<u64, StoreError> {
        // A delete already removed its rows; PostgreSQL's autovacuum reclaims their space.
        Ok(0)
    }

    fn insert_runs(&self, runs: &[ActiveRun]) -> Result<u64, StoreError> {
        self.write(|t| {
            let insert = t.prepare(
                "INSERT INTO runs (workflow_run_id, workflow_url, workflow_created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (workflow_run_id) DO NOTHING",
            )?;
            let mut registered = 0;
            for run in runs {
                registered += t.execute(
                    &insert,
                    &[&run.workflow_run_id, &run.workflow_url, &run.workflow_created_at],
                )?;
            }
            Ok(registered)
        })
    }

    fn cancel_run(&self, workflow_run_id: &str, min_created_at: i64) -> Result<bool, StoreError> {
        self.write(|t| cancel_in(t, workflow_run_id, min_created_at))
    }

    fn cancel_runs(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError> {
        self.write(|t| {
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
        self.write(|t| {
            let conditions = runs_matching_sql(
                query.filter,
                url_prefix,
                query.after,
                limit + 1,
                min_created_at,
            );
            let ids: Vec<String> = t
                .query(&conditions.sql, &conditions.params())?
                .iter()
                .map(|row| row.get(0))
                .collect();
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
            let existing: Option<UrlGroup> = optional_record(
                t,
                "SELECT record FROM url_groups WHERE name = $1 FOR UPDATE",
                &[&name],
            )?;
            let group = put_url_group_record(existing, name, endpoints, now_ms);
            t.execute(
                "INSERT INTO url_groups (name, record) VALUES ($1, $2)
                 ON CONFLICT (name) DO UPDATE SET record = excluded.record",
                &[&name, &to_json(&group)?],
            )?;
            Ok(group)
        })
    }

    fn url_group(&self, name: &str) -> Result<Option<UrlGroup>, StoreError> {
        self.read(|c| optional_record(c, "SELECT record FROM url_groups WHERE name = $1", &[&name]))
    }

    fn url_groups(&self) -> Result<Vec<UrlGroup>, StoreError> {
        self.read(|c| all_records(c, "SELECT record FROM url_groups ORDER BY name"))
    }

    fn put_index(&self, index: &SearchIndex) -> Result<(), StoreError> {
        let record = to_json(index)?;
        let id = index.id.to_string();
        self.write(|t| {
            t.execute(
                "INSERT INTO search_indexes (id, record) VALUES ($1, $2)
                 ON CONFLICT (id) DO UPDATE SET record = excluded.record",
                &[&id, &record],
            )?;
            Ok(())
        })
    }

    fn index(&self, id: &str) -> Result<Option<SearchIndex>, StoreError> {
        // Ids are UUIDs, stored lower-case; a path with upper-case hex finds the same index.
        let id = id.to_ascii_lowercase();
        self.read(|c| optional_record(c, "SELECT record FROM search_indexes WHERE id = $1", &[&id]))
    }

    fn indexes(&self) -> Result<Vec<SearchIndex>, StoreError> {
        self.read(|c| all_records(c, "SELECT record FROM search_indexes ORDER BY id"))
    }

    fn record_index_usage(
        &self,
        index_id: &str,
        events: &[IndexUsage],
    ) -> Result<bool, StoreError> {
        usage::record_index_usage(self, index_id, events)
    }
    fn index_usage_between(
        &self,
        index_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<IndexUsage>, StoreError> {
        usage::index_usage_between(self, index_id, from_ms, to_ms)
    }
    fn add_usage_batch(&self, counters: &[(String, i64, f64)]) -> Result<(), StoreError> {
        usage::add_usage_batch(self, counters)
    }
    fn usage_between(
        &self,
        metric: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        usage::usage_between(self, metric, from_ms, to_ms)
    }
}
