//! The read-only scenarios: what any base URL must hold without anything being written. Filters
//! are derived from the entries listed, so they work on whatever data the service has.

use super::http::{Auth, Call, Exchange};
use super::{Scene, Verifier, scenario};
use crate::report::ScenarioResult;
use serde_json::Value;
use std::cmp::Ordering;

const LIST: &str = "listWorkflowDlq";
/// How many pages of 100 the listing reads at most, so a large DLQ stays cheap to verify.
pub(crate) const MAX_PAGES: usize = 3;

/// An entry listed, with where it was listed.
#[derive(Clone)]
pub(crate) struct Listed {
    pub entry: Value,
}

/// What the listing saw: the entries of the first pages, and whether the scan ended.
pub(crate) struct Listing {
    pub entries: Vec<Listed>,
    pub complete: bool,
}

pub(crate) fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(crate) fn dlq_id(entry: &Value) -> String {
    entry["dlqId"].as_str().unwrap_or_default().to_owned()
}

/// The documented order of `dlqId`s: numerically when both are digits, else by bytes.
pub(crate) fn id_order(a: &str, b: &str) -> Ordering {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(a) && digits(b) {
        (a.len(), a).cmp(&(b.len(), b))
    } else {
        a.cmp(b)
    }
}

/// Walks the list with `query` and page size `count`, at most `max_pages` pages; checks each
/// page's size and the order within and across pages. Answers the entries with the exchange
/// and index of each, and whether the scan ended.
pub(crate) async fn walk(
    scene: &mut Scene<'_>,
    query: &[(&str, String)],
    count: usize,
    max_pages: usize,
) -> (Vec<(Value, usize)>, Vec<Exchange>, bool) {
    let mut entries: Vec<(Value, usize)> = Vec::new();
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..max_pages {
        let mut params: Vec<(&str, String)> = query.to_vec();
        params.push(("count", count.to_string()));
        if let Some(cursor) = &cursor {
            params.push(("cursor", cursor.clone()));
        }
        let Some(page) = scene.call(LIST, &[], &params, Auth::Valid).await else {
            return (entries, pages, false);
        };
        if !scene.expect_status(&page, &[200], "for a list") {
            return (entries, pages, false);
        }
        let messages = page.at("/messages").as_array().cloned().unwrap_or_default();
        if messages.len() > count {
            scene.violate(
                &page,
                "/messages",
                "page-size",
                &Value::from(messages.len()),
                format!("{} entries on a page of count={count}", messages.len()),
            );
        }
        for (index, message) in messages.into_iter().enumerate() {
            if let Some((previous, _)) = entries.last() {
                let (before, now) = (dlq_id(previous), dlq_id(&message));
                if id_order(&before, &now) != Ordering::Less {
                    scene.violate(&page, format!("/messages/{index}/dlqId"), "order", &message["dlqId"],
                        format!("`{now}` follows `{before}`: entries must come in ascending dlqId order without repeats"));
                }
            }
            entries.push((message, pages.len() * 1000 + index));
        }
        cursor = page
            .at("/cursor")
            .as_str()
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        pages.push(page);
        if cursor.is_none() {
            return (entries, pages, true);
        }
    }
    (entries, pages, false)
}

async fn listing(scene: &mut Scene<'_>) -> Listing {
    let (entries, _, complete) = walk(scene, &[], 100, MAX_PAGES).await;
    if entries.is_empty() {
        scene.skip("the DLQ is empty: nothing to derive the read scenarios from (writing scenarios seed data)");
    }
    Listing {
        entries: entries
            .into_iter()
            .map(|(entry, _)| Listed { entry })
            .collect(),
        complete,
    }
}

