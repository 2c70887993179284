//! The writing scenarios: the fixture every reading scenario checks, then deletes, bulk deletes
//! and cancels, each on entries it seeded itself under a tag no other data has, each confirmed
//! through get-one *and* through the list (unfiltered and filtered), so a list that keeps
//! showing what was removed shows. Last, the scenarios that run only when chosen by name.

use super::catalogue::{reads, unauthorized_scenario};
use super::fixture::Fixture;
use super::fixture::{run_id, seed_entries};
use super::http::{Auth, Call};
use super::listing::{LIST, MAX_PAGES, dlq_id, walk};
use super::read::{ABSENT, absent_call};
use super::seed::{Seed, random_uuid};
use super::{Run, Scene, scenario};
use serde_json::{Value, json};

/// Whether `id` is got (200) or gone (404), as `present` says.
pub(crate) async fn expect_present(scene: &mut Scene<'_>, id: &str, present: bool, why: &str) {
    if let Some(got) = scene
        .call("getWorkflowDlq", &[("dlqId", id)], &[], Auth::Valid)
        .await
    {
        scene.expect_status(&got, &[if present { 200 } else { 404 }], why);
    }
}

/// `ids` are gone: 404 each, and shown by no list, neither the whole list nor the list under
/// `label` (a label they had).
pub(crate) async fn expect_gone(scene: &mut Scene<'_>, ids: &[String], label: &str, why: &str) {
    for id in ids {
        expect_present(scene, id, false, why).await;
    }
    for query in [vec![], vec![("label", label.to_owned())]] {
        let listed = walk(scene, &query, 100, MAX_PAGES).await;
        for index in 0..listed.entries.len() {
            let id = dlq_id(&listed.entries[index].0);
            if ids.contains(&id) {
                let (page, pointer) = listed.place(index);
                scene.violate(
                    page,
                    format!("{pointer}/dlqId"),
                    "fresh",
                    &Value::String(id.clone()),
                    format!("`{id}` was removed ({why}) but the list still shows it"),
                );
            }
        }
    }
}

/// What an operation removed is gone from get-one and every list (`removed_why`), what it did
/// not is still there (`kept_why`); then the kept entries are cleaned up.
async fn expect_only_removed(
    scene: &mut Scene<'_>,
    tag: &str,
    (removed, removed_why): (&[String], &str),
    (kept, kept_why): (&[String], &str),
) {
    expect_gone(scene, removed, tag, removed_why).await;
    for id in kept {
        expect_present(scene, id, true, kept_why).await;
    }
    cleanup_ids(scene, kept).await;
}

/// Deletes entries this run created, by id; they must all be deleted.
pub(crate) async fn cleanup_ids(scene: &mut Scene<'_>, ids: &[String]) {
    if ids.is_empty() {
        return;
    }
    let query: Vec<(&str, String)> = ids.iter().map(|id| ("dlqIds", id.clone())).collect();
    let Some(answer) = scene
        .call("deleteWorkflowDlqBulk", &[], &query, Auth::Valid)
        .await
    else {
        return;
    };
    if scene.expect_status(
        &answer,
        &[200],
        "for deleting the entries the scenario created",
    ) && answer.at("/deleted") != &json!(ids.len())
    {
        scene.violate(
            &answer,
            "/deleted",
            "bulk-delete",
            answer.at("/deleted"),
            format!(
                "{} entries named, all present; `deleted` must say so",
                ids.len()
            ),
        );
    }
}

async fn delete_one(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str, operation_id: &str) {
    let ids = seed_entries(scene, seed, tag, 2).await;
    let [gone, kept] = ids.as_slice() else { return };
    if let Some(deleted) = scene
        .call(operation_id, &[("dlqId", gone)], &[], Auth::Valid)
        .await
    {
        scene.expect_status(&deleted, &[200], "for deleting a stored entry");
    }
    expect_only_removed(
        scene,
        tag,
        (std::slice::from_ref(gone), "deleted"),
        (
            std::slice::from_ref(kept),
            "for an entry that was not deleted",
        ),
    )
    .await;
}

