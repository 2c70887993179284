//! The statistics and resource scenarios: every series has the length and spacing the spec's
//! `x-courier-series` facts give for its period, the daily series cover their days, the DLQ
//! count is what the list shows, and a stored index and URL group are answered as stored.

use super::http::{Auth, Exchange};
use super::listing::{MAX_PAGES, walk};
use super::seed::{Seed, random_uuid};
use super::{Run, Scene, scenario};
use courier_models::{IndexRegion, IndexType, SearchIndex, UrlGroup, UrlGroupEndpoint};
use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Iso8601;

const DAY_SECONDS: i64 = 86_400;

/// The time of a data point's `x`: `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC` (any fraction digits).
fn point_time(x: &str) -> Option<OffsetDateTime> {
    let iso = x
        .strip_suffix(" UTC")?
        .replacen(' ', "T", 1)
        .replace(" +0000", "Z");
    OffsetDateTime::parse(&iso, &Iso8601::DEFAULT).ok()
}

/// Checks that the points at `pointer` are `points` long (when given) and `spacing` seconds
/// apart, each `x` readable.
fn check_points(
    scene: &mut Scene<'_>,
    answer: &Exchange,
    pointer: &str,
    points: Option<u64>,
    spacing: i64,
) {
    let Some(series) = answer.at(pointer).as_array() else {
        return;
    };
    if let Some(points) = points
        && series.len() as u64 != points
    {
        scene.violate(
            answer,
            pointer,
            "series-length",
            &Value::from(series.len()),
            format!("{} points; the period has {points}", series.len()),
        );
    }
    let mut previous: Option<OffsetDateTime> = None;
    for (index, point) in series.iter().enumerate() {
        let Some(x) = point["x"].as_str() else {
            continue;
        };
        let Some(at) = point_time(x) else {
            scene.violate(
                answer,
                format!("{pointer}/{index}/x"),
                "time-format",
                &point["x"],
                "not `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`",
            );
            return;
        };
        if let Some(before) = previous {
            let gap = (at - before).whole_seconds();
            if gap != spacing {
                scene.violate(
                    answer,
                    format!("{pointer}/{index}/x"),
                    "series-spacing",
                    &point["x"],
                    format!("{gap} s after the previous point; the spacing is {spacing} s"),
                );
                return;
            }
        }
        previous = Some(at);
    }
}

/// The names of a fact list of `schema` (`period`, `days`, `monthDays`).
fn fact_names(scene: &Scene<'_>, schema: &str, key: &str) -> Vec<String> {
    scene
        .contract()
        .series
        .get(schema)
        .and_then(|facts| facts[key].as_array().cloned())
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(str::to_owned))
        .collect()
}

/// Checks the period series of a statistics answer against the facts for `schema`.
fn check_period_series(scene: &mut Scene<'_>, answer: &Exchange, schema: &str, period: &str) {
    let Some((points, spacing)) = scene.contract().period_rule(period) else {
        return;
    };
    for name in fact_names(scene, schema, "period") {
        let pointer = format!("/{name}");
        let named = answer
            .at(&pointer)
            .as_array()
            .is_some_and(|items| items.iter().any(|i| i.get("data_points").is_some()));
        if named {
            let count = answer.at(&pointer).as_array().map_or(0, Vec::len);
            for index in 0..count {
                check_points(
                    scene,
                    answer,
                    &format!("{pointer}/{index}/data_points"),
                    Some(points),
                    spacing as i64,
                );
            }
        } else {
            check_points(scene, answer, &pointer, Some(points), spacing as i64);
        }
    }
}

/// Checks the daily arrays of a statistics answer: the days they cover, and that they align.
fn check_days(scene: &mut Scene<'_>, answer: &Exchange, schema: &str) {
    let last_days = scene
        .contract()
        .series
        .get(schema)
        .and_then(|facts| facts["lastDays"].as_u64());
    let (day_names, expected_days) = match last_days {
        Some(days) => (fact_names(scene, schema, "days"), Some(days)),
        None => (fact_names(scene, schema, "monthDays"), None),
    };
    let mut lengths = Vec::new();
    for name in &day_names {
        let pointer = format!("/{name}");
        let Some(items) = answer.at(&pointer).as_array() else {
            continue;
        };
        lengths.push((name.clone(), items.len()));
        if items.first().is_some_and(|p| p.get("x").is_some()) {
            let days = expected_days.or_else(|| {
                let first = point_time(items[0]["x"].as_str()?)?;
                Some(u64::from(time::util::days_in_month(
                    first.month(),
                    first.year(),
                )))
            });
            check_points(scene, answer, &pointer, days, DAY_SECONDS);
        }
    }
    if let Some((first_name, first_len)) = lengths.first().cloned() {
        for (name, len) in &lengths {
            if *len != first_len {
                scene.violate(answer, format!("/{name}"), "series-length", &Value::from(*len),
                    format!("{len} days; `{first_name}` has {first_len} (the daily arrays align by index)"));
            }
        }
    }
}

