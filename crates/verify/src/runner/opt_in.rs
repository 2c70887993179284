//! The scenarios that run only when chosen by name: they change what a run cannot undo (the
//! service token), change the account's limits for a moment, or spend its request budget.

use super::fixture;
use super::http::Auth;
use super::listing::{LIST, MAX_PAGES, dlq_id, walk};
use super::seed::{DlqLimits, Seed};
use super::write::{cleanup_ids, expect_gone, expect_present};
use super::{Run, Scene, scenario};
use serde_json::Value;

/// `rate-limit`: requests as fast as they go until a 429, whose headers must say when to
/// come back.
async fn rate_limit(scene: &mut Scene<'_>) {
    let op = scene.op(LIST);
    for _ in 0..300 {
        scene.requests += 1;
        let Ok(exchange) = scene
            .caller
            .call_once(op, &[], &[("count", "1".to_owned())], Auth::Valid)
            .await
        else {
            continue;
        };
        if exchange.status != 429 {
            continue;
        }
        if !exchange.violations.is_empty() {
            scene.record(&exchange, exchange.violations.clone());
        }
        let has = |name: &str| exchange.headers.contains_key(name);
        let burst = [
            "burst-ratelimit-limit",
            "burst-ratelimit-remaining",
            "burst-ratelimit-reset",
        ];
        let daily = ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"];
        let complete_set = burst.iter().all(|h| has(h)) || daily.iter().all(|h| has(h));
        if !has("retry-after") || !complete_set {
            scene.violate(&exchange, "", "rate-limit", &Value::Null,
                "a 429 carries Retry-After and a whole set of Burst-RateLimit-* (per second) or RateLimit-* (daily) headers");
        }
        if let Some(wait) = super::http::retry_after(&exchange.headers) {
            tokio::time::sleep(wait.min(std::time::Duration::from_secs(5))).await;
        }
        return;
    }
    scene.inconclusive("300 requests as fast as they went met no 429");
}

/// `rotation`: new credentials at once, the old token refused at once.
async fn rotation(scene: &mut Scene<'_>) {
    let Some(rotated) = scene.call("rotateToken", &[], &[], Auth::Valid).await else {
        return;
    };
    if !scene.expect_status(&rotated, &[200], "for rotating the credentials") {
        return;
    }
    let Some(token) = rotated.at("/token").as_str().map(str::to_owned) else {
        return;
    };
    if let Some(old) = scene
        .call(LIST, &[], &[("count", "1".to_owned())], Auth::Valid)
        .await
    {
        scene.expect_status(&old, &[401], "with the token the rotation replaced");
    }
    *scene
        .caller
        .service_token
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(token);
    if let Some(new) = scene
        .call(LIST, &[], &[("count", "1".to_owned())], Auth::Valid)
        .await
    {
        scene.expect_status(&new, &[200], "with the token the rotation answered");
    }
}

/// The DLQ as a full walk shows it: its entries' ids and creation times, or `None` (the
/// scenario inconclusive) when it is too large to walk.
async fn whole_dlq(scene: &mut Scene<'_>) -> Option<Vec<(String, i64)>> {
    let listed = walk(scene, &[], 100, MAX_PAGES).await;
    if !listed.complete {
        if let Some(why) = listed.stopped_short {
            scene.inconclusive(why);
        }
        return None;
    }
    Some(
        listed
            .entries
            .iter()
            .map(|(e, _, _)| (dlq_id(e), e["createdAt"].as_i64().unwrap_or_default()))
            .collect(),
    )
}

/// Sets the limits through the seed; `None` (the scenario inconclusive or failed) when it
/// cannot.
async fn set_limits(
    scene: &mut Scene<'_>,
    seed: &dyn Seed,
    limits: DlqLimits,
) -> Option<DlqLimits> {
    match seed.set_dlq_limits(limits).await {
        Ok(Some(before)) => Some(before),
        Ok(None) => {
            scene.inconclusive("the seed offers no way to set the account's DLQ limits");
            None
        }
        Err(error) => {
            scene.fail(
                "seed",
                format!("setting the account's DLQ limits failed: {error}"),
            );
            None
        }
    }
}

