//! The DLQ filter form's query on its way through the console: the list page reads it, links to
//! its other pages and to the bulk delete's confirmation with it, the confirmation posts it to
//! the delete, and the delete sends the browser back to the list with it. Every step reads the
//! query with the generated parser of its operation; these functions are the only places that
//! carry it from one step to the next, and they are public so that the `console_filters` fuzz
//! target can check that each step reads the filters the step before showed.

use courier_server::query::{Query, decode_key};
use courier_server::runtime::PathParams;
use courier_server::{DeleteWorkflowDlqBulkRequest, ListWorkflowDlqRequest};

/// Entries a bulk delete removes per store transaction (the API's largest `count`).
pub const BULK_BATCH: i64 = 1000;

/// The query of a console form: pairs with an empty value are left out, because a form sends
/// every field and an empty field means "no filter" here, where the API calls `label=` a 400
/// (`docs/decisions.md#d12-multi-value-encoding`). `drop` removes keys the page sets itself,
/// however the query spells them. Everything else reaches the generated parser unchanged.
pub(crate) fn form_query(raw: &str, drop: &[&str]) -> String {
    raw.split('&')
        .filter(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            !value.is_empty() && !drop.contains(&decode_key(key).as_str())
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn with_query(path: &str, query: &str) -> String {
    if query.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{query}")
    }
}

/// How `GET /console/dlq` reads its query: the query as the page keeps it, and the list
/// operation's request or the parser's message.
pub fn list_request(raw: &str) -> (String, Result<ListWorkflowDlqRequest, String>) {
    let query = form_query(raw, &[]);
    let request = ListWorkflowDlqRequest::parse(&PathParams::default(), &Query::parse(&query))
        .map_err(|rejection| rejection.message().to_owned());
    (query, request)
}

/// The list page's query without its cursor: what its pager and its delete link carry on.
fn list_filters(list_query: &str) -> String {
    form_query(list_query, &["cursor"])
}

/// The list page's "First page" link.
pub fn first_page_link(list_query: &str) -> String {
    with_query("/console/dlq", &list_filters(list_query))
}

/// The list page's "Next page" link: the same filters and page size, and the cursor the page
/// was answered with.
pub fn next_page_link(list_query: &str, cursor: &str) -> String {
    let cursor = format!("cursor={}", super::view::encode_component(cursor));
    let filters = list_filters(list_query);
    if filters.is_empty() {
        with_query("/console/dlq", &cursor)
    } else {
        with_query("/console/dlq", &format!("{filters}&{cursor}"))
    }
}

/// The list page's "Delete all matching…" link: its filters, without the page's cursor and size.
pub fn bulk_delete_link(list_query: &str) -> String {
    with_query(
        "/console/bulk-delete",
        &form_query(&list_filters(list_query), &["count"]),
    )
}

/// How the bulk delete's confirmation (`GET /console/bulk-delete`) and the delete itself (`POST`)
/// read their query: the filters (or `dlqIds`), parsed by the bulk delete operation's own parser,
/// with the query as the pages pass it on; `cursor` and `count` are the console's to set.
pub fn bulk_delete_request(raw: &str) -> Result<(String, DeleteWorkflowDlqBulkRequest), String> {
    let query = form_query(raw, &["cursor", "count"]);
    let query_with_batch = if query.is_empty() {
        format!("count={BULK_BATCH}")
    } else {
        format!("{query}&count={BULK_BATCH}")
    };
    DeleteWorkflowDlqBulkRequest::parse(&PathParams::default(), &Query::parse(&query_with_batch))
        .map(|request| (query, request))
        .map_err(|rejection| rejection.message().to_owned())
}

/// Where the confirmation's form posts: the delete, with the query the confirmation read.
pub fn bulk_delete_action(query: &str) -> String {
    with_query("/console/bulk-delete", query)
}

/// Where the confirmation's "Cancel" and the delete's redirect send the browser: the list with
/// the same filters. `dlqIds` is left out: the list has no such filter, and after a delete by id
/// the ids are gone.
pub fn back_to_list(query: &str) -> String {
    with_query("/console/dlq", &form_query(query, &["dlqIds"]))
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
        assert_eq!(form_query("label=x&%63ursor=d1.aa", &["cursor"]), "label=x");
    }

    #[test]
    fn the_pager_and_the_delete_keep_the_filters_and_set_their_own_keys() {
        let list = "label=a&count=25&cursor=d1.aa";
        assert_eq!(first_page_link(list), "/console/dlq?label=a&count=25");
        assert_eq!(
            next_page_link(list, "d1.bb"),
            "/console/dlq?label=a&count=25&cursor=d1.bb"
        );
        assert_eq!(next_page_link("", "d1.bb"), "/console/dlq?cursor=d1.bb");
        assert_eq!(bulk_delete_link(list), "/console/bulk-delete?label=a");
        assert_eq!(bulk_delete_link("count=25"), "/console/bulk-delete");
    }

    #[test]
    fn the_delete_reads_what_its_confirmation_read_and_returns_without_ids() {
        let (query, request) = bulk_delete_request("dlqIds=x&label=a&cursor=d1.aa&count=5")
            .expect("a valid bulk delete");
        assert_eq!(query, "dlqIds=x&label=a");
        assert_eq!(
            (request.count, request.cursor.as_deref()),
            (BULK_BATCH, None)
        );
        assert_eq!(bulk_delete_request(&query), Ok((query.clone(), request)));
        assert_eq!(
            bulk_delete_action(&query),
            "/console/bulk-delete?dlqIds=x&label=a"
        );
        assert_eq!(back_to_list(&query), "/console/dlq?label=a");
        assert!(bulk_delete_request("label=a,,b").is_err());
    }
}
