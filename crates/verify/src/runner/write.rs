//! The writing scenarios: each creates its own entries through the [`Seed`], under a tag no
//! other data has, and deletes or cancels only those.

use super::http::{Auth, Call};
use super::read::walk;
use super::seed::Seed;
use super::{Scene, Verifier, scenario};
use crate::report::{Failure, ScenarioResult};
use serde_json::{Value, json};

/// One failed run in the admin shape, its fields derived from `tag` and `index` so that
/// filters find exactly the entries of one scenario.
fn entry(tag: &str, index: usize) -> Value {
    const STATES: [&str; 2] = ["CALLBACK_FAIL", "CALLBACK_SUCCESS"];
    json!({
        "workflowRunId": format!("wfr_{tag}_{index}"),
        "workflowUrl": format!("https://{tag}.example.invalid/workflow/{}", index % 2),
        "workflowCreatedAt": 1_700_000_000_000_i64 + index as i64,
        "url": format!("https://{tag}.example.invalid/step"),
        "method": "POST",
        "header": {"Content-Type": ["application/json"]},
        "body": "{\"courierVerify\":true}",
        "maxRetries": 3,
        "labels": [tag, format!("{tag}-{}", index % 3)],
        "callerIP": format!("192.0.2.{}", index % 4 + 1),
        "flowControlKey": format!("{tag}-key-{}", index % 2),
        "failureCallback": format!("https://{tag}.example.invalid/failure"),
        "failureCallbackInfo": {"state": STATES[index % 2]},
        "responseStatus": 500,
        "responseBody": "courier-verify"
    })
}

/// Seeds `count` entries of `tag`; a seed that fails is a failure of the scenario.
async fn seed_entries(
    scene: &mut Scene<'_>,
    seed: &dyn Seed,
    tag: &str,
    count: usize,
) -> Vec<String> {
    let entries = (0..count).map(|i| entry(tag, i)).collect();
    match seed.insert_dlq(entries).await {
        Ok(ids) if ids.len() == count => ids,
        Ok(ids) => {
            seed_failed(
                scene,
                format!(
                    "asked to store {count} entries, the seed answered {} ids",
                    ids.len()
                ),
            );
            Vec::new()
        }
        Err(error) => {
            seed_failed(scene, error);
            Vec::new()
        }
    }
}

fn seed_failed(scene: &mut Scene<'_>, error: String) {
    scene.failures.push(Failure {
        request: "seed".into(),
        status: None,
        violations: Vec::new(),
        error: Some(format!("seeding failed: {error}")),
    });
}

/// The fixture the read-only scenarios list when writing is on: 6 entries with varied fields.
pub(crate) async fn seed_fixture(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) -> Vec<String> {
    seed_entries(scene, seed, &format!("{tag}-fixture"), 6).await
}

/// Whether `id` is still in the DLQ (200) or gone (404), as `expected`.
async fn expect_present(scene: &mut Scene<'_>, id: &str, present: bool, why: &str) {
    if let Some(got) = scene
        .call("getWorkflowDlq", &[("dlqId", id)], &[], Auth::Valid)
        .await
    {
        let status = if present { 200 } else { 404 };
        scene.expect_status(&got, &[status], why);
    }
}

async fn delete_one(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str, operation_id: &str) {
    let ids = seed_entries(scene, seed, tag, 2).await;
    let [gone, kept] = ids.as_slice() else { return };
    if let Some(deleted) = scene
        .call(operation_id, &[("dlqId", gone)], &[], Auth::Valid)
        .await
    {
        scene.expect_status(&deleted, &[200], "for deleting a seeded entry");
    }
    expect_present(scene, gone, false, "after the entry was deleted").await;
    if let Some(again) = scene
        .call(operation_id, &[("dlqId", gone)], &[], Auth::Valid)
        .await
    {
        scene.expect_status(&again, &[404], "for deleting it a second time");
    }
    expect_present(scene, kept, true, "for an entry that was not deleted").await;
    cleanup_ids(scene, std::slice::from_ref(kept)).await;
}

async fn bulk_delete_ids(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries(scene, seed, tag, 3).await;
    let [first, second, kept] = ids.as_slice() else {
        return;
    };
    // Repeated keys: a comma is percent-encoded in a query value, which makes it part of one id.
    let named = [
        first.clone(),
        second.clone(),
        format!("courier-verify-absent-{tag}"),
    ];
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
    expect_present(scene, first, false, "after a bulk delete named it").await;
    expect_present(scene, second, false, "after a bulk delete named it").await;
    expect_present(
        scene,
        kept,
        true,
        "for an entry the bulk delete did not name",
    )
    .await;
    cleanup_ids(scene, std::slice::from_ref(kept)).await;
}

