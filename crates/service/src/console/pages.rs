//! The console's pages and actions. Each parses its input with the generated `*Request::parse`
//! and calls the `MessagingApi`/`ManagementApi` method the API route calls, so a page shows
//! exactly what the API answers for the same query.

use super::Console;
use super::auth::Viewer;
use super::chart::{self, Series};
use super::view::{self, Section, encode_component, moment};
use crate::time::now_ms;
use axum::Extension;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use courier_models::{DlqFilter, FailedWorkflowRun, FailureFunctionState, WorkflowDlqMessage};
use courier_server::query::Query;
use courier_server::runtime::PathParams;
use courier_server::*;
use maud::{Markup, html};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Counting matches stops here: past it the page says "more than", so a count never costs
/// more than reading this many ids.
const COUNT_LIMIT: usize = 10_000;
/// Entries a bulk delete removes per store transaction (the API's largest `count`).
const BULK_BATCH: i64 = 1000;
/// Page sizes offered; the API's default (100) is what an absent `count` means.
const PAGE_SIZES: [i64; 4] = [10, 25, 50, 100];
/// The filters that take Unix milliseconds (a number field with a date picker beside it).
const MILLIS_KEYS: [&str; 3] = ["fromDate", "toDate", "workflowCreatedAt"];
const STATES: [(FailureFunctionState, &str); 4] = [
    (
        FailureFunctionState::CallbackInprogress,
        "CALLBACK_INPROGRESS",
    ),
    (FailureFunctionState::CallbackSuccess, "CALLBACK_SUCCESS"),
    (FailureFunctionState::CallbackFail, "CALLBACK_FAIL"),
    (FailureFunctionState::CallbackCanceled, "CALLBACK_CANCELED"),
];

