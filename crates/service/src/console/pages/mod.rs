//! The console's pages and actions. Each parses its input with the generated `*Request::parse`
//! and calls the `MessagingApi`/`ManagementApi` method the API route calls, so a page shows
//! exactly what the API answers for the same query.
//!
//! In rooms: `dlq` (the list, one run, delete and cancel), `bulk` (bulk delete and its
//! confirmation) and `resources` (URL groups, search indexes and statistics); here what they
//! share (forms, error pages, counting).

use super::Console;
use super::chart::{self, Series};
use super::filters::form_query;
use super::view::{self, Section, encode_component, moment};
use super::viewer::Viewer;
use crate::store::{Store, StoreError};
use crate::time::now_ms;
use axum::Extension;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use courier_models::{DlqFilter, FailedWorkflowRun, FailureFunctionState, WorkflowDlqMessage};
use courier_server::query::{Query, decode_key};
use courier_server::runtime::PathParams;
use courier_server::{ManagementApi, MessagingApi};
use maud::{Markup, html};
use std::collections::BTreeMap;
use std::sync::Arc;

mod bulk;
mod dlq;
mod resources;

pub(super) use bulk::{bulk_delete, bulk_delete_confirm};
pub(super) use dlq::{dlq_delete, dlq_detail, dlq_list, run_cancel};
pub(super) use resources::{index, indexes, stats, topics};

/// Counting matches stops here: past it the page says "more than", so a count never costs
/// more than reading this many ids.
const COUNT_LIMIT: usize = 10_000;
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

/// The decoded values of `key` (however the query spells it) in a query, comma-joined, to refill
/// a form field as typed.
fn typed_value(query: &str, key: &str) -> String {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(name, _)| decode_key(name) == key)
        .map(|(_, value)| {
            percent_encoding::percent_decode_str(&value.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect::<Vec<_>>()
        .join(",")
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

/// A page of a console section, answered 200 without a notice.
fn section_page(section: Section, title: &str, viewer: &Viewer, body: Markup) -> Response {
    view::page(StatusCode::OK, title, Some(section), viewer, None, body)
}

/// The page for refused filters of a bulk delete.
fn invalid_filters(viewer: &Viewer, message: &str) -> Response {
    failure(
        viewer,
        StatusCode::BAD_REQUEST,
        "Filters not valid",
        message,
    )
}

/// The page for a DLQ entry that is not (or no longer) there.
fn not_in_dlq(viewer: &Viewer, message: &str) -> Response {
    failure(viewer, StatusCode::NOT_FOUND, "Not in the DLQ", message)
}

/// The page for input the generated `*Request::parse` refused: its status and message.
fn rejected(viewer: &Viewer, rejection: &courier_server::runtime::Rejection) -> Response {
    failure(
        viewer,
        rejection.status(),
        "Bad request",
        rejection.message(),
    )
}

/// The page for an API answer this page has no use for: the store being unreachable (a shared
/// PostgreSQL server down) is a 503 the operator can wait out, anything else a fault.
fn unexpected(
    viewer: &Viewer,
    what: &str,
    answer: impl IntoResponse + std::fmt::Debug,
) -> Response {
    let message = format!("{what} failed: {answer:?}");
    if answer.into_response().status() == StatusCode::SERVICE_UNAVAILABLE {
        return failure(
            viewer,
            StatusCode::SERVICE_UNAVAILABLE,
            "Store unavailable",
            &message,
        );
    }
    internal(viewer, &message)
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
pub(super) async fn not_found(
    Extension(viewer): Extension<Viewer>,
    uri: axum::http::Uri,
) -> Response {
    failure(
        &viewer,
        StatusCode::NOT_FOUND,
        "Not found",
        &format!("the console has no page at {}", uri.path()),
    )
}

/// Reads from the store on the blocking pool; a failure is the error page.
async fn read_store<T: Send + 'static>(
    console: &Console,
    viewer: &Viewer,
    read: impl FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Response> {
    console
        .service
        .blocking(read)
        .await
        .map_err(|error| match error {
            StoreError::Unavailable(message) => failure(
                viewer,
                StatusCode::SERVICE_UNAVAILABLE,
                "Store unavailable",
                &message,
            ),
            other => internal(viewer, &other.to_string()),
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_values_are_decoded_and_comma_joined() {
        assert_eq!(typed_value("label=a&label=b+c", "label"), "a,b c");
        assert_eq!(typed_value("l%61bel=%E2%82%AC", "label"), "€");
    }
}
