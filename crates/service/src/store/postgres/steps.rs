//! Steps the [`Store`](crate::store::Store) methods share on PostgreSQL: each runs inside the
//! caller's transaction (or on its connection), so a method composes them and stays one
//! transaction.

use super::from_json;
use super::scan::{Conditions, filter_sql};
use super::session::Session;
use crate::store::{DlqFilter, PageQuery, StoreError, cancelled_run_was_there, cut_page};
use postgres::GenericClient;

/// An entry's id and the text a scan read of it.
pub(super) type Scanned = (String, String);

/// The record `sql` selects in its first column, decoded.
pub(super) fn optional_record<T: serde::de::DeserializeOwned>(
    client: &mut Session<'_, impl GenericClient>,
    sql: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> Result<Option<T>, StoreError> {
    client
        .query_opt(sql, params)?
        .map(|row| from_json(row.get::<_, &str>(0)))
        .transpose()
}

/// Every record a one-column `sql` selects, decoded.
pub(super) fn all_records<T: serde::de::DeserializeOwned>(
    client: &mut Session<'_, impl GenericClient>,
    sql: &str,
) -> Result<Vec<T>, StoreError> {
    client
        .query(sql, &[])?
        .iter()
        .map(|row| from_json(row.get::<_, &str>(0)))
        .collect()
}

/// What a scan reads of each entry besides its id.
#[derive(Clone, Copy)]
pub(super) enum Read {
    Ids,
    Records,
    Listed,
}

/// The first `take` entries `query` takes, as `(dlq_id, text)`.
pub(super) fn scan(
    client: &mut Session<'_, impl GenericClient>,
    filter: &DlqFilter,
    after: Option<&str>,
    take: usize,
    min_created_at: i64,
    read: Read,
) -> Result<Vec<Scanned>, StoreError> {
    let text = match read {
        Read::Ids => "''",
        Read::Records => "dlq.record",
        Read::Listed => "dlq.listed",
    };
    let mut conditions = Conditions::new(&format!("SELECT dlq.dlq_id, {text} FROM dlq WHERE TRUE"));
    filter_sql(&mut conditions, filter, after, min_created_at, "dlq");
    let limit = conditions.bind(Box::new(take as i64));
    conditions
        .sql
        .push_str(&format!(" ORDER BY dlq.dlq_id LIMIT {limit}"));
    let rows = client.query(&conditions.sql, &conditions.params())?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// A scan of `limit + 1`, cut to `limit`, and the last id when more matched.
pub(super) fn scan_page(
    client: &mut Session<'_, impl GenericClient>,
    query: PageQuery<'_>,
    read: Read,
) -> Result<(Vec<Scanned>, Option<String>), StoreError> {
    let PageQuery {
        filter,
        after,
        limit,
        min_created_at,
    } = query;
    let rows = scan(client, filter, after, limit + 1, min_created_at, read)?;
    Ok(cut_page(rows, limit, |(id, _)| id))
}

/// Removes a run and its DLQ entries; whether it counted as there (see [`Store::cancel_run`]).
pub(super) fn cancel_in(
    t: &mut Session<'_, impl GenericClient>,
    workflow_run_id: &str,
    min_created_at: i64,
) -> Result<bool, StoreError> {
    let row = t.query_one(
        "SELECT COUNT(*) FILTER (WHERE created_at >= $2), COUNT(*) FILTER (WHERE created_at < $2)
         FROM dlq WHERE workflow_run_id = $1",
        &[&workflow_run_id, &min_created_at],
    )?;
    let (live, expired) = (count(row.get(0)), count(row.get(1)));
    let runs = t.execute(
        "DELETE FROM runs WHERE workflow_run_id = $1",
        &[&workflow_run_id],
    )?;
    t.execute(
        "DELETE FROM dlq WHERE workflow_run_id = $1",
        &[&workflow_run_id],
    )?;
    Ok(cancelled_run_was_there(live, expired, runs > 0))
}

pub(super) fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}
