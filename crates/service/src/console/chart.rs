//! Statistics as SVG bar charts, one per series, drawn on the server: no script needed to read
//! them, a `<title>` tooltip per bar for hover values, and the numbers in a table for keyboards
//! and screen readers.

use super::view::number;
use maud::{Markup, html};

/// One bar.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Point {
    /// The axis label (a day of the month, a time of day).
    pub tick: String,
    /// The full label of the tooltip and the table.
    pub label: String,
    pub value: f64,
    /// Drawn on a shaded band, so the weeks of a month stand out.
    pub weekend: bool,
}

/// One chart's data.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Series {
    /// Stable id for the page (`data-series`), e.g. `daily_requests.workflow_run`.
    pub id: String,
    pub title: String,
    pub points: Vec<Point>,
}

/// A series point from the API's `x` (`YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`).
pub(super) fn point(x: &str, value: f64, by_day: bool) -> Point {
    let date = x.get(..10).unwrap_or(x);
    let clock = x.get(11..16).unwrap_or("");
    let weekday = weekday(date);
    if by_day {
        let day = x.get(8..10).unwrap_or("").trim_start_matches('0');
        Point {
            tick: day.to_owned(),
            label: format!("{weekday} {date}"),
            value,
            weekend: weekday == "Sat" || weekday == "Sun",
        }
    } else {
        Point {
            tick: if clock == "00:00" {
                x.get(5..10).unwrap_or("").to_owned()
            } else {
                clock.to_owned()
            },
            label: format!("{date} {clock} UTC"),
            value,
            weekend: false,
        }
    }
}

/// `Mon`…`Sun` of a `YYYY-MM-DD` date, or empty when it does not parse.
fn weekday(date: &str) -> &'static str {
    let parse = |range: std::ops::Range<usize>| date.get(range).and_then(|s| s.parse::<i32>().ok());
    let (Some(year), Some(month), Some(day)) = (parse(0..4), parse(5..7), parse(8..10)) else {
        return "";
    };
    let Ok(month) = time::Month::try_from(month as u8) else {
        return "";
    };
    match time::Date::from_calendar_date(year, month, day as u8) {
        Ok(date) => match date.weekday() {
            time::Weekday::Monday => "Mon",
            time::Weekday::Tuesday => "Tue",
            time::Weekday::Wednesday => "Wed",
            time::Weekday::Thursday => "Thu",
            time::Weekday::Friday => "Fri",
            time::Weekday::Saturday => "Sat",
            time::Weekday::Sunday => "Sun",
        },
        Err(_) => "",
    }
}

/// The smallest 1, 2 or 5 × 10ⁿ at or above `value` (at least 1), so axis labels are round.
fn nice_ceiling(value: f64) -> f64 {
    if value <= 1.0 || !value.is_finite() {
        return 1.0;
    }
    let magnitude = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|step| step * magnitude)
        .find(|candidate| *candidate >= value)
        .unwrap_or(10.0 * magnitude)
}

const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 180.0;
const LEFT: f64 = 46.0;
const RIGHT: f64 = 8.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 22.0;

/// The chart of one series: a figure with the SVG, a hover readout and the values table.
pub(super) fn render(series: &Series) -> Markup {
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let count = series.points.len().max(1);
    let slot = plot_width / count as f64;
    let bar_width = (slot * 0.72).max(1.0);
    let peak = series.points.iter().map(|p| p.value).fold(0.0, f64::max);
    let ceiling = nice_ceiling(peak);
    let total: f64 = series.points.iter().map(|p| p.value).sum();
    let tick_every = count.div_ceil(16);
    let y_of = |value: f64| TOP + plot_height * (1.0 - value / ceiling);
    let title_id = format!("chart-{}", series.id.replace(['.', ' '], "-"));
    html! {
        figure.chart data-series=(series.id) {
            figcaption {
                span id=(title_id) { (series.title) }
                span.readout aria-live="polite" { "total " (number(total)) ", peak " (number(peak)) }
            }
            svg viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" aria-labelledby=(title_id) {
                @for (index, point) in series.points.iter().enumerate() {
                    @if point.weekend {
                        rect.weekend x=(fmt(LEFT + slot * index as f64)) y=(fmt(TOP)) width=(fmt(slot)) height=(fmt(plot_height)) {}
                    }
                }
                @for fraction in [0.0, 0.5, 1.0] {
                    line.gridline x1=(fmt(LEFT)) x2=(fmt(WIDTH - RIGHT)) y1=(fmt(y_of(ceiling * fraction))) y2=(fmt(y_of(ceiling * fraction))) {}
                    text.axis x=(fmt(LEFT - 6.0)) y=(fmt(y_of(ceiling * fraction) + 3.5)) text-anchor="end" { (number(ceiling * fraction)) }
                }
                @for (index, point) in series.points.iter().enumerate() {
                    @let x = LEFT + slot * index as f64;
                    g.point data-label=(point.label) data-value=(number(point.value)) {
                        title { (point.label) ": " (number(point.value)) }
                        rect.hit x=(fmt(x)) y=(fmt(TOP)) width=(fmt(slot)) height=(fmt(plot_height)) {}
                        rect.bar x=(fmt(x + (slot - bar_width) / 2.0)) y=(fmt(y_of(point.value))) width=(fmt(bar_width)) height=(fmt(TOP + plot_height - y_of(point.value))) {}
                    }
                    @if index % tick_every == 0 {
                        text.axis x=(fmt(x + slot / 2.0)) y=(fmt(HEIGHT - 6.0)) text-anchor="middle" { (point.tick) }
                    }
                }
            }
            details {
                summary { "Values" }
                table {
                    thead { tr { th scope="col" { "When" } th scope="col" { "Value" } } }
                    tbody {
                        @for point in &series.points {
                            tr { td { (point.label) } td { (number(point.value)) } }
                        }
                    }
                }
            }
        }
    }
}

/// Coordinates with one decimal: enough for a 600-unit viewBox, and short markup.
fn fmt(value: f64) -> String {
    format!("{value:.1}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_points_carry_the_day_of_month_and_weekday() {
        let point = point("2025-11-01 00:00:00.000 +0000 UTC", 3.0, true);
        assert_eq!(point.tick, "1");
        assert_eq!(point.label, "Sat 2025-11-01");
        assert!(point.weekend);
        let point = super::point("2025-11-03 14:05:00.000 +0000 UTC", 1.0, false);
        assert_eq!((point.tick.as_str(), point.weekend), ("14:05", false));
    }

    #[test]
    fn axis_ceilings_are_round() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(7.0), 10.0);
        assert_eq!(nice_ceiling(13.0), 20.0);
        assert_eq!(nice_ceiling(420.0), 500.0);
    }

    #[test]
    fn every_point_is_a_bar_with_its_value() {
        let series = Series {
            id: "daily_requests".into(),
            title: "Requests".into(),
            points: (1..=3)
                .map(|day| {
                    point(
                        &format!("2025-11-0{day} 00:00:00.000 +0000 UTC"),
                        day as f64,
                        true,
                    )
                })
                .collect(),
        };
        let svg = render(&series).into_string();
        assert_eq!(svg.matches("class=\"bar\"").count(), 3);
        assert!(
            svg.contains("data-value=\"3\"") && svg.contains("Mon 2025-11-03: 3"),
            "{svg}"
        );
    }
}
