//! Parsing the interface document (the file `COURIER_INTERFACE_MD` names): the field lists of part
//! 2, the operations and parameters of part 4, the failure function states of part 3 and the error
//! table of part 7.
//!
//! Nothing of the document is copied into the tests: they parse it every run, so a field added
//! to the interface is checked against the spec without touching this crate. Part 2 states its
//! fields in three forms, all read here:
//!
//! - tables with `Field` and `Type` columns (2.1, 2.3, 2.5, 2.8, 2.9), optionally `Required`,
//!   and a `Meaning` of the form "Each item has name (string) and url (string)";
//! - prose `name (type, remarks)` lists ("Fields present: ...", "Object with ...",
//!   "failureCallbackInfo fields: ..." for a nested object, "there are also ..." for a shape that
//!   extends the previous one);
//! - prose grouped by type ("Integers: a, b (bytes), c. Number: d.").

use std::collections::BTreeSet;

/// Everything the conformance tests take from the interface document, as one value. It is
/// committed as `interface-facts.json`, so the tests stand on the repository alone; where the
/// document is present, a test checks that the committed facts are still what it says.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InterfaceFacts {
    /// Part 2: the field lists of every shape.
    pub shapes: Vec<ShapeSection>,
    /// Part 4: every operation with its parameters.
    pub operations: Vec<OperationDoc>,
    /// Part 7: the error table.
    pub errors: Vec<ErrorDoc>,
    /// Part 3: the failure function states.
    pub states: BTreeSet<String>,
}

impl InterfaceFacts {
    /// Reads every fact from the interface document.
    pub fn parse(md: &str) -> Result<InterfaceFacts, String> {
        Ok(InterfaceFacts {
            shapes: parse_shapes(md)?,
            operations: parse_operations(md)?,
            errors: parse_errors(md)?,
            states: parse_states(md)?,
        })
    }

    /// The committed facts, as `interface-facts.json` holds them.
    pub fn from_json(text: &str) -> Result<InterfaceFacts, String> {
        serde_json::from_str(text).map_err(|e| format!("interface-facts.json does not parse: {e}"))
    }

    /// The committed form: pretty JSON with a trailing newline, stable for diffs.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("facts serialise");
        text.push('\n');
        text
    }
}

/// A field the interface lists.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Field {
    /// Wire name.
    pub name: String,
    /// The type as the interface writes it (`int64`, `array of data point`, ...).
    pub ty: String,
    /// `Some(true)` when the interface says the field is required.
    pub required: Option<bool>,
    /// Fields of the array items ("Each item has name (string) and url (string)").
    pub items: Vec<Field>,
}

/// One list of fields: a shape, or a nested object of the shape before it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FieldGroup {
    /// For a nested object ("failureCallbackInfo fields: ..."), the property of the section's
    /// shape that holds it.
    pub via: Option<String>,
    /// The fields, in document order.
    pub fields: Vec<Field>,
}

/// A section of part 2.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShapeSection {
    /// `2.1` etc.
    pub number: String,
    /// Heading text after the number.
    pub title: String,
    /// The field lists, in document order.
    pub groups: Vec<FieldGroup>,
}

/// An operation of part 4.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OperationDoc {
    /// `4.1` etc.
    pub number: String,
    /// Heading text after the number.
    pub title: String,
    /// Upper-case method.
    pub method: String,
    /// Path template.
    pub path: String,
    /// Query parameters of the section's table: name and type cell.
    pub table_params: Vec<(String, String)>,
    /// Whether the section says its query parameters are all optional.
    pub all_optional: bool,
    /// Parameters named in prose ("Path parameter dlqId", "query parameter period"): location
    /// and name.
    pub prose_params: Vec<(String, String)>,
}

/// A row of the part 7 error table.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorDoc {
    /// Section number of the operation (`4.1`).
    pub operation: String,
    /// Status code.
    pub status: String,
    /// Condition text.
    pub condition: String,
}

mod markdown;

pub use markdown::{Table, named_fields, part, sections, tables};
use markdown::{is_identifier, prose_groups, push_group, typed_tables};

