//! JSON helpers for instances and payloads, driven by a model's JSON Schema: which properties
//! an instance leaves unset, which keys of a payload the model does not know, where two
//! documents first differ, and the time format of data points
//! (`docs/decisions.md#d8-data-point-time`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

/// The target of a local `$ref` (`#/$defs/X`) within a model's JSON Schema `root`.
pub fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// The schema that a (possibly `$ref`, possibly nullable) model schema describes.
fn concrete<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..32 {
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve_ref(root, r))
        {
            schema = target;
            continue;
        }
        let alternatives = schema.get("anyOf").or_else(|| schema.get("oneOf"));
        let non_null: Vec<&Value> = alternatives
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter(|s| s.get("type") != Some(&"null".into()))
                    .collect()
            })
            .unwrap_or_default();
        match non_null.as_slice() {
            [one] if alternatives.is_some_and(|a| a.as_array().is_some_and(|a| a.len() == 2)) => {
                schema = one
            }
            _ => return schema,
        }
    }
    schema
}

/// Paths of `instance` that a fully populated instance of `schema` would fill: absent or null
/// properties, empty arrays and empty maps, at any depth.
pub fn unpopulated(instance: &Value, root: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_unpopulated("$", instance, root, root, &mut out);
    out
}

fn walk_unpopulated(
    path: &str,
    value: &Value,
    root: &Value,
    schema: &Value,
    out: &mut Vec<String>,
) {
    let schema = concrete(root, schema);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            let child = format!("{path}.{name}");
            match value.get(name) {
                None | Some(Value::Null) => out.push(child),
                Some(v) => walk_unpopulated(&child, v, root, prop, out),
            }
        }
    }
    if let (Some(values), Some(map)) = (
        schema.get("additionalProperties").filter(|a| a.is_object()),
        value.as_object(),
    ) {
        if map.is_empty() {
            out.push(format!("{path}{{}}"));
        }
        for (key, v) in map {
            walk_unpopulated(&format!("{path}[{key:?}]"), v, root, values, out);
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        if array.is_empty() {
            out.push(format!("{path}[]"));
        }
        for (i, v) in array.iter().enumerate() {
            walk_unpopulated(&format!("{path}[{i}]"), v, root, items, out);
        }
    }
}

/// `payload` without the object keys `schema` does not describe, and the paths removed.
pub fn strip_unknown(payload: &Value, root: &Value) -> (Value, Vec<String>) {
    let mut removed = Vec::new();
    let stripped = walk_strip("$", payload, root, root, &mut removed);
    (stripped, removed)
}

fn walk_strip(
    path: &str,
    value: &Value,
    root: &Value,
    schema: &Value,
    removed: &mut Vec<String>,
) -> Value {
    let schema = concrete(root, schema);
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let values = schema.get("additionalProperties").filter(|a| a.is_object());
            let mut out = serde_json::Map::new();
            for (key, v) in map {
                let child = format!("{path}.{key}");
                if let Some(prop) = props.and_then(|p| p.get(key)) {
                    out.insert(key.clone(), walk_strip(&child, v, root, prop, removed));
                } else if let Some(values) = values {
                    out.insert(key.clone(), walk_strip(&child, v, root, values, removed));
                } else {
                    removed.push(child);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        walk_strip(&format!("{path}[{i}]"), v, root, item_schema, removed)
                    })
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// Where `expected` and `actual` first differ, or `None`. Numbers are equal when they denote
/// the same value (`12` and `12.0`), so an integral `y` read into an `f64` is not a loss.
pub fn first_difference(expected: &Value, actual: &Value) -> Option<String> {
    diff("$", expected, actual)
}

fn diff(path: &str, expected: &Value, actual: &Value) -> Option<String> {
    match (expected, actual) {
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            (!same).then(|| format!("{path}: expected {a}, got {b}"))
        }
        (Value::Object(a), Value::Object(b)) => {
            for (key, v) in a {
                match b.get(key) {
                    None => return Some(format!("{path}.{key}: missing, expected {v}")),
                    Some(w) => {
                        if let Some(d) = diff(&format!("{path}.{key}"), v, w) {
                            return Some(d);
                        }
                    }
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("{path}.{k}: unexpected, got {}", b[k]))
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!(
                    "{path}: expected {} items, got {}",
                    a.len(),
                    b.len()
                ));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (v, w))| diff(&format!("{path}[{i}]"), v, w))
        }
        (a, b) => (a != b).then(|| format!("{path}: expected {a}, got {b}")),
    }
}