async fn delete_one_unknown(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries_after_absent(scene, seed, tag, "deleteDlqMessage", "dlqId").await;
    if let [id] = ids.as_slice() {
        removes_once(scene, "deleteDlqMessage", "dlqId", id).await;
    }
}

/// Calls `operation` on an id never stored (404), then seeds one entry for the caller to
/// remove: whether the answer was right, the seed goes ahead.
async fn seed_entries_after_absent(
    scene: &mut Scene<'_>,
    seed: &dyn Seed,
    tag: &str,
    operation: &str,
    parameter: &str,
) -> Vec<String> {
    let absent = format!("{ABSENT}-{}", random_uuid());
    if let Some(answer) = scene
        .call(operation, &[(parameter, &absent)], &[], Auth::Valid)
        .await
    {
        scene.expect_status(&answer, &[404], "for an id never stored");
    }
    seed_entries(scene, seed, tag, 1).await
}

/// `operation` on `id`, which exists: 200; then on the same id again: 404.
async fn removes_once(scene: &mut Scene<'_>, operation: &str, parameter: &str, id: &str) {
    if let Some(first) = scene
        .call(operation, &[(parameter, id)], &[], Auth::Valid)
        .await
        && scene.expect_status(&first, &[200], "for removing what is stored")
        && let Some(again) = scene
            .call(operation, &[(parameter, id)], &[], Auth::Valid)
            .await
    {
        scene.expect_status(&again, &[404], "for removing it a second time");
    }
}

async fn bulk_delete_ids(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries(scene, seed, tag, 3).await;
    let [first, second, kept] = ids.as_slice() else {
        return;
    };
    // Repeated keys: a comma is percent-encoded in a query value, which makes it part of one id.
    let named = [first.clone(), second.clone(), format!("{ABSENT}-{tag}")];
    let query: Vec<(&str, String)> = named.into_iter().map(|id| ("dlqIds", id)).collect();
    let Some(answer) = scene
        .call("deleteWorkflowDlqBulk", &[], &query, Auth::Valid)
        .await
    else {
        return;
    };
    if scene.expect_status(&answer, &[200], "for a bulk delete by ids") {
        if answer.at("/deleted") != &json!(2) {
            scene.violate(
                &answer,
                "/deleted",
                "bulk-delete",
                answer.at("/deleted"),
                "two of the three ids named exist; `deleted` must be 2",
            );
        }
        if !answer.at("/cursor").is_null() {
            scene.violate(
                &answer,
                "/cursor",
                "bulk-delete",
                answer.at("/cursor"),
                "a delete by ids returns no cursor",
            );
        }
    }
    expect_only_removed(
        scene,
        tag,
        (&[first.clone(), second.clone()], "a bulk delete named it"),
        (
            std::slice::from_ref(kept),
            "for an entry the bulk delete did not name",
        ),
    )
    .await;
}

async fn bulk_delete_ids_ignore_filters(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries(scene, seed, tag, 2).await;
    let [named, kept] = ids.as_slice() else {
        return;
    };
    let query = vec![
        ("dlqIds", named.clone()),
        ("label", format!("{ABSENT}-label-{tag}")),
        ("workflowUrl", format!("https://{ABSENT}.example.invalid/")),
    ];
    if let Some(answer) = scene
        .call("deleteWorkflowDlqBulk", &[], &query, Auth::Valid)
        .await
        && scene.expect_status(&answer, &[200], "for a bulk delete by ids beside filters")
        && answer.at("/deleted") != &json!(1)
    {
        scene.violate(
            &answer,
            "/deleted",
            "bulk-delete",
            answer.at("/deleted"),
            "the id named exists and filters are ignored beside ids: `deleted` must be 1",
        );
    }
    expect_only_removed(
        scene,
        tag,
        (
            std::slice::from_ref(named),
            "a bulk delete named it beside filters that match nothing",
        ),
        (
            std::slice::from_ref(kept),
            "for an entry the bulk delete did not name",
        ),
    )
    .await;
}