/// Stores one entry of `tag` created at `created_at`; its id.
async fn store(
    scene: &mut Scene<'_>,
    seed: &dyn Seed,
    tag: &str,
    created_at: i64,
) -> Option<String> {
    let entry = fixture::entry(tag, 0, created_at);
    match seed.insert_dlq(vec![entry]).await {
        Ok(ids) if ids.len() == 1 => ids.into_iter().next(),
        Ok(ids) => {
            scene.fail(
                "seed",
                format!(
                    "asked to store 1 entry, the seed answered {} ids",
                    ids.len()
                ),
            );
            None
        }
        Err(error) => {
            scene.fail("seed", format!("seeding failed: {error}"));
            None
        }
    }
}

/// `retention`: with the retention just above the oldest entry's age, an entry created before
/// it is gone on every path, one created now stays.
async fn retention(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let Some(dlq) = whole_dlq(scene).await else {
        return;
    };
    let now = fixture::now_ms();
    let oldest = dlq.iter().map(|(_, at)| *at).min().unwrap_or(now);
    let retention = now - oldest + 600_000;
    let limits = DlqLimits {
        max_dlq_retention_time_milis: Some(retention),
        ..DlqLimits::default()
    };
    let Some(before) = set_limits(scene, seed, limits).await else {
        return;
    };
    let expired_tag = format!("{tag}-old");
    if let Some(expired) = store(scene, seed, &expired_tag, now - retention - 60_000).await {
        expect_gone(
            scene,
            std::slice::from_ref(&expired),
            &expired_tag,
            "it is older than the retention",
        )
        .await;
    }
    if let Some(kept) = store(scene, seed, &format!("{tag}-new"), now).await {
        expect_present(
            scene,
            &kept,
            true,
            "for an entry younger than the retention",
        )
        .await;
        cleanup_ids(scene, std::slice::from_ref(&kept)).await;
    }
    let restore = DlqLimits {
        max_dlq_retention_time_milis: before.max_dlq_retention_time_milis,
        ..DlqLimits::default()
    };
    set_limits(scene, seed, restore).await;
}

/// `dlq-size`: with room for one more entry, storing two evicts the older, which the scenario
/// created before every other entry.
async fn dlq_size(scene: &mut Scene<'_>, seed: &dyn Seed, tag: &str) {
    let Some(dlq) = whole_dlq(scene).await else {
        return;
    };
    let now = fixture::now_ms();
    let oldest = dlq.iter().map(|(_, at)| *at).min().unwrap_or(now);
    let size = dlq.len() as i64 + 1;
    let limits = DlqLimits {
        max_dlq_size: Some(size),
        ..DlqLimits::default()
    };
    let Some(before) = set_limits(scene, seed, limits).await else {
        return;
    };
    let evicted_tag = format!("{tag}-oldest");
    let first = store(scene, seed, &evicted_tag, oldest - 1_000).await;
    let second = store(scene, seed, &format!("{tag}-newest"), now).await;
    if let (Some(first), Some(second)) = (first, second) {
        expect_gone(
            scene,
            std::slice::from_ref(&first),
            &evicted_tag,
            "the DLQ was full and it was the oldest entry",
        )
        .await;
        expect_present(
            scene,
            &second,
            true,
            "for the entry whose storing evicted the oldest",
        )
        .await;
        cleanup_ids(scene, std::slice::from_ref(&second)).await;
    }
    let restore = DlqLimits {
        max_dlq_size: before.max_dlq_size,
        ..DlqLimits::default()
    };
    set_limits(scene, seed, restore).await;
}

/// The scenarios that run only when chosen by name.
pub(crate) async fn run(run: &mut Run<'_>, seed: Option<&dyn Seed>, tag: &str) {
    scenario!(run, "rate-limit", |scene| rate_limit(&mut scene));
    if let Some(seed) = seed {
        scenario!(run, "retention", |scene| retention(
            &mut scene,
            seed,
            &format!("{tag}-r1")
        ));
        scenario!(run, "dlq-size", |scene| dlq_size(
            &mut scene,
            seed,
            &format!("{tag}-s1")
        ));
    }
    scenario!(run, "rotation", |scene| rotation(&mut scene));
}
