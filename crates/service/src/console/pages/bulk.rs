//! Bulk delete: the confirmation that states how many entries match, and the delete itself.

use super::{
    Arc, BTreeMap, Console, Extension, Markup, MessagingApi, RawQuery, Redirect, Response, Section,
    State, Viewer, count_matching, count_text, html, internal, invalid_filters, section_page,
    typed_value, view,
};
use crate::console::filters::{back_to_list, bulk_delete_action, bulk_delete_request};
use axum::response::IntoResponse as _;
use courier_server::DeleteWorkflowDlqBulkResponse;
use courier_server::query::decode_key;

/// Describes the filters of a query in words, for the confirmation.
fn filter_summary(query: &str) -> Markup {
    let mut by_key: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, _) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode_key(key);
        let values = typed_value(query, &key);
        by_key.entry(key).or_insert_with(|| vec![values]);
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
pub(crate) async fn bulk_delete_confirm(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let (query, request) = match bulk_delete_request(raw.as_deref().unwrap_or("")) {
        Ok(parsed) => parsed,
        Err(message) => {
            return invalid_filters(&viewer, &message);
        }
    };
    let (count, more) = if request.dlq_ids.is_empty() {
        match count_matching(&console, request.filter.clone()).await {
            Ok(count) => count,
            Err(message) => return internal(&viewer, &message),
        }
    } else {
        // `docs/decisions.md#d6-bulk-delete-count`: with ids the filters are ignored; unknown ids
        // are skipped, so this is the most that can go.
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
                form method="post" action=(bulk_delete_action(&query)) {
                    (view::csrf_field(&viewer))
                    button.danger #confirm-delete type="submit" { "Delete " (count_text((count, more))) " " (entries) }
                }
            }
            a.button.secondary href=(back_to_list(&query)) { "Cancel" }
        }
    };
    section_page(Section::Dlq, "Delete failed runs", &viewer, body)
}

/// `POST /console/bulk-delete?<filters>`: deletes everything matching, batch by batch through
/// the bulk delete operation and its cursor.
pub(crate) async fn bulk_delete(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let (query, mut request) = match bulk_delete_request(raw.as_deref().unwrap_or("")) {
        Ok(parsed) => parsed,
        Err(message) => {
            return invalid_filters(&viewer, &message);
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
                return invalid_filters(&viewer, &body.error);
            }
            other => {
                return internal(
                    &viewer,
                    &format!("deleting failed after {deleted} entries: {other:?}"),
                );
            }
        }
    }
    console
        .sessions
        .set_flash(
            &viewer,
            format!(
                "Deleted {deleted} {}.",
                if deleted == 1 { "entry" } else { "entries" }
            ),
        )
        .await;
    Redirect::to(&back_to_list(&query)).into_response()
}
