//! The reading scenarios: the list's order, completeness, pages and cursors, get-one, the
//! errors every operation answers, and how credentials are taken. With writing on they check
//! the fixture the run seeded; without, the entries the service already has (and say they are
//! inconclusive when it has none).

use super::catalogue::reads;
use super::fixture::Fixture;
use super::http::{Auth, Call};
use super::listing::{Known, LIST, MAX_PAGES, Walk, cursor_of, dlq_id, walk, walk_op};
use super::{Run, Scene, scenario};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// What stands for an id that does not exist.
pub(crate) const ABSENT: &str = "courier-verify-absent";
/// What stands for a search index that does not exist.
pub(crate) const ABSENT_INDEX: &str = "00000000-0000-4000-8000-000000000000";

/// Checks the walk's order by the spec's order fact.
fn check_order(scene: &mut Scene<'_>, listing: &Walk) {
    let Some(order) = scene.op(LIST).order.clone() else {
        return;
    };
    for index in 1..listing.entries.len() {
        let before = listing.entries[index - 1].0[order.field.as_str()]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let now = listing.entries[index].0[order.field.as_str()]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if order.compare(&before, &now) != Ordering::Less {
            let (page, pointer) = listing.place(index);
            let value = Value::String(now.clone());
            let message = format!(
                "`{now}` follows `{before}`: entries come in ascending `{}` order compared by {}, without repeats",
                order.field, order.compare
            );
            scene.violate(
                page,
                format!("{pointer}/{}", order.field),
                "order",
                &value,
                message,
            );
            return;
        }
    }
}

/// The ids of `known` that appear in `walk`, and how often.
fn occurrences(walk: &Walk) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for id in walk.ids() {
        *seen.entry(id).or_insert(0) += 1;
    }
    seen
}

fn list_complete(scene: &mut Scene<'_>, listing: &Walk, known: &Known) {
    let seen = occurrences(listing);
    let Some(last) = listing.last() else { return };
    for id in known.ids() {
        match seen.get(&id).copied().unwrap_or(0) {
            1 => {}
            0 if !listing.complete => {
                if let Some(why) = &listing.stopped_short {
                    scene.inconclusive(format!("{why}: `{id}` was not reached"));
                }
            }
            0 => scene.violate(
                last,
                "/messages",
                "complete",
                &Value::String(id.clone()),
                format!("`{id}` is stored (the seed answered it) but a full walk of the list never shows it"),
            ),
            times => scene.violate(
                last,
                "/messages",
                "complete",
                &Value::String(id.clone()),
                format!("a full walk shows `{id}` {times} times"),
            ),
        }
    }
}

async fn page_size(scene: &mut Scene<'_>, listing: &Walk, known: &Known) {
    let total = listing.entries.len();
    if total == 0 {
        known.no_data(scene);
        return;
    }
    for count in [1usize, 2, 5] {
        let page = walk(scene, &[], count, 1).await;
        let Some(first) = page.pages.first() else {
            continue;
        };
        let got = page.entries.len();
        let more_exist = total > got && (listing.complete || total >= count);
        if got < count && more_exist {
            scene.violate(
                first,
                "/messages",
                "page-size",
                &Value::from(got),
                format!("count={count} answered {got} entries while {total} exist"),
            );
        }
    }
}

async fn cursor_walk(scene: &mut Scene<'_>, listing: &Walk, known: &Known) {
    if listing.entries.len() < 4 {
        if listing.entries.is_empty() {
            known.no_data(scene);
        } else {
            scene.inconclusive("fewer than 4 entries listed: no third page to walk to");
        }
        return;
    }
    let wanted = listing.entries.len().min(40);
    let small = walk(scene, &[], 3, wanted.div_ceil(3) + 1).await;
    let walked = small.ids();
    let expected: Vec<String> = listing.ids().into_iter().take(wanted).collect();
    let Some(last) = small.last() else { return };
    for (index, id) in expected.iter().enumerate() {
        match walked.get(index) {
            Some(seen) if seen == id => {}
            Some(seen) => {
                let seen = Value::String(seen.clone());
                scene.violate(last, "/messages", "cursor", &seen,
                    format!("walking pages of 3, entry {index} is {seen}; one page of 100 has `{id}` there (a skip or a repeat)"));
                return;
            }
            None => {
                let id = Value::String(id.clone());
                scene.violate(
                    last,
                    "/messages",
                    "cursor",
                    &id,
                    format!("the walk with pages of 3 ended before reaching {id}"),
                );
                return;
            }
        }
    }
}

