//! The account's other resources: URL groups, search indexes and the statistics pages.

use super::{
    Arc, Console, Extension, ManagementApi, Markup, Path, PathParams, Query, RawQuery, Response,
    Section, Series, State, StatusCode, Viewer, chart, failure, form_query, html, moment, now_ms,
    read_store, rejected, section_page, unexpected, view,
};
use courier_server::{
    GetAccountStatsRequest, GetAccountStatsResponse, GetSearchIndexRequest, GetSearchIndexResponse,
    GetSearchIndexStatsRequest, GetSearchIndexStatsResponse,
};

/// `GET /console/topics`: the URL groups and their endpoints.
pub(crate) async fn topics(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
) -> Result<Response, Response> {
    let groups = read_store(&console, &viewer, |store| store.url_groups()).await?;
    let now = now_ms();
    let body = html! {
        h1 { "Topics (URL groups)" }
        @if groups.is_empty() {
            p.muted { "No URL groups yet." }
        }
        @for group in &groups {
            section.card data-topic=(group.name) {
                h2 { (group.name) }
                p.muted { "Created " (moment(group.created_at, now)) " · updated " (moment(group.updated_at, now)) }
                table {
                    thead { tr { th scope="col" { "Endpoint" } th scope="col" { "URL" } } }
                    tbody {
                        @for endpoint in &group.endpoints {
                            tr {
                                td { @if endpoint.name.is_empty() { span.muted { "(unnamed)" } } @else { (endpoint.name) } }
                                td { code { (endpoint.url) } }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(section_page(Section::Topics, "Topics", &viewer, body))
}

/// `GET /console/search`: the search indexes.
pub(crate) async fn indexes(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
) -> Result<Response, Response> {
    let indexes = read_store(&console, &viewer, |store| store.indexes()).await?;
    let body = html! {
        h1 { "Search indexes" }
        @if indexes.is_empty() {
            p.muted { "No search indexes yet." }
        } @else {
            div.table-wrap {
                table {
                    thead { tr { th scope="col" { "Name" } th scope="col" { "Id" } th scope="col" { "Region" } th scope="col" { "Endpoint" } } }
                    tbody {
                        @for index in &indexes {
                            tr {
                                td { a href=(format!("/console/search/{}", index.id)) { (index.name) } }
                                td { code { (index.id) } }
                                td { (index.region.to_string()) }
                                td { code { (index.endpoint) } }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(section_page(
        Section::Search,
        "Search indexes",
        &viewer,
        body,
    ))
}

/// `GET /console/search/{id}?period=`: an index and its statistics.
pub(crate) async fn index(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = form_query(raw.as_deref().unwrap_or(""), &[]);
    let path = PathParams::new(vec![("id".to_owned(), id.clone())]);
    let (index_request, stats_request) = match (
        GetSearchIndexRequest::parse(&path, &Query::default()),
        GetSearchIndexStatsRequest::parse(&path, &Query::parse(&query)),
    ) {
        (Ok(index), Ok(stats)) => (index, stats),
        (Err(rejection), _) | (_, Err(rejection)) => return rejected(&viewer, &rejection),
    };
    let period = stats_request.period;
    let index = match ManagementApi::get_search_index(&*console.service, (), index_request).await {
        GetSearchIndexResponse::Ok(index) => index,
        GetSearchIndexResponse::NotFound(body) => {
            return failure(&viewer, StatusCode::NOT_FOUND, "No such index", &body.error);
        }
        other => return unexpected(&viewer, "reading the index", other),
    };
    let stats =
        match ManagementApi::get_search_index_stats(&*console.service, (), stats_request).await {
            GetSearchIndexStatsResponse::Ok(stats) => stats,
            other => return unexpected(&viewer, "index statistics", other),
        };
    let json = serde_json::to_value(&stats).unwrap_or_default();
    let base = format!("/console/search/{}", index.id);
    let body = html! {
        p { a href="/console/search" { "← All search indexes" } }
        h1 { "Search index " (index.name) }
        table.kv {
            tbody {
                tr { th scope="row" { "Id" } td { code { (index.id) } } }
                tr { th scope="row" { "Endpoint" } td { code { (index.endpoint) } } }
                tr { th scope="row" { "Type" } td { (index.type_.to_string()) } }
                tr { th scope="row" { "Region" } td { (index.region.to_string()) } }
                tr { th scope="row" { "Max vectors" } td { (index.max_vector_count) } }
                tr { th scope="row" { "Max queries per second" } td { (index.max_query_per_second) } }
                tr { th scope="row" { "Max writes per second" } td { (index.max_writes_per_second) } }
            }
        }
        (statistics(&base, period, &json))
    };
    section_page(
        Section::Search,
        &format!("Index {}", index.name),
        &viewer,
        body,
    )
}

/// `GET /console/stats?period=`: the account statistics.
pub(crate) async fn stats(
    State(console): State<Arc<Console>>,
    Extension(viewer): Extension<Viewer>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = Query::parse(&form_query(raw.as_deref().unwrap_or(""), &[]));
    let request = match GetAccountStatsRequest::parse(&PathParams::default(), &query) {
        Ok(request) => request,
        Err(rejection) => return rejected(&viewer, &rejection),
    };
    let period = request.period;
    let stats = match ManagementApi::get_account_stats(&*console.service, (), request).await {
        GetAccountStatsResponse::Ok(stats) => stats,
        other => return unexpected(&viewer, "account statistics", other),
    };
    let json = serde_json::to_value(&stats).unwrap_or_default();
    let body = html! {
        h1 { "Account statistics" }
        (statistics("/console/stats", period, &json))
    };
    section_page(Section::Stats, "Statistics", &viewer, body)
}

const PERIODS: [courier_models::StatsPeriod; 7] = [
    courier_models::StatsPeriod::OneHour,
    courier_models::StatsPeriod::ThreeHours,
    courier_models::StatsPeriod::TwelveHours,
    courier_models::StatsPeriod::OneDay,
    courier_models::StatsPeriod::ThreeDays,
    courier_models::StatsPeriod::SevenDays,
    courier_models::StatsPeriod::ThirtyDays,
];

/// Figures, the period selector and one chart per series of a statistics response. The
/// response is read as JSON so every series the spec adds is charted without a change here:
/// arrays of `{x, y, …}` points (one chart per numeric field) and of `{id, data_points}`
/// named series (one chart per id). Series with one point per day of `days` are the month's,
/// drawn with days of the month; the others cover the chosen period.
fn statistics(base: &str, period: courier_models::StatsPeriod, json: &serde_json::Value) -> Markup {
    let empty = serde_json::Map::new();
    let object = json.as_object().unwrap_or(&empty);
    let days = object
        .get("days")
        .and_then(|d| d.as_array())
        .map_or(0, Vec::len);
    let mut figures = Vec::new();
    let (mut month, mut recent): (Vec<Series>, Vec<Series>) = (Vec::new(), Vec::new());
    for (key, value) in object {
        if let Some(number) = value.as_f64() {
            figures.push((key.clone(), number));
            continue;
        }
        let Some(items) = value.as_array() else {
            continue;
        };
        let by_day = days > 0 && items.len() == days;
        let bucket = if by_day { &mut month } else { &mut recent };
        for series in series_of(key, items, by_day) {
            bucket.push(series);
        }
    }
    // Series with activity first, so what moved is on screen; the quiet ones keep their order.
    for charts in [&mut recent, &mut month] {
        charts.sort_by_key(|series| series.points.iter().all(|p| p.value == 0.0));
    }
    html! {
        nav aria-label="Statistics period" {
            ul.periods {
                @for choice in PERIODS {
                    li {
                        a href=(format!("{base}?period={choice}")) aria-current=[(choice == period).then_some("page")] { (choice.to_string()) }
                    }
                }
            }
        }
        dl.figures {
            @for (key, value) in &figures {
                div { dt { (title_of(key)) } dd data-figure=(key) { (view::number(*value)) } }
            }
        }
        h2 { "Last " (period.to_string()) }
        div.charts { @for series in &recent { (chart::render(series)) } }
        @if !month.is_empty() {
            h2 { "This month, by day" }
            div.charts { @for series in &month { (chart::render(series)) } }
        }
    }
}

/// The charts of one array of a statistics response.
fn series_of(key: &str, items: &[serde_json::Value], by_day: bool) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for item in items {
        let Some(fields) = item.as_object() else {
            continue;
        };
        if let (Some(id), Some(points)) = (
            fields.get("id").and_then(|v| v.as_str()),
            fields.get("data_points").and_then(|v| v.as_array()),
        ) {
            out.extend(series_of(&format!("{key}.{id}"), points, by_day));
            continue;
        }
        let Some(x) = fields.get("x").and_then(|v| v.as_str()) else {
            continue;
        };
        // `y` first, so a series' main value is charted before its breakdowns.
        let mut numeric: Vec<(&String, f64)> = fields
            .iter()
            .filter_map(|(field, value)| Some((field, value.as_f64()?)))
            .collect();
        numeric.sort_by_key(|(field, _)| *field != "y");
        for (field, value) in numeric {
            let id = if field == "y" {
                key.to_owned()
            } else {
                format!("{key}.{field}")
            };
            let point = chart::point(x, value, by_day);
            match out.iter_mut().find(|series| series.id == id) {
                Some(series) => series.points.push(point),
                None => out.push(Series {
                    title: title_of(&id),
                    id,
                    points: vec![point],
                }),
            }
        }
    }
    out
}

/// `daily_svc_messages.delivered` → `Daily svc messages · delivered`.
fn title_of(id: &str) -> String {
    let mut parts = id.split('.');
    let head = parts
        .next()
        .unwrap_or("")
        .replace('_', " ")
        .replace("dlq", "DLQ")
        .replace("svc", "service");
    let mut title: String = head
        .chars()
        .enumerate()
        .map(|(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c })
        .collect();
    for part in parts {
        title.push_str(" · ");
        title.push_str(&part.replace('_', " "));
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_arrays_become_one_series_per_field() {
        let items: Vec<serde_json::Value> = serde_json::from_str(
            r#"[{"x":"2025-11-01 00:00:00.000 +0000 UTC","y":1,"workflow_run":2},
                {"x":"2025-11-02 00:00:00.000 +0000 UTC","y":3,"workflow_run":4}]"#,
        )
        .unwrap();
        let series = series_of("daily_requests", &items, true);
        let ids: Vec<&str> = series.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["daily_requests", "daily_requests.workflow_run"]);
        assert_eq!(series[0].points[1].value, 3.0);
        assert_eq!(
            title_of("daily_svc_messages.run_failed"),
            "Daily service messages · run failed"
        );
        assert_eq!(title_of("dlq_message_count"), "DLQ message count");
    }
}