/// The query of a console form: pairs with an empty value are left out, because a form sends
/// every field and an empty field means "no filter" here, where the API calls `label=` a 400
/// (decision 12). `drop` removes keys the page sets itself. Everything else reaches the
/// generated parser unchanged.
fn form_query(raw: &str, drop: &[&str]) -> String {
    raw.split('&')
        .filter(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            !value.is_empty() && !drop.contains(&key)
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The decoded values of `key` in a query, comma-joined, to refill a form field as typed.
fn typed_value(query: &str, key: &str) -> String {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(name, _)| *name == key)
        .map(|(_, value)| {
            percent_encoding::percent_decode_str(&value.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn with_query(path: &str, query: &str) -> String {
    if query.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{query}")
    }
}

/// An error page inside the console frame.
fn failure(viewer: &Viewer, status: StatusCode, title: &str, message: &str) -> Response {
    view::page(
        status,
        title,
        None,
        viewer,
        None,
        html! {
            h1 { (title) }
            p.error role="alert" { (message) }
            p { a href="/console/dlq" { "Back to the failed runs" } }
        },
    )
}

fn internal(viewer: &Viewer, message: &str) -> Response {
    failure(
        viewer,
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something went wrong",
        message,
    )
}

/// Any console path without a page.
pub async fn not_found(Extension(viewer): Extension<Viewer>, uri: axum::http::Uri) -> Response {
    failure(
        &viewer,
        StatusCode::NOT_FOUND,
        "Not found",
        &format!("the console has no page at {}", uri.path()),
    )
}

/// How many entries match, up to [`COUNT_LIMIT`]: `(count, more_than_that)`.
async fn count_matching(
    console: &Console,
    filter: courier_models::DlqFilter,
) -> Result<(u64, bool), String> {
    let floor = console.service.retention_floor();
    let counted = console
        .service
        .blocking(move |store| store.dlq_count_matching(&filter, floor, COUNT_LIMIT + 1))
        .await
        .map_err(|e| e.to_string())?;
    Ok((
        counted.min(COUNT_LIMIT as u64),
        counted > COUNT_LIMIT as u64,
    ))
}

fn count_text((count, more): (u64, bool)) -> String {
    if more {
        format!("more than {count}")
    } else {
        count.to_string()
    }
}

/// `GET /console/dlq`: the failed runs with the list operation's filters and cursor.
pub async fn dlq_list(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = form_query(raw.as_deref().unwrap_or(""), &[]);
    let flash = console.sessions.take_flash(&viewer);
    let request = match ListWorkflowDlqRequest::parse(&PathParams::default(), &Query::parse(&query))
    {
        Ok(request) => request,
        Err(rejection) => {
            return dlq_page(&viewer, flash, &query, Err(rejection.message().to_owned()));
        }
    };
    let filter = request.filter.clone();
    let page = match MessagingApi::list_workflow_dlq(&*console.service, (), request).await {
        ListWorkflowDlqResponse::Ok(page) => page,
        ListWorkflowDlqResponse::BadRequest(body) => {
            return dlq_page(&viewer, flash, &query, Err(body.error));
        }
        other => return internal(&viewer, &format!("listing the DLQ failed: {other:?}")),
    };
    let count = count_matching(&console, filter).await;
    let listing = Listing {
        messages: page.messages,
        next_cursor: page.cursor,
        count: count.ok(),
    };
    dlq_page(&viewer, flash, &query, Ok(listing))
}

struct Listing {
    messages: Vec<WorkflowDlqMessage>,
    next_cursor: Option<String>,
    count: Option<(u64, bool)>,
}

fn dlq_page(
    viewer: &Viewer,
    flash: Option<String>,
    query: &str,
    listing: Result<Listing, String>,
) -> Response {
    let status = if listing.is_ok() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let filter_query = form_query(query, &["cursor"]);
    let paged = query.split('&').any(|pair| pair.starts_with("cursor="));
    let now = now_ms();
    let body = html! {
        h1 { "Failed workflow runs" }
        (filter_form(query))
        @match &listing {
            Err(message) => p.error role="alert" { "The filters are not valid: " (message) },
            Ok(listing) => {
                div.summary {
                    @if let Some(count) = listing.count {
                        p #match-count data-count=(count.0) {
                            strong { (count_text(count)) } " matching "
                            @if count == (1, false) { "entry" } @else { "entries" }
                        }
                        @if count.0 > 0 {
                            a.button.secondary href=(with_query("/console/bulk-delete", &form_query(&filter_query, &["count"]))) {
                                "Delete all matching…"
                            }
                        }
                    }
                }
                @if listing.messages.is_empty() {
                    p.muted { "No failed runs match these filters." }
                } @else {
                    div.table-wrap {
                        table #dlq {
                            thead {
                                tr {
                                    th scope="col" { "DLQ id" }
                                    th scope="col" { "Created" }
                                    th scope="col" { "Workflow URL" }
                                    th scope="col" { "Run id" }
                                    th scope="col" { "Labels" }
                                    th scope="col" { "Status" }
                                    th scope="col" { "Failure function" }
                                }
                            }
                            tbody {
                                @for message in &listing.messages {
                                    tr data-dlq-id=(message.dlq_id) {
                                        td { a href=(format!("/console/dlq/{}", encode_component(&message.dlq_id))) { code { (message.dlq_id) } } }
                                        td { (moment(message.created_at, now)) }
                                        td { (message.workflow_url) }
                                        td { code { (message.workflow_run_id) } }
                                        td { @for label in &message.labels { span.tag { (label) } } }
                                        td { (status_cell(message.response_status)) }
                                        td { (state_badge(message.failure_function_state)) }
                                    }
                                }
                            }
                        }
                    }
                }
                nav.pager aria-label="Pages" {
                    @if paged {
                        a.button.secondary href=(with_query("/console/dlq", &filter_query)) { "First page" }
                    }
                    @if let Some(cursor) = &listing.next_cursor {
                        @let next = if filter_query.is_empty() { format!("cursor={}", encode_component(cursor)) } else { format!("{filter_query}&cursor={}", encode_component(cursor)) };
                        a.button #next-page rel="next" href=(with_query("/console/dlq", &next)) { "Next page" }
                    }
                }
            }
        }
    };
    view::page(
        status,
        "Failed runs",
        Some(Section::Dlq),
        viewer,
        flash.as_deref(),
        body,
    )
}

fn status_cell(status: Option<i64>) -> Markup {
    html! {
        @match status {
            Some(status) => span class=(format!("status-{}", status / 100)) { (status) },
            None => span.muted { "no response" },
        }
    }
}

fn state_name(state: FailureFunctionState) -> &'static str {
    STATES
        .iter()
        .find(|(candidate, _)| *candidate == state)
        .map(|(_, name)| *name)
        .unwrap_or("")
}

fn state_badge(state: Option<FailureFunctionState>) -> Markup {
    html! {
        @match state {
            Some(state) => span class=(format!("state state-{}", state_name(state))) { (state_name(state)) },
            None => span.muted { "none" },
        }
    }
}

/// The list operation's filters as a GET form: the same names, so the page's URL is the API's
/// query. Multi-value filters take one comma-separated value, as the API does.
fn filter_form(query: &str) -> Markup {
    let text = |key: &str, label: &str, hint: &str| {
        let id = format!("f-{key}");
        html! {
            div.field {
                label for=(id) { (label) }
                input id=(id) name=(key) type="text" value=(typed_value(query, key)) placeholder=(hint);
            }
        }
    };
    let millis = |key: &str, label: &str| {
        let id = format!("f-{key}");
        let picker = format!("p-{key}");
        html! {
            div.field {
                label for=(id) { (label) " (Unix ms)" }
                input id=(id) name=(key) type="number" step="1" value=(typed_value(query, key));
                input id=(picker) type="datetime-local" data-ms-for=(id) hidden aria-label=(format!("{label} (local time)"));
            }
        }
    };
    let states = typed_value(query, "failureFunctionState");
    let chosen: Vec<&str> = states.split(',').collect();
    let count = typed_value(query, "count");
    // Every key of the spec's filter group gets a field, so a filter added to the spec appears
    // here without a change; the known ones get a friendlier label and control.
    let field = |key: &str| match key {
        "failureFunctionState" => html! {},
        "fromDate" => millis(key, "Created from"),
        "toDate" => millis(key, "Created to"),
        "workflowCreatedAt" => millis(key, "Run created at"),
        "label" => text(key, "Label", "e.g. billing,etl"),
        "workflowUrl" => text(key, "Workflow URL", "e.g. https://…/checkout"),
        "workflowRunId" => text(key, "Workflow run id", "e.g. wfr_…"),
        "callerIp" => text(key, "Caller IP", "e.g. 203.0.113.7"),
        "flowControlKey" => text(key, "Flow control key", "e.g. tenant-acme"),
        other => text(other, other, ""),
    };
    html! {
        form.filters-form method="get" action="/console/dlq" {
            fieldset {
                legend { "Filters" }
                div.filters {
                    // Text filters first, then the times, each in the spec's order.
                    @for key in DlqFilter::QUERY_KEYS.iter().filter(|k| !MILLIS_KEYS.contains(k)) {
                        (field(key))
                    }
                    @for key in DlqFilter::QUERY_KEYS.iter().filter(|k| MILLIS_KEYS.contains(k)) {
                        (field(key))
                    }
                    div.field {
                        label for="f-count" { "Page size" }
                        select #f-count name="count" {
                            option value="" selected[count.is_empty()] { "API default (100)" }
                            @for size in PAGE_SIZES {
                                option value=(size) selected[count == size.to_string()] { (size) }
                            }
                        }
                    }
                    fieldset.states {
                        legend { "Failure function state" }
                        @for (_, name) in STATES {
                            @let id = format!("f-state-{name}");
                            span {
                                input type="checkbox" id=(id) name="failureFunctionState" value=(name) checked[chosen.contains(&name)];
                                " "
                                label for=(id) { (name) }
                            }
                        }
                    }
                    div.actions {
                        button type="submit" { "Apply filters" }
                        a.button.secondary href="/console/dlq" { "Clear" }
                    }
                }
            }
        }
    }
}