/// The account statistics of every period, each answer checked by `check`.
async fn account_stats(scene: &mut Scene<'_>, check: fn(&mut Scene<'_>, &Exchange, &str)) {
    for period in scene.contract().periods() {
        let query = [("period", period.to_owned())];
        let Some(answer) = scene
            .call("getAccountStats", &[], &query, Auth::Valid)
            .await
        else {
            continue;
        };
        if scene.expect_status(&answer, &[200], "for the account statistics") {
            check(scene, &answer, period);
        }
    }
}

/// `dlq_message_count` against a full walk of the list.
async fn dlq_count(scene: &mut Scene<'_>) {
    let listed = walk(scene, &[], 100, MAX_PAGES).await;
    if !listed.complete {
        if let Some(why) = listed.stopped_short {
            scene.inconclusive(format!("{why}: too many entries to count"));
        }
        return;
    }
    let Some(answer) = scene.call("getAccountStats", &[], &[], Auth::Valid).await else {
        return;
    };
    if !scene.expect_status(&answer, &[200], "for the account statistics") {
        return;
    }
    let count = answer.at("/dlq_message_count");
    if count.as_u64() != Some(listed.entries.len() as u64) {
        let count = count.clone();
        scene.violate(
            &answer,
            "/dlq_message_count",
            "dlq-count",
            &count,
            format!(
                "a full walk of the list shows {} entries",
                listed.entries.len()
            ),
        );
    }
}