/// The sections of part 2 with their field lists.
pub fn parse_shapes(md: &str) -> Result<Vec<ShapeSection>, String> {
    let part2 = part(md, 2).ok_or("the interface has no part 2 (`## 2.`)")?;
    let mut out = Vec::new();
    for (number, title, body) in sections(&part2) {
        let mut groups = Vec::new();
        for (table, name_col, type_col) in typed_tables(&body, "Field") {
            let required_col = table.column(&["Required"]);
            let meaning_col = table.column(&["Meaning"]);
            let mut fields = Vec::new();
            for row in &table.rows {
                let cell = |i: usize| row.get(i).map(String::as_str).unwrap_or("");
                let meaning = meaning_col.map(cell).unwrap_or("");
                let items = match meaning.split_once("item has ") {
                    Some((_, list)) => named_fields(list),
                    None => Vec::new(),
                };
                fields.push(Field {
                    name: cell(name_col).to_owned(),
                    ty: cell(type_col).to_owned(),
                    required: required_col.map(|c| cell(c).eq_ignore_ascii_case("yes")),
                    items,
                });
            }
            push_group(&mut groups, None, fields);
        }
        let prose: String = body
            .lines()
            .filter(|l| !l.trim_start().starts_with('|'))
            .collect::<Vec<_>>()
            .join("\n");
        prose_groups(&prose, &mut groups);
        out.push(ShapeSection {
            number,
            title,
            groups,
        });
    }
    if out.is_empty() {
        return Err("part 2 of the interface has no sections".into());
    }
    Ok(out)
}

/// The operations of part 4.
pub fn parse_operations(md: &str) -> Result<Vec<OperationDoc>, String> {
    let part4 = part(md, 4).ok_or("the interface has no part 4 (`## 4.`)")?;
    let mut out = Vec::new();
    for (number, title, body) in sections(&part4) {
        let words: Vec<&str> = body.split_whitespace().collect();
        let endpoint = words.windows(2).find_map(|w| {
            let method = w[0];
            let is_method =
                ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].contains(&method);
            (is_method && w[1].starts_with('/')).then(|| {
                (
                    method.to_owned(),
                    w[1].trim_end_matches([';', '.', ',']).to_owned(),
                )
            })
        });
        let Some((method, path)) = endpoint else {
            return Err(format!("section {number} {title}: no `METHOD /path` found"));
        };
        let mut table_params = Vec::new();
        for (table, name_col, type_col) in typed_tables(&body, "Name") {
            for row in &table.rows {
                let ty = row.get(type_col).cloned().unwrap_or_default();
                for name in row
                    .get(name_col)
                    .map(String::as_str)
                    .unwrap_or("")
                    .split(',')
                {
                    let name = name.trim();
                    if !name.is_empty() {
                        table_params.push((name.to_owned(), ty.clone()));
                    }
                }
            }
        }
        let mut prose_params = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let location = w.to_ascii_lowercase();
            if (location == "path" || location == "query")
                && words.get(i + 1) == Some(&"parameter")
                && let Some(name) = words.get(i + 2)
            {
                let name = name.trim_end_matches([';', '.', ',', ':']);
                if is_identifier(name) {
                    prose_params.push((location, name.to_owned()));
                }
            }
        }
        out.push(OperationDoc {
            number,
            title,
            method,
            path,
            table_params,
            all_optional: body.contains("all optional"),
            prose_params,
        });
    }
    Ok(out)
}

/// The rows of the part 7 error table.
pub fn parse_errors(md: &str) -> Result<Vec<ErrorDoc>, String> {
    let part7 = part(md, 7).ok_or("the interface has no part 7 (`## 7.`)")?;
    let table = tables(&part7)
        .into_iter()
        .find(|t| t.column(&["Status"]).is_some() && t.column(&["Operation"]).is_some())
        .ok_or("part 7 has no table with Operation and Status columns")?;
    let op = table.column(&["Operation"]).unwrap_or(0);
    let status = table.column(&["Status"]).unwrap_or(1);
    let condition = table.column(&["Condition"]);
    Ok(table
        .rows
        .iter()
        .map(|row| ErrorDoc {
            operation: row[op].split_whitespace().next().unwrap_or("").to_owned(),
            status: row.get(status).cloned().unwrap_or_default(),
            condition: condition
                .and_then(|c| row.get(c))
                .cloned()
                .unwrap_or_default(),
        })
        .collect())
}