fn dlq_id_params(dlq_id: &str) -> PathParams {
    PathParams::new(vec![("dlqId".to_owned(), dlq_id.to_owned())])
}

/// `GET /console/dlq/{dlqId}`: one failed run, whole.
pub async fn dlq_detail(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(dlq_id): Path<String>,
) -> Response {
    let flash = console.sessions.take_flash(&viewer);
    let request = match GetWorkflowDlqRequest::parse(&dlq_id_params(&dlq_id), &Query::default()) {
        Ok(request) => request,
        Err(rejection) => {
            return failure(
                &viewer,
                rejection.status(),
                "Bad request",
                rejection.message(),
            );
        }
    };
    let run = match MessagingApi::get_workflow_dlq(&*console.service, (), request).await {
        GetWorkflowDlqResponse::Ok(run) => run,
        GetWorkflowDlqResponse::NotFound(body) => {
            return failure(
                &viewer,
                StatusCode::NOT_FOUND,
                "Not in the DLQ",
                &body.error,
            );
        }
        other => return internal(&viewer, &format!("reading the entry failed: {other:?}")),
    };
    view::page(
        StatusCode::OK,
        &format!("Failed run {}", run.dlq_id),
        Some(Section::Dlq),
        &viewer,
        flash.as_deref(),
        run_view(&viewer, &run),
    )
}

