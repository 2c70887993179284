//! The DLQ pages: the filtered list, one failed run, and its delete and cancel actions.

use super::{
    Arc, Console, DlqFilter, Extension, FailedWorkflowRun, FailureFunctionState, MILLIS_KEYS,
    Markup, MessagingApi, PAGE_SIZES, Path, PathParams, Query, RawQuery, Redirect, Response,
    STATES, Section, State, StatusCode, Viewer, WorkflowDlqMessage, count_matching, count_text,
    encode_component, failure, html, internal, moment, not_in_dlq, now_ms, rejected, typed_value,
    unexpected, view,
};
use crate::console::filters::{bulk_delete_link, first_page_link, list_request, next_page_link};
use axum::response::IntoResponse as _;
use courier_server::{
    CancelWorkflowRunRequest, CancelWorkflowRunResponse, DeleteDlqMessageRequest,
    DeleteDlqMessageResponse, GetWorkflowDlqRequest, GetWorkflowDlqResponse,
    ListWorkflowDlqResponse,
};

/// `GET /console/dlq`: the failed runs with the list operation's filters and cursor.
pub(crate) async fn dlq_list(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let (query, request) = list_request(raw.as_deref().unwrap_or(""));
    let flash = console.sessions.take_flash(&viewer).await;
    let request = match request {
        Ok(request) => request,
        Err(message) => return dlq_page(&viewer, flash, &query, Err(message)),
    };
    let filter = request.filter.clone();
    let paged = request.cursor.is_some();
    let page = match MessagingApi::list_workflow_dlq(&*console.service, (), request).await {
        // The API answers with the stored JSON; the console renders values.
        ListWorkflowDlqResponse::Ok(page) => match page.to_value() {
            Ok(page) => page,
            Err(error) => {
                return internal(&viewer, &format!("reading the DLQ page failed: {error}"));
            }
        },
        ListWorkflowDlqResponse::BadRequest(body) => {
            return dlq_page(&viewer, flash, &query, Err(body.error));
        }
        other => return unexpected(&viewer, "listing the DLQ", other),
    };
    let count = count_matching(&console, filter).await;
    let listing = Listing {
        messages: page.messages,
        next_cursor: page.cursor,
        count: count.ok(),
        paged,
    };
    dlq_page(&viewer, flash, &query, Ok(listing))
}

struct Listing {
    messages: Vec<WorkflowDlqMessage>,
    next_cursor: Option<String>,
    count: Option<(u64, bool)>,
    /// Whether this is a page after the first (the query has a cursor).
    paged: bool,
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
                            a.button.secondary href=(bulk_delete_link(query)) {
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
                    @if listing.paged {
                        a.button.secondary href=(first_page_link(query)) { "First page" }
                    }
                    @if let Some(cursor) = &listing.next_cursor {
                        a.button #next-page rel="next" href=(next_page_link(query, cursor)) { "Next page" }
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
pub(crate) async fn dlq_detail(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(dlq_id): Path<String>,
) -> Response {
    let flash = console.sessions.take_flash(&viewer).await;
    let request = match GetWorkflowDlqRequest::parse(&dlq_id_params(&dlq_id), &Query::default()) {
        Ok(request) => request,
        Err(rejection) => return rejected(&viewer, &rejection),
    };
    let run = match MessagingApi::get_workflow_dlq(&*console.service, (), request).await {
        GetWorkflowDlqResponse::Ok(run) => match run.to_value() {
            Ok(run) => run,
            Err(error) => return internal(&viewer, &format!("reading the entry failed: {error}")),
        },
        GetWorkflowDlqResponse::NotFound(body) => {
            return not_in_dlq(&viewer, &body.error);
        }
        other => return unexpected(&viewer, "reading the entry", other),
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
pub(crate) async fn dlq_delete(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(dlq_id): Path<String>,
) -> Response {
    let request = match DeleteDlqMessageRequest::parse(&dlq_id_params(&dlq_id), &Query::default()) {
        Ok(request) => request,
        Err(rejection) => return rejected(&viewer, &rejection),
    };
    match MessagingApi::delete_dlq_message(&*console.service, (), request).await {
        DeleteDlqMessageResponse::Ok => {
            console
                .sessions
                .set_flash(&viewer, format!("Deleted the DLQ entry {dlq_id}."))
                .await;
            Redirect::to("/console/dlq").into_response()
        }
        DeleteDlqMessageResponse::NotFound(body) => not_in_dlq(&viewer, &body.error),
        DeleteDlqMessageResponse::InsufficientStorage(body) => failure(
            &viewer,
            StatusCode::INSUFFICIENT_STORAGE,
            "Storage full",
            &body.error,
        ),
        other => unexpected(&viewer, "deleting the entry", other),
    }
}

/// `POST /console/runs/{workflowRunId}/cancel`: cancels the run, which removes its entries.
pub(crate) async fn run_cancel(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(run_id): Path<String>,
) -> Response {
    let path = PathParams::new(vec![("workflowRunId".to_owned(), run_id.clone())]);
    let request = match CancelWorkflowRunRequest::parse(&path, &Query::default()) {
        Ok(request) => request,
        Err(rejection) => return rejected(&viewer, &rejection),
    };
    match MessagingApi::cancel_workflow_run(&*console.service, (), request).await {
        CancelWorkflowRunResponse::Ok => {
            console
                .sessions
                .set_flash(
                    &viewer,
                    format!("Cancelled the run {run_id}; its DLQ entries are gone."),
                )
                .await;
            Redirect::to("/console/dlq").into_response()
        }
        CancelWorkflowRunResponse::NotFound(body) => {
            failure(&viewer, StatusCode::NOT_FOUND, "No such run", &body.error)
        }
        other => unexpected(&viewer, "cancelling the run", other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_has_a_field_for_every_filter_of_the_spec() {
        let form = filter_form("label=a%2Cb&failureFunctionState=CALLBACK_FAIL").into_string();
        for key in DlqFilter::QUERY_KEYS {
            assert!(form.contains(&format!("name=\"{key}\"")), "{key}");
        }
        assert!(form.contains("value=\"a,b\""), "values refilled as typed");
        assert!(form.contains("value=\"CALLBACK_FAIL\" checked"));
    }
}
