//! The statistics' storage: per-minute counters (`usage`) and search index events
//! (`index_usage`).

use crate::store::{IndexActivity, IndexUsage, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

/// Records `events` of the index `index_id` (lowercase); `false` when there is no such index.
pub(super) fn record_index_usage(
    t: &Transaction<'_>,
    index_id: &str,
    events: &[IndexUsage],
) -> Result<bool, StoreError> {
    let known = t
        .query_row(
            "SELECT 1 FROM search_indexes WHERE id = ?1",
            params![index_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if !known {
        return Ok(false);
    }
    let mut insert = t.prepare_cached(
        "INSERT INTO index_usage (index_id, at, kind, count, latency_ms, bytes, vector_count, data_size, pending)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for event in events {
        match event {
            IndexUsage::Activity {
                activity,
                at,
                count,
                latency_ms,
                bytes,
            } => insert.execute(params![
                index_id,
                at,
                activity.as_str(),
                count,
                latency_ms,
                bytes,
                None::<u64>,
                None::<u64>,
                None::<u64>
            ]),
            IndexUsage::Size {
                at,
                vector_count,
                data_size,
                pending,
            } => insert.execute(params![
                index_id,
                at,
                "size",
                1,
                None::<f64>,
                0,
                vector_count,
                data_size,
                pending
            ]),
        }?;
    }
    Ok(true)
}

/// The events of the index `index_id` (lowercase) between `from_ms` and `to_ms`, oldest first,
/// preceded by the last size reported before `from_ms` (the size carries over).
pub(super) fn index_usage_between(
    c: &Connection,
    index_id: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<IndexUsage>, StoreError> {
    let row = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Option<IndexUsage>> {
        let at: i64 = r.get(0)?;
        let kind: String = r.get(1)?;
        let activity = IndexActivity::from_kind(&kind);
        Ok(match activity {
            Some(activity) => Some(IndexUsage::Activity {
                activity,
                at,
                count: r.get(2)?,
                latency_ms: r.get(3)?,
                bytes: r.get(4)?,
            }),
            None if kind == "size" => Some(IndexUsage::Size {
                at,
                vector_count: r.get(5)?,
                data_size: r.get(6)?,
                pending: r.get(7)?,
            }),
            None => None,
        })
    };
    const COLUMNS: &str = "at, kind, count, latency_ms, bytes, vector_count, data_size, pending";
    let mut events: Vec<IndexUsage> = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM index_usage WHERE index_id = ?1 AND kind = 'size' AND at < ?2
             ORDER BY at DESC, rowid DESC LIMIT 1"
        ))
        .and_then(|mut s| s.query_row(params![index_id, from_ms], row).optional())?
        .flatten()
        .into_iter()
        .collect();
    let mut statement = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM index_usage WHERE index_id = ?1 AND at BETWEEN ?2 AND ?3
         ORDER BY at, rowid"
    ))?;
    let rows = statement.query_map(params![index_id, from_ms, to_ms], row)?;
    for event in rows {
        events.extend(event?);
    }
    Ok(events)
}

/// Adds each `(metric, minute, value)` to its minute's counter.
pub(super) fn add_usage_batch(
    t: &Transaction<'_>,
    counters: &[(String, i64, f64)],
) -> Result<(), StoreError> {
    let mut upsert = t.prepare_cached(
        "INSERT INTO usage (metric, minute, value) VALUES (?1, ?2, ?3)
             ON CONFLICT (metric, minute) DO UPDATE SET value = value + excluded.value",
    )?;
    for (metric, minute, value) in counters {
        upsert.execute(params![metric, minute, value])?;
    }
    Ok(())
}

/// The counters of `metric` from `from_ms` to `to_ms`, by minute.
pub(super) fn usage_between(
    c: &Connection,
    metric: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<(i64, f64)>, StoreError> {
    let mut statement = c.prepare_cached(
        "SELECT minute, value FROM usage WHERE metric = ?1 AND minute BETWEEN ?2 AND ?3 ORDER BY minute",
    )?;
    let rows = statement.query_map(params![metric, from_ms, to_ms], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    rows.collect::<Result<_, _>>().map_err(StoreError::from)
}
