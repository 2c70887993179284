//! The two forms of a [`Report`]: JSON for tools and CI, text for a reviewer.

use super::{CRATES, Class, Impact, Report};
use serde_json::{Map, Value, json};

fn classes(impact: Impact, into: &mut Map<String, Value>) {
    for (name, class) in impact.by_crate() {
        into.insert(name.to_owned(), Value::from(class.as_str()));
    }
}

/// `{"crates": {crate: class}, "changes": [{"pointer", "what", crate: class, ...}]}`.
pub fn to_json(report: &Report) -> Value {
    let mut crates = Map::new();
    classes(report.crates(), &mut crates);
    let changes: Vec<Value> = report
        .changes
        .iter()
        .map(|change| {
            let mut entry = Map::new();
            entry.insert("pointer".into(), Value::from(change.pointer.clone()));
            entry.insert("what".into(), Value::from(change.what.clone()));
            classes(change.impact, &mut entry);
            Value::Object(entry)
        })
        .collect();
    json!({"crates": crates, "changes": changes})
}

/// Reads the JSON form back (the CHANGELOG and version tooling take it as input).
pub fn from_json(value: &Value) -> Option<Report> {
    let class = |v: &Value, name: &str| v.get(name).and_then(Value::as_str).and_then(Class::parse);
    let changes = value
        .get("changes")?
        .as_array()?
        .iter()
        .map(|c| {
            Some(super::Change {
                pointer: c.get("pointer")?.as_str()?.to_owned(),
                what: c.get("what")?.as_str()?.to_owned(),
                impact: Impact::new(
                    class(c, CRATES[0])?,
                    class(c, CRATES[1])?,
                    class(c, CRATES[2])?,
                ),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Report { changes })
}

fn short(class: Class) -> &'static str {
    match class {
        Class::None => "-",
        Class::Additive => "additive",
        Class::Breaking => "BREAKING",
    }
}

/// A summary line per crate, then one line a change, worst first:
/// `BREAKING  models BREAKING  client BREAKING  server -         what  (pointer)`.
pub fn to_text(report: &Report) -> String {
    let mut out = String::new();
    for (name, class) in report.crates().by_crate() {
        out.push_str(&format!("{name}: {}\n", class.as_str()));
    }
    if report.changes.is_empty() {
        out.push_str("no changes to the spec\n");
        return out;
    }
    out.push('\n');
    for change in &report.changes {
        let i = change.impact;
        out.push_str(&format!(
            "{:<8}  models {:<8}  client {:<8}  server {:<8}  {}  ({})\n",
            short(i.worst()),
            short(i.models),
            short(i.client),
            short(i.server),
            change.what,
            change.pointer
        ));
    }
    out
}