fn run_view(viewer: &Viewer, run: &FailedWorkflowRun) -> Markup {
    let now = now_ms();
    let info = run.failure_callback_info.as_ref();
    html! {
        p { a href="/console/dlq" { "← All failed runs" } }
        h1 { "Failed run " code #dlq-id { (run.dlq_id) } }
        div.actions-row {
            form method="post" action=(format!("/console/dlq/{}/delete", encode_component(&run.dlq_id))) {
                (view::csrf_field(viewer))
                button.danger #delete-entry type="submit" { "Delete this entry" }
            }
            form method="post" action=(format!("/console/runs/{}/cancel", encode_component(&run.workflow_run_id))) {
                (view::csrf_field(viewer))
                button.secondary #cancel-run type="submit" { "Cancel run " (run.workflow_run_id) }
            }
        }
        div.grid2 {
            section.card {
                h2 { "Run" }
                table.kv {
                    tbody {
                        tr { th scope="row" { "DLQ id" } td { code { (run.dlq_id) } } }
                        tr { th scope="row" { "Message id" } td { code { (run.message_id) } } }
                        tr { th scope="row" { "Created" } td { (moment(run.created_at, now)) } }
                        tr { th scope="row" { "Workflow URL" } td { (run.workflow_url) } }
                        tr { th scope="row" { "Workflow run id" } td { a href=(format!("/console/dlq?workflowRunId={}", encode_component(&run.workflow_run_id))) { code { (run.workflow_run_id) } } } }
                        tr { th scope="row" { "Run created" } td { (moment(run.workflow_created_at, now)) } }
                        tr { th scope="row" { "Labels" } td { @for label in &run.labels { span.tag { (label) } } @if let Some(label) = &run.label { span.muted { " (label: " (label) ")" } } } }
                        tr { th scope="row" { "Caller IP" } td { (run.caller_ip.as_deref().unwrap_or("—")) } }
                        tr { th scope="row" { "Flow control key" } td { (run.flow_control_key.as_deref().unwrap_or("—")) } }
                        tr { th scope="row" { "Max retries" } td { (run.max_retries) } }
                        @if let Some(not_before) = run.not_before {
                            tr { th scope="row" { "Not before" } td { (moment(not_before, now)) } }
                        }
                    }
                }
            }
            section.card {
                h2 { "Failure function" }
                @match &run.failure_callback {
                    None => p.muted { "This run has no failure function." },
                    Some(callback) => {
                        table.kv {
                            tbody {
                                tr { th scope="row" { "URL" } td { (callback) } }
                                tr { th scope="row" { "State" } td { (state_badge(info.map(|i| i.state))) } }
                                @if let Some(status) = info.and_then(|i| i.response_status) {
                                    tr { th scope="row" { "Response status" } td { (status_cell(Some(status))) } }
                                }
                            }
                        }
                        (view::headers_table("Failure function request headers", run.failure_callback_header.as_ref()))
                        @if let Some(info) = info {
                            (view::headers_table("Failure function response headers", info.response_headers.as_ref()))
                            (view::body("Failure function response body", info.response_body.as_deref(), None))
                        }
                    }
                }
            }
        }
        section.card {
            h2 { "Request" }
            p { code { (run.method) " " (run.url) } }
            (view::headers_table("Request headers", Some(&run.header)))
            (view::body("Request body", run.body.as_deref(), run.body_base64.as_deref()))
        }
        section.card {
            h2 { "Last response" }
            p { "Status " (status_cell(run.response_status)) }
            (view::headers_table("Response headers", run.response_header.as_ref()))
            (view::body("Response body", run.response_body.as_deref(), run.response_body_base64.as_deref()))
        }
    }
}

/// `POST /console/dlq/{dlqId}/delete`.
pub async fn dlq_delete(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(dlq_id): Path<String>,
) -> Response {
    let request = match DeleteDlqMessageRequest::parse(&dlq_id_params(&dlq_id), &Query::default()) {
        Ok(request) => request,
        Err(rejection) => {
            return failure(
                &viewer,
                rejection.status(),
                "Bad request",
                rejection.message(),
            );
        }
    };
    match MessagingApi::delete_dlq_message(&*console.service, (), request).await {
        DeleteDlqMessageResponse::Ok => {
            console
                .sessions
                .set_flash(&viewer, format!("Deleted the DLQ entry {dlq_id}."));
            Redirect::to("/console/dlq").into_response()
        }
        DeleteDlqMessageResponse::NotFound(body) => failure(
            &viewer,
            StatusCode::NOT_FOUND,
            "Not in the DLQ",
            &body.error,
        ),
        DeleteDlqMessageResponse::InsufficientStorage(body) => failure(
            &viewer,
            StatusCode::INSUFFICIENT_STORAGE,
            "Storage full",
            &body.error,
        ),
        other => internal(&viewer, &format!("deleting the entry failed: {other:?}")),
    }
}

/// `POST /console/runs/{workflowRunId}/cancel`: cancels the run, which removes its entries.
pub async fn run_cancel(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(run_id): Path<String>,
) -> Response {
    let path = PathParams::new(vec![("workflowRunId".to_owned(), run_id.clone())]);
    let request = match CancelWorkflowRunRequest::parse(&path, &Query::default()) {
        Ok(request) => request,
        Err(rejection) => {
            return failure(
                &viewer,
                rejection.status(),
                "Bad request",
                rejection.message(),
            );
        }
    };
    match MessagingApi::cancel_workflow_run(&*console.service, (), request).await {
        CancelWorkflowRunResponse::Ok => {
            console.sessions.set_flash(
                &viewer,
                format!("Cancelled the run {run_id}; its DLQ entries are gone."),
            );
            Redirect::to("/console/dlq").into_response()
        }
        CancelWorkflowRunResponse::NotFound(body) => {
            failure(&viewer, StatusCode::NOT_FOUND, "No such run", &body.error)
        }
        other => internal(&viewer, &format!("cancelling the run failed: {other:?}")),
    }
}

/// The bulk delete's request: the list filters (or `dlqIds`) of the query, parsed by the bulk
/// delete operation's own parser; `cursor` and `count` are the console's to set.
fn bulk_request(raw: Option<&str>) -> Result<(String, DeleteWorkflowDlqBulkRequest), String> {
    let query = form_query(raw.unwrap_or(""), &["cursor", "count"]);
    let query_with_batch = if query.is_empty() {
        format!("count={BULK_BATCH}")
    } else {
        format!("{query}&count={BULK_BATCH}")
    };
    DeleteWorkflowDlqBulkRequest::parse(&PathParams::default(), &Query::parse(&query_with_batch))
        .map(|request| (query, request))
        .map_err(|rejection| rejection.message().to_owned())
}

/// Describes the filters of a query in words, for the confirmation.
fn filter_summary(query: &str) -> Markup {
    let mut by_key: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, _) = pair.split_once('=').unwrap_or((pair, ""));
        by_key
            .entry(key.to_owned())
            .or_insert_with(|| vec![typed_value(query, key)]);
    }
    html! {
        @if by_key.is_empty() {
            p { strong { "No filters: every entry in the DLQ." } }
        } @else {
            ul {
                @for (key, values) in &by_key {
                    li { code { (key) } " = " (values.join(",")) }
                }
            }
        }
    }
}