/// Calls `visit` with every object of `value` (itself included) and its path, each object
/// before the objects inside it.
pub fn for_each_object(value: &Value, visit: &mut dyn FnMut(&str, &Map<String, Value>)) {
    fn walk(path: &str, value: &Value, visit: &mut dyn FnMut(&str, &Map<String, Value>)) {
        match value {
            Value::Object(map) => {
                visit(path, map);
                for (key, child) in map {
                    walk(&format!("{path}.{key}"), child, visit);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(&format!("{path}[{i}]"), child, visit);
                }
            }
            _ => {}
        }
    }
    walk("$", value, visit);
}

/// Every string held under a key matching `pred`, with its path.
pub fn strings_under(value: &Value, pred: &dyn Fn(&str) -> bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for_each_object(value, &mut |path, map| {
        for (key, v) in map {
            if let (true, Some(s)) = (pred(key), v.as_str()) {
                out.push((format!("{path}.{key}"), s.to_owned()));
            }
        }
    });
    out
}

/// The fields named `…Base64` that do not hold base64 of bytes that are not UTF-8 (a body that
/// is text travels in the other form), each with what is wrong.
pub fn base64_problems(value: &Value) -> Vec<String> {
    strings_under(value, &|key| key.ends_with("Base64"))
        .into_iter()
        .filter_map(|(path, encoded)| match STANDARD.decode(&encoded) {
            Err(e) => Some(format!("{path} is not base64: {e}")),
            Ok(bytes) if std::str::from_utf8(&bytes).is_ok() => {
                Some(format!("{path} should hold a body that is not UTF-8"))
            }
            Ok(_) => None,
        })
        .collect()
}

/// Every string of a document, at any depth (object keys excluded).
pub fn all_strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(all_strings).collect(),
        Value::Object(map) => map.values().flat_map(all_strings).collect(),
        _ => Vec::new(),
    }
}

/// The `x` of every data point (an object with `x` and `y`), with its path.
pub fn data_point_times(value: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for_each_object(value, &mut |path, map| {
        if let (Some(x), true) = (map.get("x").and_then(Value::as_str), map.contains_key("y")) {
            out.push((format!("{path}.x"), x.to_owned()));
        }
    });
    out
}

/// Whether `s` is a data point time of `docs/decisions.md#d8-data-point-time`: `YYYY-MM-DD
/// HH:MM:SS.f +0000 UTC` with 3 to 9 fractional digits (milliseconds, or the hosted service's
/// nanoseconds).
pub fn is_data_point_time(s: &str) -> bool {
    let Some(stamp) = s.strip_suffix(" +0000 UTC") else {
        return false;
    };
    let Some((date_time, fraction)) = stamp.split_once('.') else {
        return false;
    };
    let digits = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_digit());
    let Some((date, time)) = date_time.split_once(' ') else {
        return false;
    };
    let date: Vec<&str> = date.split('-').collect();
    let time: Vec<&str> = time.split(':').collect();
    let in_range = |t: &str, max: u32| t.parse::<u32>().is_ok_and(|v| v <= max);
    matches!(date.as_slice(), [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2)
        && in_range(m, 12) && in_range(d, 31) && *m != "00" && *d != "00")
        && matches!(time.as_slice(), [h, mi, se] if digits(h, 2) && digits(mi, 2) && digits(se, 2)
            && in_range(h, 23) && in_range(mi, 59) && in_range(se, 60))
        && (3..=9).contains(&fraction.len())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// The body of an insta `.snap` file: what follows its metadata header.