async fn cursor_walk(scene: &mut Scene<'_>, listing: &Listing) {
    if listing.entries.len() < 2 {
        scene.skip("fewer than 2 entries listed: no second page to walk to");
        return;
    }
    let wanted = listing.entries.len().min(40);
    let (entries, pages, _) = walk(scene, &[], 3, wanted.div_ceil(3) + 1).await;
    let walked: Vec<String> = entries.iter().map(|(e, _)| dlq_id(e)).collect();
    let expected: Vec<String> = listing
        .entries
        .iter()
        .take(walked.len().max(wanted).min(listing.entries.len()))
        .map(|l| dlq_id(&l.entry))
        .collect();
    let Some(last) = pages.last() else { return };
    for (index, id) in expected.iter().enumerate() {
        match walked.get(index) {
            Some(seen) if seen == id => {}
            Some(seen) => {
                scene.violate(last, "/messages", "cursor", &Value::String(seen.clone()),
                    format!("walking pages of 3, entry {index} is `{seen}`; one page of 100 has `{id}` there (a skip or a repeat)"));
                return;
            }
            None if listing.complete || index < walked.len() => {
                scene.violate(
                    last,
                    "/messages",
                    "cursor",
                    &Value::String(id.clone()),
                    format!("the walk with pages of 3 ended before reaching `{id}`"),
                );
                return;
            }
            None => {}
        }
    }
}

async fn page_size(scene: &mut Scene<'_>, listing: &Listing) {
    for count in [1usize, 2, 5] {
        let (entries, pages, _) = walk(scene, &[], count, 1).await;
        let expected = listing.entries.len().min(count);
        let short = entries.len() < expected;
        if let Some(page) = pages.first()
            && short
            && (page.at("/cursor").is_string() || entries.is_empty())
        {
            scene.violate(
                page,
                "/messages",
                "page-size",
                &Value::from(entries.len()),
                format!(
                    "count={count} answered {} entries while {} exist",
                    entries.len(),
                    listing.entries.len()
                ),
            );
        }
    }
}

async fn get_listed(scene: &mut Scene<'_>, listing: &Listing) {
    if listing.entries.is_empty() {
        scene.skip("no entry listed");
        return;
    }
    for listed in listing.entries.iter().take(5) {
        let id = dlq_id(&listed.entry);
        let Some(got) = scene
            .call("getWorkflowDlq", &[("dlqId", &id)], &[], Auth::Valid)
            .await
        else {
            continue;
        };
        if !scene.expect_status(&got, &[200], "for a listed entry") {
            continue;
        }
        let Some(Value::Object(fields)) =
            &listed.entry.as_object().map(|o| Value::Object(o.clone()))
        else {
            continue;
        };
        for (name, value) in fields {
            let answered = got.at(&format!("/{name}"));
            if !answered.is_null() && answered != value {
                scene.violate(
                    &got,
                    format!("/{name}"),
                    "get-listed",
                    answered,
                    format!(
                        "the list shows {name} = {} for this entry",
                        crate::violation::shorten(&value.to_string())
                    ),
                );
            }
        }
    }
}

async fn compat_list(scene: &mut Scene<'_>, listing: &Listing) {
    let query = [
        ("source", "workflow".to_owned()),
        ("count", "100".to_owned()),
    ];
    let Some(page) = scene.call("listDlqCompat", &[], &query, Auth::Valid).await else {
        return;
    };
    if !scene.expect_status(&page, &[200], "for the list at its compatible path") {
        return;
    }
    let ids: Vec<String> = page
        .at("/messages")
        .as_array()
        .into_iter()
        .flatten()
        .map(dlq_id)
        .collect();
    let expected: Vec<String> = listing
        .entries
        .iter()
        .take(100)
        .map(|l| dlq_id(&l.entry))
        .collect();
    if ids != expected {
        scene.violate(
            &page,
            "/messages",
            "compat",
            &Value::from(ids.len()),
            "GET /v2/dlq?source=workflow must answer the same page as the list",
        );
    }
}

