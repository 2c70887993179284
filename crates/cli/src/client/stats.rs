//! `courier stats account|index`: usage statistics, in a table as one sparkline per series.

use super::exit::Failure;
use super::output::{Output, OutputFormat, SPARKLINE_WIDTH, number, render_value, sparkline};
use courier_client::management;
use courier_client::models::StatsPeriod;
use serde_json::Value;

#[derive(clap::Subcommand, Debug)]
pub enum StatsCommand {
    /// The account's usage statistics.
    #[command(after_help = "Examples:
  courier stats account --period 1d
  courier stats account --output json | jq .dlq_message_count")]
    Account {
        /// Period the series cover.
        #[arg(long, short = 'p', default_value = "1h", value_parser = parse_period)]
        period: StatsPeriod,
    },
    /// A search index's statistics.
    #[command(
        after_help = "Example:\n  courier stats index 6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10 --period 30d"
    )]
    Index {
        /// The index ID.
        id: String,
        /// Period the series cover.
        #[arg(long, short = 'p', default_value = "1h", value_parser = parse_period)]
        period: StatsPeriod,
    },
}

fn parse_period(text: &str) -> Result<StatsPeriod, String> {
    text.parse().map_err(|_| {
        let allowed: Vec<String> = StatsPeriod::ALL.iter().map(ToString::to_string).collect();
        format!("expected one of {}", allowed.join(", "))
    })
}

pub(super) async fn run(
    client: &management::Client,
    command: StatsCommand,
    output: &mut Output,
) -> Result<(), Failure> {
    let stats = match command {
        StatsCommand::Account { period } => {
            let stats = client.get_account_stats().period(period).send().await?;
            serde_json::to_value(stats.into_inner())
        }
        StatsCommand::Index { id, period } => {
            let stats = client
                .get_search_index_stats()
                .id(id)
                .period(period)
                .send()
                .await?;
            serde_json::to_value(stats.into_inner())
        }
    }
    .map_err(|error| Failure::from(std::io::Error::from(error)))?;
    match output.format {
        OutputFormat::Json | OutputFormat::Ndjson => output.json_line(&stats)?,
        OutputFormat::Table => charts(&stats, output)?,
    }
    output.flush()
}

/// One series of a statistics document: its name and its values.
fn series_of(stats: &Value) -> Vec<(String, Vec<f64>)> {
    let mut series = Vec::new();
    let Value::Object(fields) = stats else {
        return series;
    };
    for (key, value) in fields {
        let Value::Array(items) = value else { continue };
        let Some(Value::Object(first)) = items.first() else {
            continue;
        };
        if let Some(Value::Array(_)) = first.get("data_points") {
            // Named series (`docs/decisions.md#d7-metric-identifiers`): one row per metric
            // identifier.
            for named in items {
                let id = named["id"].as_str().unwrap_or("?");
                let values = named["data_points"]
                    .as_array()
                    .map(|points| points.iter().filter_map(|p| p["y"].as_f64()).collect())
                    .unwrap_or_default();
                series.push((format!("{key}.{id}"), values));
            }
        } else {
            // Data points: `y`, plus any other numeric field (daily requests carry workflow
            // counts).
            for field in first.keys().filter(|field| first[*field].is_number()) {
                let name = if field == "y" {
                    key.clone()
                } else {
                    format!("{key}.{field}")
                };
                let values = items.iter().filter_map(|p| p[field].as_f64()).collect();
                series.push((name, values));
            }
        }
    }
    series
}

fn charts(stats: &Value, output: &mut Output) -> Result<(), Failure> {
    let mut figures = output.table(&["FIGURE", "VALUE"]);
    if let Value::Object(fields) = stats {
        for (key, value) in fields {
            let shown = match value {
                Value::Number(_) => render_value(key, value),
                Value::Array(days) if days.iter().all(Value::is_string) && !days.is_empty() => {
                    let first = days.first().and_then(Value::as_str).unwrap_or_default();
                    let last = days.last().and_then(Value::as_str).unwrap_or_default();
                    format!("{first} … {last} ({} days)", days.len())
                }
                _ => continue,
            };
            figures.add_row(vec![output.heading(key), comfy_table::Cell::new(shown)]);
        }
    }
    output.print_table(&figures)?;
    let mut charts = output.table(&["SERIES", "CHART", "POINTS", "MAX", "LAST"]);
    for (name, values) in series_of(stats) {
        let max = values.iter().copied().fold(0.0_f64, f64::max);
        let last = values.last().copied().unwrap_or(0.0);
        charts.add_row(vec![
            output.heading(&name),
            comfy_table::Cell::new(sparkline(&values, SPARKLINE_WIDTH)),
            comfy_table::Cell::new(values.len()),
            comfy_table::Cell::new(number(max)),
            comfy_table::Cell::new(number(last)),
        ]);
    }
    output.print_table(&charts)
}