pub fn snapshot_body(snap: &str) -> Option<&str> {
    let rest = snap.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(&rest[end + "\n---\n".len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "m": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "null"}]},
                "l": {"type": "array", "items": {"$ref": "#/$defs/P"}}
            },
            "$defs": {
                "M": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
                "P": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "number"}}}
            }
        })
    }

    #[test]
    fn unpopulated_finds_gaps_at_every_depth() {
        let s = schema();
        let full = json!({"a": "é", "m": {"k": ["v"]}, "l": [{"x": "t", "y": 1}]});
        assert!(unpopulated(&full, &s).is_empty());
        let gaps = json!({"a": null, "m": {}, "l": [{"x": "t"}]});
        assert_eq!(unpopulated(&gaps, &s), ["$.a", "$.l[0].y", "$.m{}"]);
    }

    #[test]
    fn strip_unknown_keeps_map_keys_and_drops_unknown_fields() {
        let s = schema();
        let payload = json!({"a": "x", "zz": 1, "m": {"any-header": ["v"]}, "l": [{"x": "t", "y": 1, "extra": true}]});
        let (stripped, removed) = strip_unknown(&payload, &s);
        assert_eq!(removed, ["$.l[0].extra", "$.zz"]);
        assert_eq!(
            stripped,
            json!({"a": "x", "m": {"any-header": ["v"]}, "l": [{"x": "t", "y": 1}]})
        );
    }

    #[test]
    fn differences_are_located_and_numbers_compare_by_value() {
        assert_eq!(
            first_difference(&json!({"y": 12}), &json!({"y": 12.0})),
            None
        );
        assert_eq!(
            first_difference(
                &json!({"a": [1, {"b": "x"}]}),
                &json!({"a": [1, {"b": "y"}]})
            )
            .unwrap(),
            "$.a[1].b: expected \"x\", got \"y\""
        );
        assert!(
            first_difference(&json!({"a": 1}), &json!({}))
                .unwrap()
                .contains("$.a: missing")
        );
        assert!(
            first_difference(&json!({}), &json!({"b": 1}))
                .unwrap()
                .contains("$.b: unexpected")
        );
    }

    #[test]
    fn data_point_time_format() {
        assert!(is_data_point_time("2025-10-23 17:34:00.000 +0000 UTC"));
        assert!(is_data_point_time(
            "2025-10-01 11:33:05.585757103 +0000 UTC"
        ));
        assert!(!is_data_point_time("2025-10-23 17:34:00 +0000 UTC"));
        assert!(!is_data_point_time("2025-10-23T17:34:00.000Z"));
        assert!(!is_data_point_time("2025-13-23 17:34:00.000 +0000 UTC"));
        assert!(!is_data_point_time(
            "2025-10-23 17:34:00.0000000000 +0000 UTC"
        ));
    }

    #[test]
    fn base64_fields_must_hold_bytes_that_are_not_utf8() {
        let value = json!({
            "bodyBase64": "gP8=",
            "items": [{"responseBodyBase64": "aGk="}, {"bodyBase64": "not base64!"}],
            "body": "aGk="
        });
        let problems = base64_problems(&value);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(
            problems[0],
            "$.items[0].responseBodyBase64 should hold a body that is not UTF-8"
        );
        assert!(
            problems[1].starts_with("$.items[1].bodyBase64 is not base64: "),
            "{problems:?}"
        );
    }

    #[test]
    fn snapshot_body_skips_the_header() {
        let snap = "---\nsource: x.rs\nexpression: v\n---\n{\n  \"a\": 1\n}\n";
        assert_eq!(snapshot_body(snap), Some("{\n  \"a\": 1\n}\n"));
        assert_eq!(snapshot_body("no header"), None);
    }
}
