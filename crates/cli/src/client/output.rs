//! How client commands write their results: tables for people (colour only on a terminal and
//! without `NO_COLOR`), JSON or one JSON document a line for programs.

use super::exit::Failure;
use comfy_table::{Attribute, Cell, Color, ContentArrangement, Table, presets};
use serde::Serialize;
use serde_json::Value;
use std::io::{BufWriter, IsTerminal, Stdout, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// A readable table (statistics as sparklines).
    Table,
    /// One JSON document in the API's shape (`{"messages": [...]}` for lists).
    Json,
    /// One JSON document a line, written as pages arrive.
    Ndjson,
}

impl OutputFormat {
    /// The chosen format, else a table for a person at a terminal and ndjson for a pipe.
    pub fn resolve(chosen: Option<OutputFormat>) -> OutputFormat {
        chosen.unwrap_or(if std::io::stdout().is_terminal() {
            OutputFormat::Table
        } else {
            OutputFormat::Ndjson
        })
    }
}

/// Whether to colour what goes to a stream: only a terminal, and never with `NO_COLOR` set to
/// anything non-empty (<https://no-color.org>).
pub(super) fn colour_for(terminal: bool) -> bool {
    terminal && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

/// Standard output, buffered, with the format and the styling decided once.
pub struct Output {
    pub format: OutputFormat,
    terminal: bool,
    colour: bool,
    out: BufWriter<Stdout>,
}

impl Output {
    pub fn new(format: Option<OutputFormat>) -> Output {
        let terminal = std::io::stdout().is_terminal();
        Output {
            format: OutputFormat::resolve(format),
            terminal,
            colour: colour_for(terminal),
            out: BufWriter::new(std::io::stdout()),
        }
    }

    /// Writes `value` as compact JSON on one line.
    pub fn json_line(&mut self, value: &impl Serialize) -> Result<(), Failure> {
        serde_json::to_writer(&mut self.out, value)
            .map_err(|error| Failure::from(std::io::Error::from(error)))?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    /// Writes raw text (for hand-assembled streaming JSON).
    pub fn raw(&mut self, text: &str) -> Result<(), Failure> {
        self.out.write_all(text.as_bytes())?;
        Ok(())
    }

    /// Writes `value` without a newline.
    pub fn json(&mut self, value: &impl Serialize) -> Result<(), Failure> {
        serde_json::to_writer(&mut self.out, value)
            .map_err(|error| Failure::from(std::io::Error::from(error)))?;
        Ok(())
    }

    pub fn line(&mut self, text: &str) -> Result<(), Failure> {
        writeln!(self.out, "{text}")?;
        Ok(())
    }

    /// Sends what is buffered, so that a reader of a pipe sees each page as it arrives.
    pub fn flush(&mut self) -> Result<(), Failure> {
        self.out.flush()?;
        Ok(())
    }

    /// An empty table styled for where it goes: box drawing and the terminal's width on a
    /// terminal, plain ASCII (markdown) otherwise.
    pub fn table(&self, header: &[&str]) -> Table {
        let mut table = Table::new();
        if self.terminal {
            table.load_style(presets::UTF8_FULL_CONDENSED);
            // Wrap to the terminal's width, but only a real one: a pseudo-terminal without a
            // size (`script`, some CI runners) reports 0 columns, which would wrap every
            // character onto its own line.
            if table.width().is_some_and(|columns| columns >= 40) {
                table.set_content_arrangement(ContentArrangement::Dynamic);
            }
        } else {
            table.load_style(presets::ASCII_MARKDOWN).force_no_tty();
        }
        if !header.is_empty() {
            table.set_header(header.iter().map(|title| self.heading(title)));
        }
        table
    }

    /// A header or key cell: bold and cyan when colour is allowed, plain otherwise.
    pub fn heading(&self, text: &str) -> Cell {
        let cell = Cell::new(text);
        if self.colour {
            cell.add_attribute(Attribute::Bold).fg(Color::Cyan)
        } else {
            cell
        }
    }

    pub fn print_table(&mut self, table: &Table) -> Result<(), Failure> {
        writeln!(self.out, "{table}")?;
        Ok(())
    }

    /// One object as a two-column table, one row per field (see [`render_value`]).
    pub fn key_value_table(&self, value: &Value) -> Table {
        let mut table = self.table(&[]);
        if let Value::Object(fields) = value {
            for (key, field) in fields {
                if field.is_null() {
                    continue;
                }
                table.add_row(vec![self.heading(key), Cell::new(render_value(key, field))]);
            }
        }
        table
    }

    /// Writes one object in the chosen format: a key/value table, or JSON on one line (the
    /// same document for `json` and `ndjson`).
    pub fn object(&mut self, value: &impl Serialize) -> Result<(), Failure> {
        match self.format {
            OutputFormat::Table => {
                let value = serde_json::to_value(value)
                    .map_err(|error| Failure::from(std::io::Error::from(error)))?;
                let table = self.key_value_table(&value);
                self.print_table(&table)
            }
            OutputFormat::Json | OutputFormat::Ndjson => self.json_line(value),
        }
    }

    /// Writes one object (see [`Output::object`]) and flushes: the whole output of a command
    /// that answers with one object.
    pub fn show(&mut self, value: &impl Serialize) -> Result<(), Failure> {
        self.object(value)?;
        self.flush()
    }
}

/// Fields holding Unix milliseconds, shown with their UTC date.
const MILLISECOND_FIELDS: [&str; 4] = ["createdAt", "updatedAt", "workflowCreatedAt", "notBefore"];
/// Fields holding Unix seconds.
const SECOND_FIELDS: [&str; 2] = ["creation_time", "last_plan_upgrade_time"];

/// One field for a table cell: timestamps with their date, header maps one per line, series of
/// data points as a sparkline, anything else as compact JSON.
pub(super) fn render_value(key: &str, value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => match number.as_i64() {
            Some(ms) if MILLISECOND_FIELDS.contains(&key) => format!("{ms} ({})", utc(ms)),
            Some(s) if SECOND_FIELDS.contains(&key) && s > 0 => {
                format!("{s} ({})", utc(s.saturating_mul(1000)))
            }
            _ => number.to_string(),
        },
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        Value::Array(items) if !items.is_empty() && items.iter().all(|p| p.get("y").is_some()) => {
            let values: Vec<f64> = items.iter().filter_map(|p| p["y"].as_f64()).collect();
            summarise_series(&values)
        }
        // URL group endpoints and the like: one object a line.
        Value::Array(items) if items.iter().all(Value::is_object) => items
            .iter()
            .filter_map(Value::as_object)
            .map(|item| {
                item.iter()
                    .map(|(name, field)| format!("{name}={}", render_value(name, field)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(map) if map.values().all(Value::is_array) => map
            .iter()
            .map(|(name, values)| format!("{name}: {}", render_value("", values)))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// `▁▂█▅ (60 points, max 12, last 3)`.
pub(super) fn summarise_series(values: &[f64]) -> String {
    let max = values.iter().copied().fold(0.0_f64, f64::max);
    let last = values.last().copied().unwrap_or(0.0);
    format!(
        "{} ({} points, max {}, last {})",
        sparkline(values, SPARKLINE_WIDTH),
        values.len(),
        number(max),
        number(last)
    )
}

/// Columns a sparkline may take: 60 points fit, 240 (the `30d` period) are folded.
pub(super) const SPARKLINE_WIDTH: usize = 60;

/// A bar of block characters, one per point, scaled from zero to the largest value; longer
/// series are folded to `width` columns keeping each column's largest value, so spikes show.
pub(super) fn sparkline(values: &[f64], width: usize) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    if values.is_empty() || width == 0 {
        return String::new();
    }
    let per_column = values.len().div_ceil(width);
    let columns: Vec<f64> = values
        .chunks(per_column)
        .map(|chunk| chunk.iter().copied().fold(f64::MIN, f64::max))
        .collect();
    let max = columns.iter().copied().fold(0.0_f64, f64::max);
    columns
        .iter()
        .map(|&value| {
            if max <= 0.0 || value <= 0.0 {
                BARS[0]
            } else {
                let level = (value / max * (BARS.len() - 1) as f64).round() as usize;
                BARS[level.min(BARS.len() - 1)]
            }
        })
        .collect()
}

/// A number without a needless `.0`.
pub(super) fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.2}")
    }
}

/// Unix milliseconds as `2025-10-23 17:34:05 UTC`.
pub(super) fn utc(ms: i64) -> String {
    courier_service::time::utc_seconds(ms).unwrap_or_else(|| ms.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_from_zero_and_fold_long_series_keeping_peaks() {
        assert_eq!(sparkline(&[0.0, 1.0, 2.0, 4.0], 60), "▁▃▅█");
        assert_eq!(sparkline(&[0.0; 3], 60), "▁▁▁");
        let mut long = vec![0.0; 240];
        long[100] = 5.0;
        let folded = sparkline(&long, 60);
        assert_eq!(folded.chars().count(), 60);
        assert_eq!(folded.chars().nth(25), Some('█'));
    }

    #[test]
    fn timestamps_and_series_render_for_people() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(
            render_value("createdAt", &serde_json::json!(1_761_240_845_000_i64)),
            "1761240845000 (2025-10-23 17:34:05 UTC)"
        );
        let series = serde_json::json!([{"x": "a", "y": 1.0}, {"x": "b", "y": 3.0}]);
        assert_eq!(
            render_value("daily_used", &series),
            "▃█ (2 points, max 3, last 3)"
        );
    }
}
