//! The statistics scenarios: every series has the length and spacing the spec's
//! `x-courier-series` facts give for its period, and the daily series cover their days.

use super::Scene;
use super::http::{Auth, Exchange};
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

/// Checks the series of a statistics answer against the facts for `schema`.
fn check_series(scene: &mut Scene<'_>, answer: &Exchange, schema: &str, period: &str) {
    let contract = scene.contract();
    let Some((points, spacing)) = contract.period_rule(period) else {
        return;
    };
    let facts = contract.series.get(schema).cloned().unwrap_or_default();
    let names = |key: &str| -> Vec<String> {
        facts[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect()
    };
    for name in names("period") {
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
    let (day_names, expected_days) = if let Some(days) = facts["lastDays"].as_u64() {
        (names("days"), Some(days))
    } else {
        (names("monthDays"), None)
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

pub(crate) async fn account_stats(scene: &mut Scene<'_>) {
    for period in scene.contract().periods() {
        let query = [("period", period.to_owned())];
        let Some(answer) = scene
            .call("getAccountStats", &[], &query, Auth::Valid)
            .await
        else {
            continue;
        };
        if scene.expect_status(&answer, &[200], "for the account statistics") {
            check_series(scene, &answer, "AccountStats", period);
        }
    }
}

pub(crate) async fn index_stats(scene: &mut Scene<'_>, index: Option<&str>) {
    let Some(index) = index else {
        scene.skip(
            "no search index to read: the seed offers none (writing scenarios off or no seed)",
        );
        return;
    };
    for period in scene.contract().periods() {
        let query = [("period", period.to_owned())];
        let Some(answer) = scene
            .call("getSearchIndexStats", &[("id", index)], &query, Auth::Valid)
            .await
        else {
            continue;
        };
        if scene.expect_status(&answer, &[200], "for a seeded index's statistics") {
            check_series(scene, &answer, "SearchIndexStats", period);
        }
    }
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