async fn bulk_delete_filter(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries(scene, seed, tag, 5).await;
    if ids.is_empty() {
        return;
    }
    // `{tag}-l0` labels entries 0 and 3 only (fixture::entry).
    let label = format!("{tag}-l0");
    let matching: Vec<String> = ids
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 == 0)
        .map(|(_, id)| id.clone())
        .collect();
    let mut deleted = 0;
    let mut cursor: Option<String> = None;
    for _ in 0..ids.len() + 1 {
        let mut query = vec![("label", label.clone()), ("count", "1".to_owned())];
        query.extend(cursor.take().map(|c| ("cursor", c)));
        let Some(answer) = scene
            .call("deleteWorkflowDlqBulk", &[], &query, Auth::Valid)
            .await
        else {
            return;
        };
        if !scene.expect_status(&answer, &[200], "for a bulk delete by filter") {
            return;
        }
        deleted += answer.at("/deleted").as_i64().unwrap_or_default();
        cursor = answer
            .at("/cursor")
            .as_str()
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    let listed = walk(scene, &[("label", label.clone())], 100, 1).await;
    if (deleted != matching.len() as i64 || !listed.entries.is_empty())
        && let Some(page) = listed.pages.first()
    {
        scene.violate(page, "/messages", "bulk-delete", &Value::from(deleted),
            format!("deleting by label={label} in batches of 1 removed {deleted}; exactly {} entries match it", matching.len()));
    }
    let kept: Vec<String> = ids
        .iter()
        .filter(|id| !matching.contains(id))
        .cloned()
        .collect();
    expect_only_removed(
        scene,
        tag,
        (&matching, "a bulk delete by a filter it matches"),
        (&kept, "for an entry the filter does not match"),
    )
    .await;
}

async fn cancel_run(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    // Entries 0 and 1 are of run 0, 2 and 3 of run 1 (fixture::entry).
    let ids = seed_entries(scene, seed, tag, 4).await;
    if ids.len() != 4 {
        return;
    }
    let run = run_id(tag, 0);
    if let Some(answer) = scene
        .call(
            "cancelWorkflowRun",
            &[("workflowRunId", &run)],
            &[],
            Auth::Valid,
        )
        .await
    {
        scene.expect_status(&answer, &[200], "for cancelling a stored run");
    }
    expect_only_removed(
        scene,
        tag,
        (&ids[..2], "its run was cancelled"),
        (&ids[2..], "for an entry of another run"),
    )
    .await;
}

async fn cancel_run_unknown(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids =
        seed_entries_after_absent(scene, seed, tag, "cancelWorkflowRun", "workflowRunId").await;
    if !ids.is_empty() {
        removes_once(scene, "cancelWorkflowRun", "workflowRunId", &run_id(tag, 0)).await;
    }
}

/// A bulk delete's `count` beyond its bounds, beside ids and beside a filter that matches
/// nothing (so a service that ignored the bound would still delete nothing): 400 each time.
async fn bad_bulk_count(scene: &mut Scene<'_>, _: &dyn Seed, tag: &str) {
    let count = scene
        .op("deleteWorkflowDlqBulk")
        .parameter("count")
        .cloned();
    let Some(count) = count else { return };
    let bounds = [
        count.minimum.map(|min| min - 1),
        count.maximum.map(|max| max + 1),
    ];
    for value in bounds.into_iter().flatten() {
        for beside in [
            ("dlqIds", format!("{ABSENT}-{tag}")),
            ("label", format!("{ABSENT}-{tag}")),
        ] {
            let query = vec![beside, ("count", value.to_string())];
            if let Some(answer) = scene
                .call("deleteWorkflowDlqBulk", &[], &query, Auth::Valid)
                .await
            {
                scene.expect_status(&answer, &[400], "for a count outside the spec's bounds");
            }
        }
    }
}

async fn list_shows_added(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let before = walk(scene, &[], 100, MAX_PAGES).await;
    let ids = seed_entries(scene, seed, tag, 1).await;
    let [id] = ids.as_slice() else { return };
    let after = walk(scene, &[], 100, MAX_PAGES).await;
    if !after.ids().contains(id) {
        match after.last() {
            Some(last) if after.complete => scene.violate(last, "/messages", "fresh", &Value::String(id.clone()),
                format!("`{id}` was stored after a list of {} entries; the next full list does not show it", before.entries.len())),
            _ => if let Some(why) = &after.stopped_short {
                scene.inconclusive(format!("{why}: `{id}` was not reached"));
            },
        }
    }
    cleanup_ids(scene, &ids).await;
}