/// `GET /console/bulk-delete?<filters>`: states how many entries would go and asks.
pub async fn bulk_delete_confirm(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let (query, request) = match bulk_request(raw.as_deref()) {
        Ok(parsed) => parsed,
        Err(message) => {
            return failure(
                &viewer,
                StatusCode::BAD_REQUEST,
                "Filters not valid",
                &message,
            );
        }
    };
    let (count, more) = if request.dlq_ids.is_empty() {
        match count_matching(&console, request.filter.clone()).await {
            Ok(count) => count,
            Err(message) => return internal(&viewer, &message),
        }
    } else {
        // Decision 6: with ids the filters are ignored; unknown ids are skipped, so this is
        // the most that can go.
        (request.dlq_ids.len() as u64, false)
    };
    let entries = if (count, more) == (1, false) {
        "entry"
    } else {
        "entries"
    };
    let body = html! {
        h1 { "Delete failed runs" }
        p #bulk-count data-count=(count) {
            "This deletes " strong { (count_text((count, more))) " " (entries) } " matching:"
        }
        (filter_summary(&query))
        @if count == 0 {
            p { "Nothing matches; nothing would be deleted." }
        }
        div.actions-row {
            @if count > 0 {
                form method="post" action=(with_query("/console/bulk-delete", &query)) {
                    (view::csrf_field(&viewer))
                    button.danger #confirm-delete type="submit" { "Delete " (count_text((count, more))) " " (entries) }
                }
            }
            a.button.secondary href=(with_query("/console/dlq", &query)) { "Cancel" }
        }
    };
    view::page(
        StatusCode::OK,
        "Delete failed runs",
        Some(Section::Dlq),
        &viewer,
        None,
        body,
    )
}