/// Each operation that only reads, without and with wrong credentials: 401 with the error body.
async fn unauthorized(scene: &mut Scene<'_>) {
    let unknown = "courier-verify-absent";
    let index = "00000000-0000-4000-8000-000000000000";
    let calls: [Call<'_>; 7] = [
        (LIST, vec![], vec![]),
        ("listDlqCompat", vec![], vec![("source", "workflow".into())]),
        ("getWorkflowDlq", vec![("dlqId", unknown)], vec![]),
        ("getUrlGroup", vec![("urlGroupName", unknown)], vec![]),
        ("getSearchIndex", vec![("id", index)], vec![]),
        ("getSearchIndexStats", vec![("id", index)], vec![]),
        ("getAccountStats", vec![], vec![]),
    ];
    for (op, params, query) in &calls {
        for auth in [Auth::Missing, Auth::Wrong] {
            if let Some(answer) = scene.call(op, params, query, auth).await {
                scene.expect_status(&answer, &[401], "without valid credentials");
            }
        }
    }
}

async fn not_found(scene: &mut Scene<'_>) {
    let calls: [(&str, (&str, &str)); 3] = [
        ("getWorkflowDlq", ("dlqId", "courier-verify-absent")),
        ("getUrlGroup", ("urlGroupName", "courier-verify-absent")),
        (
            "getSearchIndex",
            ("id", "00000000-0000-4000-8000-000000000000"),
        ),
    ];
    for (op, param) in calls {
        if let Some(answer) = scene.call(op, &[param], &[], Auth::Valid).await {
            scene.expect_status(&answer, &[404], "for something that does not exist");
        }
    }
}

/// Bad parameters are 400 with the error body (the contract validates the body).
async fn bad_requests(scene: &mut Scene<'_>) {
    let calls: [(&str, Vec<(&str, String)>); 6] = [
        (LIST, vec![("count", "0".into())]),
        (LIST, vec![("count", "101".into())]),
        (LIST, vec![("label", String::new())]),
        (LIST, vec![("courierVerifyUnknown", "1".into())]),
        ("listDlqCompat", vec![("source", "courier-verify".into())]),
        ("getAccountStats", vec![("period", "courier-verify".into())]),
    ];
    for (op, query) in &calls {
        if let Some(answer) = scene.call(op, &[], query, Auth::Valid).await {
            scene.expect_status(&answer, &[400], "for a bad parameter");
        }
    }
}

/// Runs the read-only scenarios.
pub(crate) async fn run(verifier: &Verifier, results: &mut Vec<ScenarioResult>) {
    let listing = scenario!(
        verifier,
        results,
        "list",
        false,
        "the first pages of the DLQ list keep the contract, in ascending dlqId order",
        |scene| listing(&mut scene)
    );
    scenario!(
        verifier,
        results,
        "page-size",
        false,
        "a page never holds more than `count` entries, nor fewer while more exist",
        |scene| page_size(&mut scene, &listing)
    );
    scenario!(
        verifier,
        results,
        "cursor-walk",
        false,
        "walking small pages by cursor neither repeats nor skips an entry",
        |scene| cursor_walk(&mut scene, &listing)
    );
    super::filters::run(verifier, results, &listing).await;
    scenario!(
        verifier,
        results,
        "get-listed",
        false,
        "getting a listed id answers that entry",
        |scene| get_listed(&mut scene, &listing)
    );
    scenario!(
        verifier,
        results,
        "compat-list",
        false,
        "the list at /v2/dlq?source=workflow answers the same entries",
        |scene| compat_list(&mut scene, &listing)
    );
    scenario!(
        verifier,
        results,
        "not-found",
        false,
        "what does not exist is 404 with the error body",
        |scene| not_found(&mut scene)
    );
    scenario!(
        verifier,
        results,
        "unauthorized",
        false,
        "a request without valid credentials is 401 with the error body",
        |scene| unauthorized(&mut scene)
    );
    scenario!(
        verifier,
        results,
        "bad-request",
        false,
        "a bad parameter is 400 with the error body",
        |scene| bad_requests(&mut scene)
    );
    scenario!(
        verifier,
        results,
        "account-stats-series",
        false,
        "every period series of the account statistics has the documented length and spacing",
        |scene| super::stats::account_stats(&mut scene)
    );
}