/// The failure function states of the part 3 table (`State` column).
pub fn parse_states(md: &str) -> Result<BTreeSet<String>, String> {
    let part3 = part(md, 3).ok_or("the interface has no part 3 (`## 3.`)")?;
    let table = tables(&part3)
        .into_iter()
        .find(|t| t.column(&["State"]).is_some())
        .ok_or("part 3 has no table with a State column")?;
    let col = table.column(&["State"]).unwrap_or(0);
    Ok(table
        .rows
        .iter()
        .filter_map(|r| r.get(col).cloned())
        .collect())
}

/// A type as the interface writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum InterfaceType {
    /// `string`, `string (uuid)`.
    String {
        /// The parenthesised format.
        format: Option<String>,
    },
    /// `integer`.
    Integer,
    /// `int64`, `Unix ms`.
    Int64,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
    /// `enum: a, b, c (remarks)`.
    Enum(Vec<String>),
    /// `array of X`.
    Array(Box<InterfaceType>),
    /// `object`, `data point`, `named series`, `object: string to X`, `X (with a, b)`.
    Object {
        /// For `object: string to X`, the value type.
        values: Option<Box<InterfaceType>>,
        /// Properties the object is said to have (`(with a, b)`).
        with: Vec<String>,
    },
}

impl InterfaceType {
    /// Parses an interface type text.
    pub fn parse(text: &str) -> Result<InterfaceType, String> {
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        if lower.starts_with("enum:") {
            let values = t["enum:".len()..].split('(').next().unwrap_or("");
            return Ok(InterfaceType::Enum(
                values
                    .split(',')
                    .map(|v| v.trim().to_owned())
                    .filter(|v| !v.is_empty())
                    .collect(),
            ));
        }
        if let Some(rest) = lower.strip_prefix("array of ") {
            return Ok(InterfaceType::Array(Box::new(InterfaceType::parse(rest)?)));
        }
        if let Some(rest) = lower.strip_prefix("object: string to ") {
            return Ok(InterfaceType::Object {
                values: Some(Box::new(InterfaceType::parse(rest)?)),
                with: Vec::new(),
            });
        }
        let (head, paren) = match lower.split_once('(') {
            Some((head, paren)) => (head.trim(), Some(paren.trim_end_matches(')').trim())),
            None => (lower.as_str(), None),
        };
        Ok(match head {
            "string" => InterfaceType::String {
                format: paren.map(str::to_owned),
            },
            "integer" => InterfaceType::Integer,
            "int64" | "unix ms" => InterfaceType::Int64,
            "number" => InterfaceType::Number,
            "boolean" => InterfaceType::Boolean,
            "object" | "data point" | "named series" => InterfaceType::Object {
                values: None,
                with: paren
                    .and_then(|p| p.strip_prefix("with "))
                    .map(|p| p.split(',').map(|w| w.trim().to_owned()).collect())
                    .unwrap_or_default(),
            },
            _ => return Err(format!("unrecognised interface type `{t}`")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# T\n\n## 2. Shapes\n\n### 2.1 Thing (Thing)\n\n| Field | Type | Required | Meaning |\n|---|---|---|---|\n| a | int64 | yes | A |\n| b | array of object | no | Each item has n (string) and u (string) |\n\n### 2.2 Other\n\nFields present: p (string, if set), q (Unix ms, earliest), info (object).\n\ninfo fields: s (string, one of x, y).\n\nAlso returned: a body. Names: not shown.\n\n### 2.3 Point\n\nObject with x (string, a time, with zone) and y (number). There are also w (number). A series (used in z) is an object with id (string) and pts (array of data point).\n\n### 2.4 Stats\n\nIntegers: c1, c2 (bytes). Number: cost. Arrays of data point: s1, s2 (p99).\n\n### 2.5 Err\n\nObject with required field error (string, message).\n\n## 3. Next\n";

    #[test]
    fn every_form_of_part_2_is_read() {
        let shapes = parse_shapes(SAMPLE).unwrap();
        let numbers: Vec<&str> = shapes.iter().map(|s| s.number.as_str()).collect();
        assert_eq!(numbers, ["2.1", "2.2", "2.3", "2.4", "2.5"]);
        let names = |s: usize, g: usize| -> Vec<(String, String)> {
            shapes[s].groups[g]
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.ty.clone()))
                .collect()
        };
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(shapes[0].groups[0].fields[0].required, Some(true));
        assert_eq!(shapes[0].groups[0].fields[1].required, Some(false));
        assert_eq!(shapes[0].groups[0].fields[1].items.len(), 2);
        assert_eq!(
            names(1, 0),
            pairs(&[("p", "string"), ("q", "Unix ms"), ("info", "object")])
        );
        assert_eq!(shapes[1].groups[1].via.as_deref(), Some("info"));
        assert_eq!(names(1, 1), pairs(&[("s", "string")]));
        assert_eq!(shapes[1].groups.len(), 2);
        assert_eq!(names(2, 0), pairs(&[("x", "string"), ("y", "number")]));
        assert_eq!(
            names(2, 1),
            pairs(&[("x", "string"), ("y", "number"), ("w", "number")])
        );
        assert_eq!(
            names(2, 2),
            pairs(&[("id", "string"), ("pts", "array of data point")])
        );
        assert_eq!(
            names(3, 0),
            pairs(&[
                ("c1", "integer"),
                ("c2", "integer"),
                ("cost", "number"),
                ("s1", "array of data point"),
                ("s2", "array of data point")
            ])
        );
        assert_eq!(shapes[4].groups[0].fields[0].required, Some(true));
        assert_eq!(names(4, 0), pairs(&[("error", "string")]));
    }

    #[test]
    fn interface_types_parse() {
        assert_eq!(
            InterfaceType::parse("enum: paid, svc_x (empty string when none)").unwrap(),
            InterfaceType::Enum(vec!["paid".into(), "svc_x".into()])
        );
        assert_eq!(
            InterfaceType::parse("string (uuid)").unwrap(),
            InterfaceType::String {
                format: Some("uuid".into())
            }
        );
        assert_eq!(
            InterfaceType::parse("array of data point (with a, b)").unwrap(),
            InterfaceType::Array(Box::new(InterfaceType::Object {
                values: None,
                with: vec!["a".into(), "b".into()]
            }))
        );
        assert_eq!(
            InterfaceType::parse("object: string to array of string").unwrap(),
            InterfaceType::Object {
                values: Some(Box::new(InterfaceType::Array(Box::new(
                    InterfaceType::String { format: None }
                )))),
                with: vec![]
            }
        );
        assert!(InterfaceType::parse("a mystery").is_err());
    }

    #[test]
    fn operations_and_errors_are_read() {
        let md = "## 4. Endpoints\n\n### 4.1 List\n\n- GET /v2/things\n- Query parameters (all optional):\n\n| Name | Type | Meaning |\n|---|---|---|\n| from, to | int64 | range |\n\n### 4.2 One\n\n- GET /v2/things/{id}; path parameter id (string). Query parameter period (optional).\n\n## 7. Errors\n\n| Operation | Status | Condition |\n|---|---|---|\n| 4.2 one | 404 | gone |\n";
        let ops = parse_operations(md).unwrap();
        assert_eq!(ops.len(), 2);
        assert_eq!(
            (ops[0].method.as_str(), ops[0].path.as_str()),
            ("GET", "/v2/things")
        );
        assert!(ops[0].all_optional);
        assert_eq!(
            ops[0].table_params,
            vec![
                ("from".into(), "int64".into()),
                ("to".into(), "int64".into())
            ]
        );
        assert_eq!(ops[1].path, "/v2/things/{id}");
        assert_eq!(
            ops[1].prose_params,
            vec![
                ("path".into(), "id".into()),
                ("query".into(), "period".into())
            ]
        );
        let errors = parse_errors(md).unwrap();
        assert_eq!(
            errors,
            vec![ErrorDoc {
                operation: "4.2".into(),
                status: "404".into(),
                condition: "gone".into()
            }]
        );
    }
}