/// `POST /console/bulk-delete?<filters>`: deletes everything matching, batch by batch through
/// the bulk delete operation and its cursor.
pub async fn bulk_delete(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let (query, mut request) = match bulk_request(raw.as_deref()) {
        Ok(parsed) => parsed,
        Err(message) => {
            return failure(
                &viewer,
                StatusCode::BAD_REQUEST,
                "Filters not valid",
                &message,
            );
        }
    };
    let mut deleted = 0i64;
    loop {
        match MessagingApi::delete_workflow_dlq_bulk(&*console.service, (), request.clone()).await {
            DeleteWorkflowDlqBulkResponse::Ok(batch) => {
                deleted += batch.deleted;
                match batch.cursor {
                    Some(cursor) => request.cursor = Some(cursor),
                    None => break,
                }
            }
            DeleteWorkflowDlqBulkResponse::BadRequest(body) => {
                return failure(
                    &viewer,
                    StatusCode::BAD_REQUEST,
                    "Filters not valid",
                    &body.error,
                );
            }
            other => {
                return internal(
                    &viewer,
                    &format!("deleting failed after {deleted} entries: {other:?}"),
                );
            }
        }
    }
    console.sessions.set_flash(
        &viewer,
        format!(
            "Deleted {deleted} {}.",
            if deleted == 1 { "entry" } else { "entries" }
        ),
    );
    let back = form_query(&query, &["dlqIds"]);
    Redirect::to(&with_query("/console/dlq", &back)).into_response()
}

/// `GET /console/topics`: the URL groups and their endpoints.
pub async fn topics(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
) -> Response {
    let groups = match console.service.blocking(|store| store.url_groups()).await {
        Ok(groups) => groups,
        Err(error) => return internal(&viewer, &error.to_string()),
    };
    let now = now_ms();
    let body = html! {
        h1 { "Topics (URL groups)" }
        @if groups.is_empty() {
            p.muted { "No URL groups yet." }
        }
        @for group in &groups {
            section.card data-topic=(group.name) {
                h2 { (group.name) }
                p.muted { "Created " (moment(group.created_at, now)) " · updated " (moment(group.updated_at, now)) }
                table {
                    thead { tr { th scope="col" { "Endpoint" } th scope="col" { "URL" } } }
                    tbody {
                        @for endpoint in &group.endpoints {
                            tr {
                                td { @if endpoint.name.is_empty() { span.muted { "(unnamed)" } } @else { (endpoint.name) } }
                                td { code { (endpoint.url) } }
                            }
                        }
                    }
                }
            }
        }
    };
    view::page(
        StatusCode::OK,
        "Topics",
        Some(Section::Topics),
        &viewer,
        None,
        body,
    )
}

/// `GET /console/search`: the search indexes.
pub async fn indexes(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
) -> Response {
    let indexes = match console.service.blocking(|store| store.indexes()).await {
        Ok(indexes) => indexes,
        Err(error) => return internal(&viewer, &error.to_string()),
    };
    let body = html! {
        h1 { "Search indexes" }
        @if indexes.is_empty() {
            p.muted { "No search indexes yet." }
        } @else {
            div.table-wrap {
                table {
                    thead { tr { th scope="col" { "Name" } th scope="col" { "Id" } th scope="col" { "Region" } th scope="col" { "Endpoint" } } }
                    tbody {
                        @for index in &indexes {
                            tr {
                                td { a href=(format!("/console/search/{}", index.id)) { (index.name) } }
                                td { code { (index.id) } }
                                td { (index.region.to_string()) }
                                td { code { (index.endpoint) } }
                            }
                        }
                    }
                }
            }
        }
    };
    view::page(
        StatusCode::OK,
        "Search indexes",
        Some(Section::Search),
        &viewer,
        None,
        body,
    )
}

