//! Filters as SQL for PostgreSQL. [`filter_sql`] destructures the filter, so a filter added to
//! the spec fails to compile here (as in SQLite's mapping) until someone maps it.

use courier_models::DlqFilter;
use postgres::types::ToSql;

/// A query parameter.
pub(super) type Param = Box<dyn ToSql + Sync + Send>;

/// A condition being built: its SQL and its parameters, numbered `$1`, `$2`, … in order.
pub(super) struct Conditions {
    pub sql: String,
    pub values: Vec<Param>,
}

impl Conditions {
    pub(super) fn new(sql: &str) -> Conditions {
        Conditions {
            sql: sql.to_owned(),
            values: Vec::new(),
        }
    }

    /// The placeholder of a new parameter `value`.
    pub(super) fn bind(&mut self, value: Param) -> String {
        self.values.push(value);
        format!("${}", self.values.len())
    }

    /// ` AND <condition>`, where `condition` gets the placeholder of `value`, when there is one.
    fn and<T: ToSql + Sync + Send + 'static>(
        &mut self,
        condition: impl FnOnce(&str) -> String,
        value: Option<T>,
    ) {
        if let Some(value) = value {
            let mark = self.bind(Box::new(value));
            self.sql.push_str(" AND ");
            self.sql.push_str(&condition(&mark));
        }
    }

    /// ` AND column = ANY(array)` (any of `items`), unless there are none.
    fn any_of(&mut self, column: &str, items: Vec<String>) {
        if !items.is_empty() {
            self.and(|mark| format!("{column} = ANY({mark})"), Some(items));
        }
    }

    /// The parameters as the driver takes them.
    pub(super) fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values
            .iter()
            .map(|value| value.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }
}

/// Adds the conditions of `filter`, the cursor `after` and the retention floor on the columns of
/// `dlq` (as `table`) to `conditions`.
pub(super) fn filter_sql(
    conditions: &mut Conditions,
    filter: &DlqFilter,
    after: Option<&str>,
    retained_from: i64,
    table: &str,
) {
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
    let column = |name: &str| format!("{table}.{name}");
    conditions.any_of(&column("workflow_url"), workflow_url.clone());
    conditions.any_of(&column("caller_ip"), caller_ip.clone());
    conditions.any_of(&column("flow_control_key"), flow_control_key.clone());
    conditions.any_of(
        &column("failure_state"),
        failure_function_state
            .iter()
            .map(ToString::to_string)
            .collect(),
    );
    if !label.is_empty() {
        // `&&`: the arrays overlap, so an entry with any of the labels matches.
        conditions.and(
            |mark| format!("{} && {mark}", column("labels")),
            Some(label.clone()),
        );
    }
    conditions.and(
        |mark| format!("{} > {mark}", column("dlq_id")),
        after.map(str::to_owned),
    );
    conditions.and(
        |mark| format!("{} >= {mark}", column("created_at")),
        Some(retained_from),
    );
    conditions.and(
        |mark| format!("{} >= {mark}", column("created_at")),
        *from_date,
    );
    conditions.and(
        |mark| format!("{} <= {mark}", column("created_at")),
        *to_date,
    );
    conditions.and(
        |mark| format!("{} = {mark}", column("workflow_run_id")),
        workflow_run_id.clone(),
    );
    conditions.and(
        |mark| format!("{} = {mark}", column("workflow_created_at")),
        *workflow_created_at,
    );
}

/// The query listing the ids of the runs a bulk cancel by filter takes, in id order, as on
/// SQLite (`sqlite::scan::runs_matching_sql`): the run's own attributes on `runs`
/// (`workflowUrl` as a prefix when `url_prefix`), the other filters on its DLQ entries; a run
/// whose only entries are past retention is gone and never listed.
pub(super) fn runs_matching_sql(
    filter: &DlqFilter,
    url_prefix: bool,
    after: Option<&str>,
    take: usize,
    min_created_at: i64,
) -> Conditions {
    let mut conditions = Conditions::new("SELECT r.workflow_run_id FROM runs r WHERE TRUE");
    if !filter.workflow_url.is_empty() {
        let urls = conditions.bind(Box::new(filter.workflow_url.clone()));
        // A prefix compares the URL's first characters (no LIKE: `%` and `_` are literal here).
        let test = if url_prefix {
            "left(r.workflow_url, length(u)) = u"
        } else {
            "r.workflow_url = u"
        };
        conditions.sql.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM unnest({urls}::text[]) AS u WHERE {test})"
        ));
    }
    conditions.and(
        |mark| format!("r.workflow_run_id = {mark}"),
        filter.workflow_run_id.clone(),
    );
    conditions.and(
        |mark| format!("r.workflow_created_at = {mark}"),
        filter.workflow_created_at,
    );
    conditions.and(
        |mark| format!("r.workflow_run_id > {mark}"),
        after.map(str::to_owned),
    );
    let entry_filter = DlqFilter {
        workflow_url: Vec::new(),
        workflow_run_id: None,
        workflow_created_at: None,
        ..filter.clone()
    };
    if !entry_filter.is_empty() {
        conditions.sql.push_str(
            " AND EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id",
        );
        filter_sql(&mut conditions, &entry_filter, None, min_created_at, "dlq");
        conditions.sql.push(')');
    }
    let floor = conditions.bind(Box::new(min_created_at));
    conditions.sql.push_str(&format!(
        " AND (NOT EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND dlq.created_at < {floor})
           OR EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND dlq.created_at >= {floor}))"
    ));
    let limit = conditions.bind(Box::new(take as i64));
    conditions
        .sql
        .push_str(&format!(" ORDER BY r.workflow_run_id LIMIT {limit}"));
    conditions
}
