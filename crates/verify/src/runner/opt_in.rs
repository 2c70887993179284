//! The scenarios that run only when chosen by name: they change what a run cannot undo (the
//! service token) or spend the account's request budget.

use super::http::Auth;
use super::listing::LIST;
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

/// The scenarios that run only when chosen by name.
pub(crate) async fn run(run: &mut Run<'_>) {
    scenario!(run, "rate-limit", |scene| rate_limit(&mut scene));
    scenario!(run, "rotation", |scene| rotation(&mut scene));
}
