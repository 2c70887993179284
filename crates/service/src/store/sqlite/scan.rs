//! Filters as SQL and paged scans. The one place that maps each `DlqFilter` member to a column:
//! [`filter_sql`] destructures the filter, so a filter added to the spec fails to compile here.

use super::{StoreError, from_json};
use courier_models::DlqFilter;
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params_from_iter};
use std::collections::BTreeSet;

/// The SQL condition and parameters of a filter and the retention floor (when a scan must test
/// it, see [`retention_floor_to_test`]), on the filter columns of `table`: `dlq`, or
/// `dlq_labels`, whose rows carry copies of them (columns qualified, so the condition also works
/// in a join). With `labels`, the label filter is a correlated `EXISTS` checked row by row;
/// without, it is left out (the caller walks `dlq_labels` itself, see [`scan`]).
pub(super) fn filter_sql(
    filter: &DlqFilter,
    after: Option<&str>,
    retained_from: Option<i64>,
    labels: bool,
    table: &str,
) -> (String, Vec<SqlValue>) {
    // Every member by name, no `..`: a filter added to the spec's group is a compile error here
    // until it is mapped, never silently ignored (which would widen a bulk delete).
    let DlqFilter {
        from_date,
        to_date,
        workflow_url,
        workflow_run_id,
        workflow_created_at,
        label,
        failure_function_state,
        caller_ip,
        flow_control_key,
    } = filter;
    let mut conditions = Conditions {
        sql: String::from("TRUE"),
        values: Vec::new(),
    };
    let column = |name: &str| format!("{table}.{name}");
    let strings = |items: &[String]| {
        items
            .iter()
            .map(|s| SqlValue::Text(s.clone()))
            .collect::<Vec<_>>()
    };
    conditions.any_of(&column("workflow_url"), strings(workflow_url));
    conditions.any_of(&column("caller_ip"), strings(caller_ip));
    conditions.any_of(&column("flow_control_key"), strings(flow_control_key));
    conditions.any_of(
        &column("failure_state"),
        failure_function_state
            .iter()
            .map(|s| SqlValue::Text(s.to_string()))
            .collect(),
    );
    if labels {
        conditions.any_of(
            &format!("EXISTS (SELECT 1 FROM dlq_labels WHERE dlq_labels.dlq_id = {table}.dlq_id AND dlq_labels.label"),
            strings(label),
        );
        if !label.is_empty() {
            conditions.sql.push(')');
        }
    }
    conditions.and(
        &column("dlq_id > ?"),
        after.map(|a| SqlValue::Text(a.to_owned())),
    );
    conditions.and(
        &column("created_at >= ?"),
        retained_from.map(SqlValue::Integer),
    );
    conditions.and(&column("created_at >= ?"), from_date.map(SqlValue::Integer));
    conditions.and(&column("created_at <= ?"), to_date.map(SqlValue::Integer));
    conditions.and(
        &column("workflow_run_id = ?"),
        workflow_run_id.clone().map(SqlValue::Text),
    );
    conditions.and(
        &column("workflow_created_at = ?"),
        workflow_created_at.map(SqlValue::Integer),
    );
    (conditions.sql, conditions.values)
}

/// A condition being built: its SQL and its parameters, in order.
struct Conditions {
    sql: String,
    values: Vec<SqlValue>,
}

impl Conditions {
    /// ` AND column IN (?, …)` with `items`, unless there are none.
    fn any_of(&mut self, column: &str, items: Vec<SqlValue>) {
        if items.is_empty() {
            return;
        }
        let marks = vec!["?"; items.len()].join(", ");
        self.sql.push_str(&format!(" AND {column} IN ({marks})"));
        self.values.extend(items);
    }

    /// ` AND condition` with its one parameter `value`, when there is one.
    fn and(&mut self, condition: &str, value: Option<SqlValue>) {
        if let Some(value) = value {
            self.sql.push_str(" AND ");
            self.sql.push_str(condition);
            self.values.push(value);
        }
    }
}

/// What a scan reads of each entry besides its id and row number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// Nothing: counts and deletes.
    Ids,
    /// The full record (`FailedWorkflowRun` JSON).
    Records,
    /// The stored list shape (`WorkflowDLQMessage` JSON), or the record where a row has none yet.
    Listed,
}