/// `GET /console/search/{id}?period=`: an index and its statistics.
pub async fn index(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = form_query(raw.as_deref().unwrap_or(""), &[]);
    let path = PathParams::new(vec![("id".to_owned(), id.clone())]);
    let (index_request, stats_request) = match (
        GetSearchIndexRequest::parse(&path, &Query::default()),
        GetSearchIndexStatsRequest::parse(&path, &Query::parse(&query)),
    ) {
        (Ok(index), Ok(stats)) => (index, stats),
        (Err(rejection), _) | (_, Err(rejection)) => {
            return failure(
                &viewer,
                rejection.status(),
                "Bad request",
                rejection.message(),
            );
        }
    };
    let period = stats_request.period;
    let index = match ManagementApi::get_search_index(&*console.service, (), index_request).await {
        GetSearchIndexResponse::Ok(index) => index,
        GetSearchIndexResponse::NotFound(body) => {
            return failure(&viewer, StatusCode::NOT_FOUND, "No such index", &body.error);
        }
        other => return internal(&viewer, &format!("reading the index failed: {other:?}")),
    };
    let stats =
        match ManagementApi::get_search_index_stats(&*console.service, (), stats_request).await {
            GetSearchIndexStatsResponse::Ok(stats) => stats,
            other => return internal(&viewer, &format!("index statistics failed: {other:?}")),
        };
    let json = serde_json::to_value(&stats).unwrap_or_default();
    let base = format!("/console/search/{}", index.id);
    let body = html! {
        p { a href="/console/search" { "← All search indexes" } }
        h1 { "Search index " (index.name) }
        table.kv {
            tbody {
                tr { th scope="row" { "Id" } td { code { (index.id) } } }
                tr { th scope="row" { "Endpoint" } td { code { (index.endpoint) } } }
                tr { th scope="row" { "Type" } td { (index.type_.to_string()) } }
                tr { th scope="row" { "Region" } td { (index.region.to_string()) } }
                tr { th scope="row" { "Max vectors" } td { (index.max_vector_count) } }
                tr { th scope="row" { "Max queries per second" } td { (index.max_query_per_second) } }
                tr { th scope="row" { "Max writes per second" } td { (index.max_writes_per_second) } }
            }
        }
        (statistics(&base, period, &json))
    };
    view::page(
        StatusCode::OK,
        &format!("Index {}", index.name),
        Some(Section::Search),
        &viewer,
        None,
        body,
    )
}

/// `GET /console/stats?period=`: the account statistics.
pub async fn stats(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = form_query(raw.as_deref().unwrap_or(""), &[]);
    let request = match GetAccountStatsRequest::parse(&PathParams::default(), &Query::parse(&query))
    {
        Ok(request) => request,
        Err(rejection) => {
            return failure(
                &viewer,
                rejection.status(),
                "Bad request",
                rejection.message(),
            );
        }
    };
    let period = request.period;
    let stats = match ManagementApi::get_account_stats(&*console.service, (), request).await {
        GetAccountStatsResponse::Ok(stats) => stats,
        other => return internal(&viewer, &format!("account statistics failed: {other:?}")),
    };
    let json = serde_json::to_value(&stats).unwrap_or_default();
    let body = html! {
        h1 { "Account statistics" }
        (statistics("/console/stats", period, &json))
    };
    view::page(
        StatusCode::OK,
        "Statistics",
        Some(Section::Stats),
        &viewer,
        None,
        body,
    )
}

const PERIODS: [courier_models::StatsPeriod; 7] = [
    courier_models::StatsPeriod::OneHour,
    courier_models::StatsPeriod::ThreeHours,
    courier_models::StatsPeriod::TwelveHours,
    courier_models::StatsPeriod::OneDay,
    courier_models::StatsPeriod::ThreeDays,
    courier_models::StatsPeriod::SevenDays,
    courier_models::StatsPeriod::ThirtyDays,
];

/// Figures, the period selector and one chart per series of a statistics response. The
/// response is read as JSON so every series the spec adds is charted without a change here:
/// arrays of `{x, y, …}` points (one chart per numeric field) and of `{id, data_points}`
/// named series (one chart per id). Series with one point per day of `days` are the month's,
/// drawn with days of the month; the others cover the chosen period.
fn statistics(base: &str, period: courier_models::StatsPeriod, json: &serde_json::Value) -> Markup {
    let empty = serde_json::Map::new();
    let object = json.as_object().unwrap_or(&empty);
    let days = object
        .get("days")
        .and_then(|d| d.as_array())
        .map_or(0, Vec::len);
    let mut figures = Vec::new();
    let (mut month, mut recent): (Vec<Series>, Vec<Series>) = (Vec::new(), Vec::new());
    for (key, value) in object {
        if let Some(number) = value.as_f64() {
            figures.push((key.clone(), number));
            continue;
        }
        let Some(items) = value.as_array() else {
            continue;
        };
        let by_day = days > 0 && items.len() == days;
        let bucket = if by_day { &mut month } else { &mut recent };
        for series in series_of(key, items, by_day) {
            bucket.push(series);
        }
    }
    // Series with activity first, so what moved is on screen; the quiet ones keep their order.
    for charts in [&mut recent, &mut month] {
        charts.sort_by_key(|series| series.points.iter().all(|p| p.value == 0.0));
    }
    html! {
        nav aria-label="Statistics period" {
            ul.periods {
                @for choice in PERIODS {
                    li {
                        a href=(format!("{base}?period={choice}")) aria-current=[(choice == period).then_some("page")] { (choice.to_string()) }
                    }
                }
            }
        }
        dl.figures {
            @for (key, value) in &figures {
                div { dt { (title_of(key)) } dd data-figure=(key) { (view::number(*value)) } }
            }
        }
        h2 { "Last " (period.to_string()) }
        div.charts { @for series in &recent { (chart::render(series)) } }
        @if !month.is_empty() {
            h2 { "This month, by day" }
            div.charts { @for series in &month { (chart::render(series)) } }
        }
    }
}