async fn bulk_delete_filter(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries(scene, seed, tag, 5).await;
    if ids.is_empty() {
        return;
    }
    // `{tag}-0` labels entries 0 and 3 only.
    let label = format!("{tag}-0");
    let mut deleted = 0;
    let mut cursor: Option<String> = None;
    for _ in 0..5 {
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
    for (index, id) in ids.iter().enumerate() {
        let present = index % 3 != 0;
        expect_present(
            scene,
            id,
            present,
            if present {
                "for an entry the filter does not match"
            } else {
                "after a bulk delete by a filter it matches"
            },
        )
        .await;
    }
    let (left, pages, _) = walk(scene, &[("label", label.clone())], 100, 1).await;
    if (deleted != 2 || !left.is_empty())
        && let Some(page) = pages.first()
    {
        scene.violate(page, "/messages", "bulk-delete", &Value::from(deleted),
            format!("deleting by label={label} in batches of 1 removed {deleted}; exactly 2 entries match it"));
    }
    let kept: Vec<String> = ids
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, id)| id.clone())
        .collect();
    cleanup_ids(scene, &kept).await;
}

async fn cancel_run(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries(scene, seed, tag, 2).await;
    let [cancelled, kept] = ids.as_slice() else {
        return;
    };
    let run = format!("wfr_{tag}_0");
    if let Some(answer) = scene
        .call(
            "cancelWorkflowRun",
            &[("workflowRunId", &run)],
            &[],
            Auth::Valid,
        )
        .await
    {
        scene.expect_status(&answer, &[200], "for cancelling a seeded run");
    }
    expect_present(scene, cancelled, false, "after its run was cancelled").await;
    expect_present(scene, kept, true, "for an entry of another run").await;
    if let Some(again) = scene
        .call(
            "cancelWorkflowRun",
            &[("workflowRunId", &run)],
            &[],
            Auth::Valid,
        )
        .await
    {
        scene.expect_status(&again, &[404], "for cancelling the same run a second time");
    }
    cleanup_ids(scene, std::slice::from_ref(kept)).await;
}

/// Writing operations without valid credentials are 401 and change nothing.
async fn unauthorized_writes(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let ids = seed_entries(scene, seed, tag, 1).await;
    let [id] = ids.as_slice() else { return };
    let run = format!("wfr_{tag}_0");
    let calls: [Call<'_>; 5] = [
        ("deleteDlqMessage", vec![("dlqId", id)], vec![]),
        ("deleteWorkflowDlqMessage", vec![("dlqId", id)], vec![]),
        (
            "deleteWorkflowDlqBulk",
            vec![],
            vec![("dlqIds", id.clone())],
        ),
        ("cancelWorkflowRun", vec![("workflowRunId", &run)], vec![]),
        (
            "cancelWorkflowRuns",
            vec![],
            vec![("workflowRunIds", run.clone())],
        ),
    ];
    for (op, params, query) in &calls {
        for auth in [Auth::Missing, Auth::Wrong] {
            if let Some(answer) = scene.call(op, params, query, auth).await {
                scene.expect_status(&answer, &[401], "without valid credentials");
            }
        }
    }
    expect_present(scene, id, true, "after writes without credentials").await;
    cleanup_ids(scene, ids.as_slice()).await;
}

/// Deletes entries this run created, by id; they must all be deleted.
async fn cleanup_ids(scene: &mut Scene<'_>, ids: &[String]) {
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

pub(crate) async fn cleanup(scene: &mut Scene<'_>, fixture: &[String]) {
    if fixture.is_empty() {
        scene.skip("nothing was seeded");
        return;
    }
    cleanup_ids(scene, fixture).await;
}

/// Runs the writing scenarios, each under its own tag.
pub(crate) async fn run(
    verifier: &Verifier,
    seed: &dyn Seed,
    tag: &str,
    results: &mut Vec<ScenarioResult>,
) {
    scenario!(
        verifier,
        results,
        "delete-one",
        true,
        "a deleted entry is 404 after, and deleting it again is 404",
        |scene| delete_one(&mut scene, seed, &format!("{tag}-d1"), "deleteDlqMessage")
    );
    scenario!(
        verifier,
        results,
        "delete-one-workflow-path",
        true,
        "the same at DELETE /v2/workflows/dlq/{dlqId}",
        |scene| delete_one(
            &mut scene,
            seed,
            &format!("{tag}-d2"),
            "deleteWorkflowDlqMessage"
        )
    );
    scenario!(
        verifier,
        results,
        "bulk-delete-ids",
        true,
        "a bulk delete by ids removes exactly what it named",
        |scene| bulk_delete_ids(&mut scene, seed, &format!("{tag}-b1"))
    );
    scenario!(
        verifier,
        results,
        "bulk-delete-filter",
        true,
        "a bulk delete by filter, batch by batch, removes exactly the matching entries",
        |scene| bulk_delete_filter(&mut scene, seed, &format!("{tag}-b2"))
    );
    scenario!(
        verifier,
        results,
        "cancel-run",
        true,
        "cancelling a run removes its entries, and a second cancel is 404",
        |scene| cancel_run(&mut scene, seed, &format!("{tag}-c1"))
    );
    scenario!(
        verifier,
        results,
        "unauthorized-writes",
        true,
        "a write without valid credentials is 401 and changes nothing",
        |scene| unauthorized_writes(&mut scene, seed, &format!("{tag}-u1"))
    );
}
