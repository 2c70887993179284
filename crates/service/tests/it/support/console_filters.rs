//! The contract of the console's DLQ filter query on its way from page to page, checked on one
//! query as a request could carry it: by the property test in `hostile_payloads.rs` and by the
//! `console_filters` fuzz target, which compiles this file from its path. Panics when broken.

use axum::http::{HeaderValue, Uri};
use courier_service::console::filters::{
    BULK_BATCH, back_to_list, bulk_delete_action, bulk_delete_link, bulk_delete_request,
    first_page_link, list_request, next_page_link,
};

/// A cursor of the spec's shape, as the list operation answers one.
const CURSOR: &str = "d1.3137363132343038343530303030";

/// The query of `GET /console/dlq?<text>` as the server would see it, or `None` when no
/// request could carry `text` (what `http::Uri` refuses never reaches a handler).
pub(super) fn query_of_a_request(text: &str) -> Option<String> {
    let uri: Uri = format!("/console/dlq?{text}").parse().ok()?;
    Some(uri.query().unwrap_or("").to_owned())
}

/// Checks a link the console writes (an `href`, a form's `action` or a redirect's `Location`):
/// a valid header value and URI on `path`, whose query it returns.
fn followed(link: &str, path: &str) -> String {
    assert!(
        HeaderValue::from_str(link).is_ok(),
        "not a Location: {link:?}"
    );
    let uri: Uri = link
        .parse()
        .unwrap_or_else(|e| panic!("not a URI: {link:?}: {e}"));
    assert_eq!(uri.path(), path, "{link:?}");
    uri.query().unwrap_or("").to_owned()
}

/// Every step after the list page and after the bulk delete's confirmation reads the filters the
/// step before showed: the pager keeps them, the delete link counts them, the delete deletes
/// what its confirmation counted, and the list it returns to shows them again.
pub(super) fn check_console_filters(raw: &str) {
    let (list_query, list) = list_request(raw);
    if let Ok(list) = &list {
        for (link, cursor) in [
            (first_page_link(&list_query), None),
            (next_page_link(&list_query, CURSOR), Some(CURSOR)),
        ] {
            let (_, page) = list_request(&followed(&link, "/console/dlq"));
            let page = page.unwrap_or_else(|e| panic!("{link:?} is refused: {e}"));
            assert_eq!(page.filter, list.filter, "{link:?}");
            assert_eq!(page.count, list.count, "{link:?}");
            assert_eq!(page.cursor.as_deref(), cursor, "{link:?}");
        }
        let link = bulk_delete_link(&list_query);
        let (_, bulk) = bulk_delete_request(&followed(&link, "/console/bulk-delete"))
            .unwrap_or_else(|e| panic!("the list's filters {list_query:?} do not delete: {e}"));
        assert_eq!(bulk.filter, list.filter, "{link:?}");
        assert!(bulk.dlq_ids.is_empty(), "{link:?}");
    }
    if let Ok((query, request)) = bulk_delete_request(raw) {
        assert_eq!(
            (request.count, request.cursor.as_deref()),
            (BULK_BATCH, None)
        );
        let action = bulk_delete_action(&query);
        let posted = followed(&action, "/console/bulk-delete");
        assert_eq!(
            bulk_delete_request(&posted),
            Ok((query.clone(), request.clone())),
            "the delete at {action:?} reads other filters than its confirmation"
        );
        let back = back_to_list(&query);
        let (_, list) = list_request(&followed(&back, "/console/dlq"));
        let list = list.unwrap_or_else(|e| panic!("{back:?} is refused: {e}"));
        assert_eq!(list.filter, request.filter, "{back:?}");
    }
}