/// The index the seed stored, checked field by field against what was stored.
async fn index_contents(scene: &mut Scene<'_>, index: &SearchIndex) {
    let id = index.id.to_string();
    let Some(answer) = scene
        .call("getSearchIndex", &[("id", &id)], &[], Auth::Valid)
        .await
    else {
        return;
    };
    if !scene.expect_status(&answer, &[200], "for a stored search index") {
        return;
    }
    let stored = serde_json::to_value(index).unwrap_or(Value::Null);
    for (name, value) in stored.as_object().into_iter().flatten() {
        if name == "throughput_vector" {
            continue;
        }
        let pointer = format!("/{name}");
        let answered = answer.at(&pointer).clone();
        let same = match (name.as_str(), answered.as_str(), value.as_str()) {
            ("id", Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
            _ => &answered == value,
        };
        if !same {
            scene.violate(
                &answer,
                pointer,
                "index",
                &answered,
                format!("stored with {name} = {value}"),
            );
        }
    }
}

async fn index_stats(scene: &mut Scene<'_>, index: &SearchIndex) {
    let id = index.id.to_string();
    for period in scene.contract().periods() {
        let query = [("period", period.to_owned())];
        let Some(answer) = scene
            .call("getSearchIndexStats", &[("id", &id)], &query, Auth::Valid)
            .await
        else {
            continue;
        };
        if scene.expect_status(&answer, &[200], "for a stored index's statistics") {
            check_period_series(scene, &answer, "SearchIndexStats", period);
            check_days(scene, &answer, "SearchIndexStats");
        }
    }
}

async fn url_group_contents(scene: &mut Scene<'_>, group: &UrlGroup) {
    let Some(answer) = scene
        .call(
            "getUrlGroup",
            &[("urlGroupName", &group.name)],
            &[],
            Auth::Valid,
        )
        .await
    else {
        return;
    };
    if !scene.expect_status(&answer, &[200], "for a stored URL group") {
        return;
    }
    if answer.at("/name").as_str() != Some(group.name.as_str()) {
        let name = answer.at("/name").clone();
        scene.violate(
            &answer,
            "/name",
            "url-group",
            &name,
            format!("stored as `{}`", group.name),
        );
    }
    let endpoints = serde_json::to_value(&group.endpoints).unwrap_or(Value::Null);
    if answer.at("/endpoints") != &endpoints {
        let got = answer.at("/endpoints").clone();
        scene.violate(
            &answer,
            "/endpoints",
            "url-group",
            &got,
            format!("stored with endpoints {endpoints}"),
        );
    }
    let (created, updated) = (
        answer.at("/createdAt").as_i64(),
        answer.at("/updatedAt").as_i64(),
    );
    if let (Some(created), Some(updated)) = (created, updated)
        && updated < created
    {
        scene.violate(
            &answer,
            "/updatedAt",
            "url-group",
            &Value::from(updated),
            format!("updated before it was created ({created})"),
        );
    }
}

/// A search index for the run to store.
fn index_for(tag: &str) -> SearchIndex {
    let id = uuid::Uuid::parse_str(&random_uuid()).unwrap_or_default();
    SearchIndex {
        creation_time: 1_700_000_000,
        customer_id: format!("{tag}@courier-verify.invalid"),
        endpoint: format!("https://{tag}.courier-verify.invalid"),
        hosting_email: String::new(),
        id,
        input_enrichment_enabled: false,
        max_daily_queries: -1,
        max_daily_updates: 10_000,
        max_monthly_bandwidth: -1,
        max_monthly_reranks: -1,
        max_query_per_second: 100,
        max_reads_per_request: 1000,
        max_vector_count: 1_000_000,
        max_writes_per_request: 1000,
        max_writes_per_second: 50,
        name: format!("{tag}-index"),
        read_only_token: format!("{tag}-read-only-token"),
        region: IndexRegion::EuWest1,
        throughput_vector: Vec::new(),
        token: format!("{tag}-token"),
        type_: IndexType::Payg,
    }
}

/// A URL group for the run to store.
fn group_for(tag: &str) -> UrlGroup {
    UrlGroup {
        created_at: 0,
        updated_at: 0,
        name: format!("{tag}-group"),
        endpoints: (0..2)
            .map(|i| UrlGroupEndpoint {
                name: format!("{tag}-endpoint-{i}"),
                url: format!("https://{tag}.example.invalid/endpoint/{i}"),
            })
            .collect(),
    }
}

/// Stores something through the seed for `name`; `None` (the scenario failed or is
/// inconclusive) when it could not.
async fn seeded<T: Clone>(
    scene: &mut Scene<'_>,
    value: T,
    what: &str,
    store: impl std::future::Future<Output = Result<bool, String>>,
) -> Option<T> {
    match store.await {
        Ok(true) => Some(value),
        Ok(false) => {
            scene.inconclusive(format!("the seed offers no {what} to check"));
            None
        }
        Err(error) => {
            scene.fail("seed", format!("seeding a {what} failed: {error}"));
            None
        }
    }
}

/// Runs the statistics and resource scenarios.
pub(crate) async fn run(run: &mut Run<'_>, seed: Option<&dyn Seed>, tag: &str) {
    scenario!(run, "account-stats-series", |scene| account_stats(
        &mut scene,
        |scene, answer, period| check_period_series(scene, answer, "AccountStats", period)
    ));
    scenario!(run, "account-stats-days", |scene| account_stats(
        &mut scene,
        |scene, answer, _| check_days(scene, answer, "AccountStats")
    ));
    scenario!(run, "account-stats-dlq-count", |scene| dlq_count(
        &mut scene
    ));
    let Some(seed) = seed else { return };
    if run.chosen("index-contents") || run.chosen("index-stats-series") {
        let wanted = index_for(tag);
        let mut scene = run.scene();
        let index = seeded(
            &mut scene,
            wanted.clone(),
            "search index",
            seed.insert_search_index(wanted),
        )
        .await;
        // A failed seed fails each scenario that needed it (below), not the run.
        let failure = scene.failures.first().and_then(|f| f.error.clone());
        let reason = scene.inconclusive.clone();
        for name in ["index-contents", "index-stats-series"] {
            scenario!(run, name, |scene| async {
                match (&index, &failure, &reason) {
                    (Some(index), _, _) if name == "index-contents" => {
                        index_contents(&mut scene, index).await
                    }
                    (Some(index), _, _) => index_stats(&mut scene, index).await,
                    (None, Some(failure), _) => scene.fail("seed", failure.clone()),
                    (None, None, Some(reason)) => scene.inconclusive(reason.clone()),
                    (None, None, None) => {}
                }
            });
        }
    }
    scenario!(run, "url-group-contents", |scene| async {
        let wanted = group_for(tag);
        if let Some(group) = seeded(
            &mut scene,
            wanted.clone(),
            "URL group",
            seed.insert_url_group(wanted),
        )
        .await
        {
            url_group_contents(&mut scene, &group).await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_read_with_milliseconds_and_nanoseconds() {
        let ms = point_time("2025-10-23 17:34:00.000 +0000 UTC").unwrap();
        let ns = point_time("2025-10-23 17:35:00.000000000 +0000 UTC").unwrap();
        assert_eq!((ns - ms).whole_seconds(), 60);
        assert!(point_time("2025-10-23T17:34:00Z").is_none());
    }
}