impl Read {
    /// The two columns each query selects besides id and row number: the text, and whether it
    /// is a record standing in for a missing list shape; read from `rows`, the name of the
    /// entry's `dlq_rows` row in the query.
    fn text_columns(self, rows: &str) -> String {
        match self {
            Read::Ids => "'', 0".to_owned(),
            Read::Records => format!("{rows}.record, 0"),
            Read::Listed => format!("IFNULL({rows}.listed, {rows}.record), {rows}.listed IS NULL"),
        }
    }
}

/// One scanned entry: what [`Read`] asked for, and the row number (`seq`) that marks it deleted.
#[derive(Debug)]
pub(super) struct Scanned {
    pub dlq_id: String,
    pub text: String,
    /// The text is a record standing in for a list shape the row does not have.
    pub stand_in: bool,
    pub seq: i64,
}

/// The queries that list the first `take` entries matching `filter` after `after`, in `dlq_id`
/// order, each selecting id, what `read` says, and row number.
///
/// Without a label filter, or with a run id (a run has a handful of entries), one query on
/// `dlq` walks the index SQLite picks, checking labels row by row. Otherwise one query per label
/// walks that label's range of `dlq_labels`' primary key `(label, dlq_id)`, already in `dlq_id`
/// order, tests the other filters on the label rows' copies of the filter columns, and reads
/// the matches only, by row number; [`scan`] merges the pages. The cost is the page and the
/// label's candidates in it, not the number of entries with the label (an
/// `IN (SELECT dlq_id FROM dlq_labels ...)` subquery first lists every one).
pub(super) fn scan_queries(
    filter: &DlqFilter,
    after: Option<&str>,
    take: usize,
    retained_from: Option<i64>,
    read: Read,
) -> Vec<(String, Vec<SqlValue>)> {
    let labels: BTreeSet<&str> = filter.label.iter().map(String::as_str).collect();
    if labels.is_empty() || filter.workflow_run_id.is_some() {
        let (condition, mut values) = filter_sql(filter, after, retained_from, true, "dlq");
        values.push(SqlValue::Integer(take as i64));
        let sql = format!(
            "SELECT dlq.dlq_id, {}, dlq.seq FROM dlq WHERE {condition} ORDER BY dlq.dlq_id LIMIT ?",
            read.text_columns("dlq")
        );
        return vec![(sql, values)];
    }
    let (condition, values) = filter_sql(filter, None, retained_from, false, "dlq_labels");
    // Ids come from the label rows alone; a text needs the entry's row.
    let rows = if read == Read::Ids {
        ""
    } else {
        " CROSS JOIN dlq_rows ON dlq_rows.rowid = dlq_labels.seq"
    };
    let sql = format!(
        "SELECT dlq_labels.dlq_id, {}, dlq_labels.seq FROM dlq_labels{rows}
         WHERE dlq_labels.label = ?{} AND {condition}
           AND NOT EXISTS (SELECT 1 FROM dlq_tombstones WHERE dlq_tombstones.seq = dlq_labels.seq)
         ORDER BY dlq_labels.dlq_id LIMIT ?",
        read.text_columns("dlq_rows"),
        if after.is_some() {
            " AND dlq_labels.dlq_id > ?"
        } else {
            ""
        }
    );
    labels
        .into_iter()
        .map(|label| {
            let mut label_values = vec![SqlValue::Text(label.to_owned())];
            label_values.extend(after.map(|a| SqlValue::Text(a.to_owned())));
            label_values.extend(values.iter().cloned());
            label_values.push(SqlValue::Integer(take as i64));
            (sql.clone(), label_values)
        })
        .collect()
}

/// Every JSON record a one-column `sql` selects, decoded.
pub(super) fn all_records<T: serde::de::DeserializeOwned>(
    connection: &Connection,
    sql: &str,
) -> Result<Vec<T>, StoreError> {
    let mut statement = connection.prepare_cached(sql)?;
    let texts = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    texts.iter().map(|text| from_json(text)).collect()
}

/// The retention floor a scan has to test: `None` when no stored entry is older (one step down
/// the `created_at` index). Entries past retention stay on disk only until the next purge, so
/// usually there are none, and then the test is left out: it reads every candidate's row, which
/// a scan of ids (a bulk delete, a count) otherwise does not, which makes such a scan many times
/// slower (BENCHMARKS.md, "Findings").
fn retention_floor_to_test(
    connection: &Connection,
    min_created_at: i64,
) -> Result<Option<i64>, StoreError> {
    Ok(oldest_created_at(connection)?
        .filter(|&oldest| oldest < min_created_at)
        .map(|_| min_created_at))
}

