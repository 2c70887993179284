//! What processes sharing the database share besides the data: the statistics' per-minute
//! counters (`usage`) and search index events (`index_usage`), the request limits' windows
//! (`request_windows`) and the console's sessions (`console_sessions`).

use super::PostgresStore;
use super::steps::count;
use crate::ratelimit::Refusal;
use crate::store::{ConsoleSession, IndexActivity, IndexUsage, SpentRequest, StoreError};
use postgres::Row;

pub(super) fn spend_request(
    store: &PostgresStore,
    windows: crate::ratelimit::Windows,
    per_second: u64,
    per_day: u64,
) -> Result<Option<SpentRequest>, StoreError> {
    let signed = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    store.read(|c| {
        let row = c.query_one(
            "SELECT refused, second_used, day_used FROM spend_request($1, $2, $3, $4)",
            &[
                &windows.second_start,
                &windows.day,
                &signed(per_second),
                &signed(per_day),
            ],
        )?;
        let refused = match row.get::<_, Option<&str>>(0) {
            Some("daily") => Some(Refusal::Daily),
            Some(_) => Some(Refusal::PerSecond),
            None => None,
        };
        Ok(Some(SpentRequest {
            second_used: count(row.get(1)),
            day_used: count(row.get(2)),
            refused,
        }))
    })
}

pub(super) fn record_index_usage(
    store: &PostgresStore,
    index_id: &str,
    events: &[IndexUsage],
) -> Result<bool, StoreError> {
    let index_id = index_id.to_ascii_lowercase();
    store.write(|t| {
        if t.query_opt("SELECT 1 FROM search_indexes WHERE id = $1", &[&index_id])?
            .is_none()
        {
            return Ok(false);
        }
        let insert = t.prepare(
            "INSERT INTO index_usage (index_id, at, kind, count, latency_ms, bytes, vector_count, data_size, pending)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )?;
        let signed = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
        for event in events {
            match event {
                IndexUsage::Activity {
                    activity,
                    at,
                    count,
                    latency_ms,
                    bytes,
                } => t.execute(
                    &insert,
                    &[
                        &index_id,
                        at,
                        &activity.as_str(),
                        &signed(*count),
                        latency_ms,
                        &signed(*bytes),
                        &None::<i64>,
                        &None::<i64>,
                        &None::<i64>,
                    ],
                ),
                IndexUsage::Size {
                    at,
                    vector_count,
                    data_size,
                    pending,
                } => t.execute(
                    &insert,
                    &[
                        &index_id,
                        at,
                        &"size",
                        &1_i64,
                        &None::<f64>,
                        &0_i64,
                        &Some(signed(*vector_count)),
                        &Some(signed(*data_size)),
                        &Some(signed(*pending)),
                    ],
                ),
            }?;
        }
        Ok(true)
    })
}

pub(super) fn index_usage_between(
    store: &PostgresStore,
    index_id: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<IndexUsage>, StoreError> {
    let index_id = index_id.to_ascii_lowercase();
    const COLUMNS: &str = "at, kind, count, latency_ms, bytes, vector_count, data_size, pending";
    let event = |row: &Row| -> Option<IndexUsage> {
        let at: i64 = row.get(0);
        let kind: &str = row.get(1);
        let unsigned = |i: usize| count(row.get::<_, Option<i64>>(i).unwrap_or(0));
        match IndexActivity::from_kind(kind) {
            Some(activity) => Some(IndexUsage::Activity {
                activity,
                at,
                count: unsigned(2),
                latency_ms: row.get(3),
                bytes: unsigned(4),
            }),
            None if kind == "size" => Some(IndexUsage::Size {
                at,
                vector_count: unsigned(5),
                data_size: unsigned(6),
                pending: unsigned(7),
            }),
            None => None,
        }
    };
    store.read(|c| {
        let mut events: Vec<IndexUsage> = c
            .query_opt(
                &format!(
                    "SELECT {COLUMNS} FROM index_usage WHERE index_id = $1 AND kind = 'size' AND at < $2
                     ORDER BY at DESC, seq DESC LIMIT 1"
                ),
                &[&index_id, &from_ms],
            )?
            .as_ref()
            .and_then(event)
            .into_iter()
            .collect();
        let rows = c.query(
            &format!(
                "SELECT {COLUMNS} FROM index_usage WHERE index_id = $1 AND at BETWEEN $2 AND $3
                 ORDER BY at, seq"
            ),
            &[&index_id, &from_ms, &to_ms],
        )?;
        events.extend(rows.iter().filter_map(event));
        Ok(events)
    })
}

pub(super) fn add_usage_batch(
    store: &PostgresStore,
    counters: &[(String, i64, f64)],
) -> Result<(), StoreError> {
    store.write(|t| {
        // Added, never replaced: every process adds its own requests to the same minutes.
        let upsert = t.prepare(
            "INSERT INTO usage (metric, minute, value) VALUES ($1, $2, $3)
             ON CONFLICT (metric, minute) DO UPDATE SET value = usage.value + excluded.value",
        )?;
        for (metric, minute, value) in counters {
            t.execute(&upsert, &[metric, minute, value])?;
        }
        Ok(())
    })
}

pub(super) fn usage_between(
    store: &PostgresStore,
    metric: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<(i64, f64)>, StoreError> {
    store.read(|c| {
        Ok(c.query(
            "SELECT minute, value FROM usage WHERE metric = $1 AND minute BETWEEN $2 AND $3 ORDER BY minute",
            &[&metric, &from_ms, &to_ms],
        )?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect())
    })
}

pub(super) fn save_console_session(
    store: &PostgresStore,
    id: &str,
    session: &ConsoleSession,
    now_ms: i64,
) -> Result<(), StoreError> {
    store.write(|t| {
        t.execute("DELETE FROM console_sessions WHERE expires_at <= $1", &[&now_ms])?;
        t.execute(
            "INSERT INTO console_sessions (id, csrf, expires_at, management_key) VALUES ($1, $2, $3, $4)",
            &[&id, &session.csrf, &session.expires_at_ms, &session.management_key],
        )?;
        Ok(())
    })
}

pub(super) fn console_session(
    store: &PostgresStore,
    id: &str,
    now_ms: i64,
) -> Result<Option<ConsoleSession>, StoreError> {
    store.read(|c| {
        Ok(c.query_opt(
            "SELECT csrf, expires_at, management_key FROM console_sessions WHERE id = $1 AND expires_at > $2",
            &[&id, &now_ms],
        )?
        .map(|row| ConsoleSession {
            csrf: row.get(0),
            expires_at_ms: row.get(1),
            management_key: row.get(2),
        }))
    })
}

pub(super) fn end_console_session(store: &PostgresStore, id: &str) -> Result<(), StoreError> {
    store.write(|t| {
        t.execute("DELETE FROM console_sessions WHERE id = $1", &[&id])?;
        Ok(())
    })
}

pub(super) fn swap_console_flash(
    store: &PostgresStore,
    id: &str,
    flash: Option<&str>,
) -> Result<Option<String>, StoreError> {
    store.write(|t| {
        let old: Option<String> = t
            .query_opt(
                "SELECT flash FROM console_sessions WHERE id = $1 FOR UPDATE",
                &[&id],
            )?
            .and_then(|row| row.get(0));
        t.execute(
            "UPDATE console_sessions SET flash = $2 WHERE id = $1",
            &[&id, &flash],
        )?;
        Ok(old)
    })
}