/// A query that the service answers with a known number of entries, at most a page: the
/// whole list when it is that small, else one listed entry's run, whose entries are walked to
/// the end to count them.
async fn exact_query(
    scene: &mut Scene<'_>,
    listing: &Walk,
) -> Option<(Vec<(&'static str, String)>, usize)> {
    if listing.complete && (1..=100).contains(&listing.entries.len()) {
        return Some((Vec::new(), listing.entries.len()));
    }
    let run = listing.entries.first()?.0["workflowRunId"]
        .as_str()?
        .to_owned();
    let query = vec![("workflowRunId", run)];
    let matching = walk(scene, &query, 100, MAX_PAGES).await;
    (matching.complete && (1..=100).contains(&matching.entries.len()))
        .then_some((query, matching.entries.len()))
}

async fn cursor_end(scene: &mut Scene<'_>, listing: &Walk, known: &Known) {
    if listing.entries.is_empty() {
        known.no_data(scene);
        return;
    }
    let Some((query, total)) = exact_query(scene, listing).await else {
        scene.inconclusive("no set of entries of known size, at most a page, to end a walk on");
        return;
    };
    let page = walk(scene, &query, total, 1).await;
    let Some(first) = page.pages.first() else {
        return;
    };
    let Some(cursor) = cursor_of(first) else {
        return;
    };
    let mut next_query = query.clone();
    next_query.push(("count", total.to_string()));
    next_query.push(("cursor", cursor));
    let Some(next) = scene.call(LIST, &[], &next_query, Auth::Valid).await else {
        return;
    };
    if !scene.expect_status(&next, &[200], "for the page a cursor points at") {
        return;
    }
    let messages = next.at("/messages").as_array().map_or(0, Vec::len);
    if messages == 0 {
        let cursor = first.at("/cursor").clone();
        scene.violate(first, "/cursor", "cursor-end",  &cursor,
            format!("this page holds all {total} matching entries, yet it has a cursor, and the cursor leads to an empty page: the last page has none"));
    } else {
        scene.inconclusive("entries were added while the walk ran");
    }
}

async fn get_listed(scene: &mut Scene<'_>, listing: &Walk, known: &Known) {
    let wanted = known.ids();
    let chosen: Vec<&Value> = listing
        .entries
        .iter()
        .map(|(entry, _, _)| entry)
        .filter(|entry| !known.seeded || wanted.contains(&dlq_id(entry)))
        // `.` and `..` are dot segments: every URL parser removes them from a path, so no
        // client can ask for such an id, and their get would be another request.
        .filter(|entry| !matches!(dlq_id(entry).as_str(), "." | ".."))
        .take(5)
        .collect();
    if chosen.is_empty() {
        known.no_data(scene);
        return;
    }
    for entry in chosen {
        let id = dlq_id(entry);
        let Some(got) = scene
            .call("getWorkflowDlq", &[("dlqId", &id)], &[], Auth::Valid)
            .await
        else {
            continue;
        };
        if !scene.expect_status(&got, &[200], "for a listed entry") {
            continue;
        }
        let Some(fields) = entry.as_object() else {
            continue;
        };
        for (name, value) in fields {
            let answered = got.at(&format!("/{}", crate::violation::pointer_token(name)));
            if !answered.is_null() && answered != value {
                scene.violate(
                    &got,
                    format!("/{}", crate::violation::pointer_token(name)),
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

async fn compat_list(scene: &mut Scene<'_>, listing: &Walk) {
    let query = [("source", "workflow".to_owned())];
    let page = walk_op(scene, "listDlqCompat", &query, 100, 1).await;
    let Some(first) = page.pages.first() else {
        return;
    };
    let expected: Vec<String> = listing.ids().into_iter().take(100).collect();
    if page.ids() != expected {
        scene.violate(
            first,
            "/messages",
            "compat",
            &Value::from(page.entries.len()),
            "GET /v2/dlq?source=workflow must answer the same page as GET /v2/workflows/dlq",
        );
    }
}

/// One request that must be answered `status`.
pub(crate) async fn expect(
    scene: &mut Scene<'_>,
    call: Call<'_>,
    auth: Auth,
    status: &[u16],
    why: &str,
) {
    let (op, params, query) = call;
    if let Some(answer) = scene.call(op, &params, &query, auth).await {
        scene.expect_status(&answer, status, why);
    }
}

/// The path parameters and required query of a request to `op` naming nothing that exists.
pub(crate) fn absent_call<'a>(scene: &Scene<'_>, op: &'a str) -> Call<'a> {
    let contract = scene.op(op);
    let mut params = Vec::new();
    let mut query = Vec::new();
    for parameter in &contract.parameters {
        match (parameter.location.as_str(), parameter.name.as_str()) {
            ("path", "id") => params.push(("id", ABSENT_INDEX)),
            ("path", _) => params.push((parameter.name.as_str(), ABSENT)),
            ("query", "source") if parameter.required => {
                query.push(("source", "workflow".to_owned()))
            }
            ("query", "dlqIds" | "workflowRunIds") if !reads(&contract.method) => {
                query.push((parameter.name.as_str(), ABSENT.to_owned()));
            }
            _ => {}
        }
    }
    (op, params, query)
}

/// `op` without credentials and with wrong ones: 401 both times.
pub(crate) async fn unauthorized(scene: &mut Scene<'_>, op: &str) {
    for auth in [Auth::Missing, Auth::Wrong] {
        let call = absent_call(scene, op);
        expect(scene, call, auth, &[401], "without valid credentials").await;
    }
}

/// The scenarios of a list parameter's bounds.
pub(crate) async fn bad_count(scene: &mut Scene<'_>) {
    let count = scene.op(LIST).parameter("count").cloned();
    let Some(count) = count else { return };
    let mut values = Vec::new();
    values.extend(count.minimum.map(|min| min - 1));
    values.extend(count.maximum.map(|max| max + 1));
    for value in values {
        expect(
            scene,
            (LIST, vec![], vec![("count", value.to_string())]),
            Auth::Valid,
            &[400],
            "for a count outside the spec's bounds",
        )
        .await;
    }
}

pub(crate) async fn bad_value_cap(scene: &mut Scene<'_>) {
    let label = scene.op(LIST).parameter("label").cloned();
    let Some(cap) = label.and_then(|l| l.max_items) else {
        scene.inconclusive("the spec gives `label` no maxItems");
        return;
    };
    let query: Vec<(&str, String)> = (0..=cap)
        .map(|i| ("label", format!("courier-verify-{i}")))
        .collect();
    expect(
        scene,
        (LIST, vec![], query),
        Auth::Valid,
        &[400],
        "for more values than the spec's maxItems",
    )
    .await;
}

pub(crate) async fn query_token(scene: &mut Scene<'_>, listing: &Walk) {
    let query = vec![("count", "100".to_owned())];
    let Some(page) = scene.call(LIST, &[], &query, Auth::QueryToken).await else {
        return;
    };
    if !scene.expect_status(&page, &[200], "with the service token in the query") {
        return;
    }
    let ids: Vec<String> = page
        .at("/messages")
        .as_array()
        .into_iter()
        .flatten()
        .map(dlq_id)
        .collect();
    let expected: Vec<String> = listing.ids().into_iter().take(100).collect();
    if ids != expected {
        scene.violate(
            &page,
            "/messages",
            "query-token",
            &Value::from(ids.len()),
            "with the token in the query the list answers other entries than with the header",
        );
    }
}

/// Runs the reading scenarios; answers what is known to be stored.
pub(crate) async fn run(
    run: &mut Run<'_>,
    fixture: Option<&Fixture>,
    seed_failure: Option<String>,
) -> (Known, Walk) {
    // The full walk every list scenario compares with, in `list-order`'s scene when it runs.
    let mut listing_scene = run.scene();
    let started = std::time::Instant::now();
    let listing = walk(&mut listing_scene, &[], 100, MAX_PAGES).await;
    let known = match fixture {
        Some(fixture) => fixture.known.clone(),
        None => Known {
            entries: listing.entries.iter().map(|(e, _, _)| e.clone()).collect(),
            seeded: false,
            seed_failure,
        },
    };
    if run.chosen("list-order") {
        if listing.entries.is_empty() && listing_scene.failures.is_empty() {
            known.no_data(&mut listing_scene);
        }
        check_order(&mut listing_scene, &listing);
        run.record("list-order", listing_scene, started);
    }
    if fixture.is_some() {
        scenario!(run, "list-complete", |scene| async {
            list_complete(&mut scene, &listing, &known);
        });
    }
    scenario!(run, "page-size", |scene| page_size(
        &mut scene, &listing, &known
    ));
    scenario!(run, "cursor-walk", |scene| cursor_walk(
        &mut scene, &listing, &known
    ));
    scenario!(run, "cursor-end", |scene| cursor_end(
        &mut scene, &listing, &known
    ));
    scenario!(run, "get-listed", |scene| get_listed(
        &mut scene, &listing, &known
    ));
    scenario!(run, "compat-list", |scene| compat_list(
        &mut scene, &listing
    ));
    (known, listing)
}