/// The `createdAt` of the oldest stored entry, deleted or not (`None`: none is stored).
pub(super) fn oldest_created_at(connection: &Connection) -> Result<Option<i64>, StoreError> {
    Ok(connection
        .prepare_cached("SELECT MIN(created_at) FROM dlq_rows")?
        .query_row([], |row| row.get(0))?)
}

/// Runs [`scan_queries`] and merges their pages into the first `take` entries.
pub(super) fn scan(
    connection: &Connection,
    filter: &DlqFilter,
    after: Option<&str>,
    take: usize,
    min_created_at: i64,
    read: Read,
) -> Result<Vec<Scanned>, StoreError> {
    let retained_from = retention_floor_to_test(connection, min_created_at)?;
    let mut queries = scan_queries(filter, after, take, retained_from, read);
    let scanned = |(sql, values): (String, Vec<SqlValue>)| -> Result<Vec<Scanned>, StoreError> {
        let mut statement = connection.prepare_cached(&sql)?;
        let rows = statement.query_map(params_from_iter(values), |row| {
            Ok(Scanned {
                dlq_id: row.get(0)?,
                text: row.get(1)?,
                stand_in: row.get(2)?,
                seq: row.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    };
    // One query (no label, or one) is in id order already; only several are merged.
    if queries.len() == 1 {
        return scanned(queries.remove(0));
    }
    let mut merged = std::collections::BTreeMap::new();
    for query in queries {
        for row in scanned(query)? {
            merged.insert(row.dlq_id.clone(), row);
        }
    }
    Ok(merged.into_values().take(take).collect())
}

/// The query listing the ids of the runs a bulk cancel by filter takes, in id order: the run's
/// own attributes (`workflowUrl` as a prefix when `url_prefix`, `workflowRunId`,
/// `workflowCreatedAt`) on `runs`, the other filters on the run's live DLQ entries; a run whose
/// only entries are past retention is gone and never listed.
pub(super) fn runs_matching_sql(
    filter: &DlqFilter,
    url_prefix: bool,
    after: Option<&str>,
    take: usize,
    min_created_at: i64,
) -> (String, Vec<SqlValue>) {
    let mut conditions = Conditions {
        sql: String::from("SELECT r.workflow_run_id FROM runs r WHERE 1 = 1"),
        values: Vec::new(),
    };
    if !filter.workflow_url.is_empty() {
        // A prefix compares the URL's first characters (no LIKE: `%` and `_` are literal here).
        let test = if url_prefix {
            "substr(r.workflow_url, 1, length(?)) = ?"
        } else {
            "r.workflow_url = ?"
        };
        let alternatives = vec![format!("({test})"); filter.workflow_url.len()].join(" OR ");
        conditions.sql.push_str(&format!(" AND ({alternatives})"));
        for url in &filter.workflow_url {
            let copies = if url_prefix { 2 } else { 1 };
            conditions
                .values
                .extend(std::iter::repeat_n(SqlValue::Text(url.clone()), copies));
        }
    }
    conditions.and(
        "r.workflow_run_id = ?",
        filter.workflow_run_id.clone().map(SqlValue::Text),
    );
    conditions.and(
        "r.workflow_created_at = ?",
        filter.workflow_created_at.map(SqlValue::Integer),
    );
    conditions.and(
        "r.workflow_run_id > ?",
        after.map(|a| SqlValue::Text(a.to_owned())),
    );
    let Conditions {
        mut sql,
        mut values,
    } = conditions;
    let entry_filter = DlqFilter {
        workflow_url: Vec::new(),
        workflow_run_id: None,
        workflow_created_at: None,
        ..filter.clone()
    };
    if !entry_filter.is_empty() {
        let (condition, condition_values) =
            filter_sql(&entry_filter, None, Some(min_created_at), true, "dlq");
        sql.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND {condition})"
        ));
        values.extend(condition_values);
    }
    sql.push_str(
        " AND (NOT EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND dlq.created_at < ?)
           OR EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND dlq.created_at >= ?))",
    );
    values.push(SqlValue::Integer(min_created_at));
    values.push(SqlValue::Integer(min_created_at));
    sql.push_str(" ORDER BY r.workflow_run_id LIMIT ?");
    values.push(SqlValue::Integer(take as i64));
    (sql, values)
}