/// The charts of one array of a statistics response.
fn series_of(key: &str, items: &[serde_json::Value], by_day: bool) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for item in items {
        let Some(fields) = item.as_object() else {
            continue;
        };
        if let (Some(id), Some(points)) = (
            fields.get("id").and_then(|v| v.as_str()),
            fields.get("data_points").and_then(|v| v.as_array()),
        ) {
            out.extend(series_of(&format!("{key}.{id}"), points, by_day));
            continue;
        }
        let Some(x) = fields.get("x").and_then(|v| v.as_str()) else {
            continue;
        };
        // `y` first, so a series' main value is charted before its breakdowns.
        let mut numeric: Vec<(&String, f64)> = fields
            .iter()
            .filter_map(|(field, value)| Some((field, value.as_f64()?)))
            .collect();
        numeric.sort_by_key(|(field, _)| *field != "y");
        for (field, value) in numeric {
            let id = if field == "y" {
                key.to_owned()
            } else {
                format!("{key}.{field}")
            };
            let point = chart::point(x, value, by_day);
            match out.iter_mut().find(|series| series.id == id) {
                Some(series) => series.points.push(point),
                None => out.push(Series {
                    title: title_of(&id),
                    id,
                    points: vec![point],
                }),
            }
        }
    }
    out
}

/// `daily_svc_messages.delivered` → `Daily svc messages · delivered`.
fn title_of(id: &str) -> String {
    let mut parts = id.split('.');
    let head = parts
        .next()
        .unwrap_or("")
        .replace('_', " ")
        .replace("dlq", "DLQ")
        .replace("svc", "service");
    let mut title: String = head
        .chars()
        .enumerate()
        .map(|(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c })
        .collect();
    for part in parts {
        title.push_str(" · ");
        title.push_str(&part.replace('_', " "));
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_form_fields_are_dropped_and_the_rest_kept_raw() {
        assert_eq!(
            form_query("label=&callerIp=1.2.3.4&workflowUrl=a%2Cb&count=", &[]),
            "callerIp=1.2.3.4&workflowUrl=a%2Cb"
        );
        assert_eq!(form_query("label=x&cursor=d1.aa", &["cursor"]), "label=x");
        assert_eq!(typed_value("label=a&label=b+c", "label"), "a,b c");
    }

    #[test]
    fn the_form_has_a_field_for_every_filter_of_the_spec() {
        let form = filter_form("label=a%2Cb&failureFunctionState=CALLBACK_FAIL").into_string();
        for key in DlqFilter::QUERY_KEYS {
            assert!(form.contains(&format!("name=\"{key}\"")), "{key}");
        }
        assert!(form.contains("value=\"a,b\""), "values refilled as typed");
        assert!(form.contains("value=\"CALLBACK_FAIL\" checked"));
    }

    #[test]
    fn statistics_arrays_become_one_series_per_field() {
        let items: Vec<serde_json::Value> = serde_json::from_str(
            r#"[{"x":"2025-11-01 00:00:00.000 +0000 UTC","y":1,"workflow_run":2},
                {"x":"2025-11-02 00:00:00.000 +0000 UTC","y":3,"workflow_run":4}]"#,
        )
        .unwrap();
        let series = series_of("daily_requests", &items, true);
        let ids: Vec<&str> = series.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["daily_requests", "daily_requests.workflow_run"]);
        assert_eq!(series[0].points[1].value, 3.0);
        assert_eq!(
            title_of("daily_svc_messages.run_failed"),
            "Daily service messages · run failed"
        );
        assert_eq!(title_of("dlq_message_count"), "DLQ message count");
    }
}
