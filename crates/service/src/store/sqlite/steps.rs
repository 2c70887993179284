//! Steps the [`Store`](crate::store::Store) methods share: each runs inside the caller's
//! transaction (or read), so a method composes them and stays one transaction.

use super::scan::{Read, Scanned, oldest_created_at, scan};
use super::schema::{MARK_DELETED, RECLAIM_ROWS, RECLAIM_TOMBSTONES};
use super::{from_json, optional_value, to_json};
use crate::store::{JsonPage, KeepWhile, PageQuery, StoreError, cancelled_run_was_there, cut_page};
use courier_models::{FailedWorkflowRun, WorkflowDlqMessage};
use rusqlite::{Transaction, params};

/// Reserves `count` numbers of the id sequence; the first of them.
pub(super) fn next_sequence(transaction: &Transaction<'_>, count: u64) -> Result<u64, StoreError> {
    let next: u64 = optional_value(
        transaction,
        "SELECT value FROM meta WHERE key = 'next_dlq_seq'",
        [],
    )?
    .unwrap_or(0);
    transaction
        .execute("INSERT INTO meta (key, value) VALUES ('next_dlq_seq', ?1) ON CONFLICT (key) DO UPDATE SET value = ?1", params![next + count])
        ?;
    Ok(next)
}

/// Removes a run and its DLQ entries; whether it counted as there (see [`Store::cancel_run`]).
pub(super) fn cancel_in(
    t: &Transaction<'_>,
    workflow_run_id: &str,
    min_created_at: i64,
) -> Result<bool, StoreError> {
    let (live, expired): (u64, u64) = t.query_row(
        "SELECT COUNT(*) FILTER (WHERE created_at >= ?2), COUNT(*) FILTER (WHERE created_at < ?2)
             FROM dlq WHERE workflow_run_id = ?1",
        params![workflow_run_id, min_created_at],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let runs = t.execute(
        "DELETE FROM runs WHERE workflow_run_id = ?1",
        params![workflow_run_id],
    )?;
    t.execute(
        &format!("{MARK_DELETED} workflow_run_id = ?1"),
        params![workflow_run_id],
    )?;
    Ok(cancelled_run_was_there(live, expired, runs > 0))
}

/// The first `limit` entries of a scan and, when more match, the last id of the page.
pub(super) fn scan_page(
    c: &rusqlite::Connection,
    query: PageQuery<'_>,
    read: Read,
) -> Result<(Vec<Scanned>, Option<String>), StoreError> {
    let PageQuery {
        filter,
        after,
        limit,
        min_created_at,
    } = query;
    let rows = scan(c, filter, after, limit + 1, min_created_at, read)?;
    Ok(cut_page(rows, limit, |row| &row.dlq_id))
}

/// A list page as stored JSON, and whether it may be kept: only when the retention floor hid
/// nothing, since then every floor up to the oldest stored entry gives the same page.
/// `generation` is the store's list generation read before this read began.
pub(super) fn json_page(
    c: &rusqlite::Connection,
    query: PageQuery<'_>,
    generation: u64,
) -> Result<JsonPage, StoreError> {
    let (rows, next_after) = scan_page(c, query, Read::Listed)?;
    let oldest = oldest_created_at(c)?;
    let messages = rows
        .into_iter()
        .map(|Scanned { text, stand_in, .. }| {
            if stand_in {
                // A row from before migration 4: its list shape made from the record.
                to_json(&WorkflowDlqMessage::from(from_json::<FailedWorkflowRun>(
                    &text,
                )?))
            } else {
                Ok(text)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let keep = match oldest {
        Some(oldest) if oldest < query.min_created_at => None,
        oldest => Some(KeepWhile {
            generation,
            floor_up_to: oldest.unwrap_or(i64::MAX),
        }),
    };
    Ok(JsonPage {
        messages,
        next_after,
        keep,
    })
}

/// Removes up to `at_most` marked entries for good (see [`RECLAIM_ROWS`]); how many.
pub(super) fn reclaim_marked(t: &Transaction<'_>, at_most: usize) -> Result<u64, StoreError> {
    let rows = t.execute(RECLAIM_ROWS, params![at_most as i64])?;
    let marks = t.execute(RECLAIM_TOMBSTONES, params![at_most as i64])?;
    debug_assert_eq!(rows, marks, "every tombstone names a row");
    Ok(rows as u64)
}

/// Reclaims the entry `dlq_id` if it is marked deleted; whether it was.
pub(super) fn reclaim_marked_id(t: &Transaction<'_>, dlq_id: &str) -> Result<bool, StoreError> {
    let marked: Option<i64> = optional_value(
        t,
        "SELECT seq FROM dlq_tombstones WHERE seq = (SELECT rowid FROM dlq_rows WHERE dlq_id = ?1)",
        params![dlq_id],
    )?;
    let Some(seq) = marked else {
        return Ok(false);
    };
    t.execute("DELETE FROM dlq_rows WHERE rowid = ?1", params![seq])?;
    t.execute("DELETE FROM dlq_tombstones WHERE seq = ?1", params![seq])?;
    Ok(true)
}