/// A writing operation without valid credentials: 401, and what it names is still there.
async fn unauthorized_write(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str, op: &str) {
    let ids = seed_entries(scene, seed, tag, 1).await;
    let [id] = ids.as_slice() else { return };
    let run = run_id(tag, 0);
    let (op, params, query) = absent_call(scene, op);
    let params: Vec<(&str, &str)> = params
        .into_iter()
        .map(|(name, value)| match name {
            "dlqId" => (name, id.as_str()),
            "workflowRunId" => (name, run.as_str()),
            _ => (name, value),
        })
        .collect();
    let query: Vec<(&str, String)> = query
        .into_iter()
        .map(|(name, value)| match name {
            "dlqIds" => (name, id.clone()),
            "workflowRunIds" => (name, run.clone()),
            _ => (name, value),
        })
        .collect();
    let call: Call<'_> = (op, params, query);
    for auth in [Auth::Missing, Auth::Wrong] {
        if let Some(answer) = scene.call(call.0, &call.1, &call.2, auth).await {
            scene.expect_status(&answer, &[401], "without valid credentials");
        }
    }
    expect_present(scene, id, true, "after writes without valid credentials").await;
    if let Some(page) = scene
        .call(LIST, &[], &[("count", "1".to_owned())], Auth::Valid)
        .await
    {
        scene.expect_status(
            &page,
            &[200],
            "with the credentials the run began with, after writes without valid ones",
        );
    }
    cleanup_ids(scene, &ids).await;
}

async fn delete_one_messaging(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    delete_one(scene, seed, tag, "deleteDlqMessage").await;
}

async fn delete_one_workflow_path(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    delete_one(scene, seed, tag, "deleteWorkflowDlqMessage").await;
}

/// Each writing scenario, run under a tag of its own (`<run's tag>-<scenario>`).
macro_rules! writing {
    ($run:expr, $seed:expr, $tag:expr, $($name:literal => $function:ident),* $(,)?) => {$(
        let tag = format!("{}-{}", $tag, $name);
        scenario!($run, $name, |scene| $function(&mut scene, $seed, &tag));
    )*};
}

/// Runs the writing scenarios, each under its own tag.
pub(crate) async fn run(run: &mut Run<'_>, seed: &dyn Seed, tag: &str) {
    writing!(run, seed, tag,
        "list-shows-added" => list_shows_added,
        "delete-one" => delete_one_messaging,
        "delete-one-workflow-path" => delete_one_workflow_path,
        "delete-one-unknown" => delete_one_unknown,
        "bulk-delete-ids" => bulk_delete_ids,
        "bulk-delete-ids-ignore-filters" => bulk_delete_ids_ignore_filters,
        "bulk-delete-filter" => bulk_delete_filter,
        "cancel-run" => cancel_run,
        "cancel-run-unknown" => cancel_run_unknown,
        "bad-request-bulk-count" => bad_bulk_count,
    );
    for op in &crate::Contract::courier().operations {
        if !reads(&op.method) {
            let name = unauthorized_scenario(&op.operation_id);
            let tag = format!("{tag}-{name}");
            let op = op.operation_id.as_str();
            scenario!(run, name, |scene| unauthorized_write(
                &mut scene, seed, &tag, op
            ));
        }
    }
}

/// Deletes the fixture.
pub(crate) async fn cleanup(run: &mut Run<'_>, fixture: Option<&Fixture>) {
    scenario!(run, "cleanup", |scene| async {
        match fixture {
            Some(fixture) => {
                let ids: Vec<String> = fixture.runs.iter().map(|r| r.dlq_id.clone()).collect();
                cleanup_ids(&mut scene, &ids).await;
            }
            None => scene.fail("seed", "the fixture was not seeded: nothing to clean up"),
        }
    });
}
