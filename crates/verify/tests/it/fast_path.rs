//! The fast path against the full validator, differentially: for every operation and every
//! documented status, an answer made from the contract's own schemas, then thousands of
//! mutants of it (a member dropped or added, `null`, a value of each other type, an enum value
//! outside its set, a bound broken, a wrong content type, a missing header). Each goes through
//! `support/differential.rs`, the comparison the fuzz target `fast_verdict` makes too: the fast
//! path's verdict must be the full validator's, and decoding into the model must give the full
//! validator's report whenever it refuses.

#[path = "support/answers.rs"]
mod answers;
#[path = "support/differential.rs"]
mod differential;

use courier_verify::Contract;
use courier_verify::Decoded;
use courier_verify::contract::OperationContract;
use differential::{agree, validator};
use http::HeaderMap;
use serde_json::{Map, Value, json};

fn headers(content_type: Option<&str>) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Some(content_type) = content_type {
        headers.insert("content-type", content_type.parse().unwrap());
    }
    headers
}

/// The first operation and status whose JSON body the spec gives as the component `schema`.
fn answer_of(schema: &str) -> (&'static OperationContract, u16) {
    let reference = json!({"$ref": format!("#/$defs/{schema}")});
    Contract::courier()
        .operations
        .iter()
        .find_map(|op| {
            let response = op
                .responses
                .iter()
                .find(|r| r.content.get("application/json") == Some(&reference))?;
            Some((op, response.status.parse().ok()?))
        })
        .unwrap_or_else(|| panic!("no answer of the spec has a {schema} body"))
}

/// A value of `schema` with every property present, read from the contract alone.
fn sample(schema: &Value, defs: &Map<String, Value>) -> Value {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return sample(&defs[reference.trim_start_matches("#/$defs/")], defs);
    }
    for combinator in ["allOf", "anyOf"] {
        if let Some(members) = schema.get(combinator).and_then(Value::as_array) {
            let member = members.iter().find(|m| m != &&json!({"type": "null"}));
            return sample(member.expect("a member that is not null"), defs);
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        return allowed.iter().rfind(|v| !v.is_null()).cloned().unwrap();
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().find(|k| *k != "null").cloned(),
        other => other.cloned(),
    };
    match kind.as_ref().and_then(Value::as_str) {
        Some("object") => {
            let mut object = Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                object.insert(name.clone(), sample(property, defs));
            }
            if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                object.insert("X-Sample".into(), sample(additional, defs));
            }
            Value::Object(object)
        }
        Some("array") => json!([sample(&schema["items"], defs)]),
        Some("string") if schema.get("format") == Some(&json!("uuid")) => {
            json!("6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10")
        }
        Some("string") => json!("s".repeat(schema["minLength"].as_u64().unwrap_or(1) as usize)),
        Some("integer") => json!(schema["minimum"].as_i64().unwrap_or(7)),
        Some("number") => json!(2.5),
        Some("boolean") => json!(true),
        _ => json!({}),
    }
}

/// Every JSON pointer into `value`, the root included.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (name, member) in object {
                pointers(
                    member,
                    format!("{at}/{}", name.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// `value` with the node at `pointer` changed every way the test tries.
fn mutants(value: &Value) -> Vec<Value> {
    let mut places = Vec::new();
    pointers(value, String::new(), &mut places);
    let replacements = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(2_147_483_648i64),
        json!(18_446_744_073_709_551_615u64),
        json!(""),
        json!("not-in-any-enum"),
        json!("x".repeat(300)),
        json!([]),
        json!(["x"]),
        json!([null]),
        json!({}),
        json!({"a": 1}),
    ];
    let mut out = Vec::new();
    for place in &places {
        for replacement in &replacements {
            let mut mutant = value.clone();
            *mutant.pointer_mut(place).unwrap() = replacement.clone();
            out.push(mutant);
        }
        match value.pointer(place).unwrap() {
            Value::Object(object) => {
                for name in object.keys() {
                    let mut mutant = value.clone();
                    mutant
                        .pointer_mut(place)
                        .unwrap()
                        .as_object_mut()
                        .unwrap()
                        .remove(name);
                    out.push(mutant);
                }
                for extra in [json!(1), json!(["x"]), json!(null)] {
                    let mut mutant = value.clone();
                    let object = mutant.pointer_mut(place).unwrap().as_object_mut().unwrap();
                    object.insert("zzUnknownMember".into(), extra);
                    out.push(mutant);
                }
            }
            Value::Array(items) if !items.is_empty() => {
                let mut mutant = value.clone();
                let array = mutant.pointer_mut(place).unwrap().as_array_mut().unwrap();
                array.push(items[0].clone());
                array.push(json!(null));
                out.push(mutant);
            }
            _ => {}
        }
    }
    out
}

#[test]
fn the_fast_path_agrees_with_the_full_validator_on_every_mutant_of_every_answer() {
    let contract = Contract::courier();
    let json = headers(Some("application/json"));
    let (mut valid, mut invalid) = (0, 0);
    for op in &contract.operations {
        let undocumented = (100..600)
            .find(|status| op.response(*status).is_none())
            .expect("a status the operation does not document");
        for response in &op.responses {
            let status: u16 = response
                .status
                .parse()
                .expect("the contract's statuses are codes");
            let Some(schema) = response.content.get("application/json") else {
                // No body: an empty one keeps the contract, any other breaks it.
                assert!(agree(op, status, &HeaderMap::new(), b""));
                assert!(!agree(op, status, &json, b"{}"));
                continue;
            };
            let mut headers = json.clone();
            for header in &response.headers {
                headers.insert(
                    http::HeaderName::from_bytes(header.name.as_bytes()).unwrap(),
                    "1".parse().unwrap(),
                );
            }
            let base = sample(schema, &contract.schemas);
            let body = base.to_string();
            assert!(
                agree(op, status, &headers, body.as_bytes()),
                "{} {status}: {body}",
                op.operation_id
            );
            for mutant in mutants(&base) {
                match agree(op, status, &headers, mutant.to_string().as_bytes()) {
                    true => valid += 1,
                    false => invalid += 1,
                }
            }
            // The envelope: other content types, an undocumented status, headers missing or
            // of the wrong type, bodies that are not JSON or carry more after the value.
            for content_type in answers::CONTENT_TYPES {
                let mut other = headers.clone();
                other.remove("content-type");
                if let Some(content_type) = content_type {
                    other.insert("content-type", content_type.parse().unwrap());
                }
                agree(op, status, &other, body.as_bytes());
            }
            assert!(!agree(op, undocumented, &headers, body.as_bytes()));
            for header in &response.headers {
                let mut other = headers.clone();
                other.remove(header.name.as_str());
                agree(op, status, &other, body.as_bytes());
                other.insert(
                    http::HeaderName::from_bytes(header.name.as_bytes()).unwrap(),
                    "soon".parse().unwrap(),
                );
                agree(op, status, &other, body.as_bytes());
            }
            for broken in [&b""[..], b"{", b"nul", b"{} {}", b"[] x", b"\xff"] {
                assert!(!agree(op, status, &headers, broken));
            }
            let spaced = format!(" \n{body}\t ");
            assert!(agree(op, status, &headers, spaced.as_bytes()));
        }
    }
    // Both verdicts are met often, or the mutants would test little.
    assert!(
        valid > 500 && invalid > 5000,
        "valid {valid}, invalid {invalid}"
    );
}

/// Inputs as the fuzz targets read them (`support/answers.rs`): every operation, each of its
/// documented statuses and one it does not document, every content type, a few bodies.
#[test]
fn inputs_read_as_the_fuzz_targets_read_them_agree() {
    let contract = Contract::courier();
    let mut valid = 0;
    for (index, op) in contract.operations.iter().enumerate() {
        let documented = op
            .responses
            .iter()
            .filter_map(|r| r.status.parse::<u16>().ok());
        for status in documented.chain([599]) {
            let sample = op
                .response(status)
                .and_then(|response| response.content.get("application/json"))
                .map(|schema| sample(schema, &contract.schemas).to_string());
            let bodies = ["", "{}", "null"]
                .map(str::to_owned)
                .into_iter()
                .chain(sample);
            for body in bodies {
                for content_type in 0..answers::CONTENT_TYPES.len() {
                    let [high, low] = (status - 100).to_be_bytes();
                    let head = [u8::try_from(index).unwrap(), high, low, content_type as u8];
                    let input = [&head[..], body.as_bytes()].concat();
                    let answer = answers::read(&input).expect("an input long enough");
                    assert_eq!(
                        (answer.operation.operation_id.as_str(), answer.status),
                        (op.operation_id.as_str(), status)
                    );
                    valid += usize::from(agree(
                        answer.operation,
                        answer.status,
                        &answer.headers,
                        answer.body,
                    ));
                }
            }
        }
    }
    assert!(valid > 20, "{valid} valid answers");
}

#[test]
fn duplicate_members_escapes_and_number_forms_agree() {
    let (op, status) = answer_of("BulkDeleteResult");
    let json = headers(Some("application/json"));
    for body in [
        r#"{"deleted": 1, "deleted": "x"}"#,
        r#"{"deleted": "x", "deleted": 1}"#,
        r#"{"deleted": 1e2}"#,
        r#"{"deleted": 1.0}"#,
        r#"{"deleted": -0}"#,
        r#"{"deleted": 1, "curso\u0072": 5}"#,
        r#"{"deleted": 1, "cursor": "\u00e9t\u00e9"}"#,
        r#"{"deleted": 123456789012345678901234567890}"#,
        r#"{"deleted": 1, "\ud800": 1}"#,
        r#"{"dele\u0074ed": 1}"#,
    ] {
        agree(op, status, &json, body.as_bytes());
    }
}

/// serde_json skips a value nobody reads without checking it, where the full validator's parse
/// refuses it: the fast path parses such values whole.
#[test]
fn bytes_that_are_not_json_inside_an_unknown_member_are_refused() {
    let (op, status) = answer_of("BulkDeleteResult");
    let json = headers(Some("application/json"));
    for body in [
        &b"{\"deleted\": 1, \"cursr\": \"\xff\"}"[..],
        b"{\"deleted\": 1, \"zz\": \"\\ud800\"}",
        b"{\"deleted\": 1, \"zz\": 1e400}",
        b"{\"deleted\": 1, \"zz\": [{\"a\": \"\xc3\"}]}",
    ] {
        assert!(!agree(op, status, &json, body));
    }
}

#[test]
fn a_valid_page_decodes_once_and_equals_serde_json() {
    let (op, status) = answer_of("WorkflowDlqPage");
    let page = sample(
        &json!({"$ref": "#/$defs/WorkflowDlqPage"}),
        &Contract::courier().schemas,
    );
    let body = page.to_string();
    let decoded = validator().decode::<courier_models::WorkflowDlqPage>(
        &op.operation_id,
        status,
        &headers(Some("application/json")),
        body.as_bytes(),
    );
    let Decoded::Valid(decoded) = decoded else {
        panic!("{decoded:?}")
    };
    let plain: courier_models::WorkflowDlqPage = serde_json::from_str(&body).unwrap();
    assert_eq!(decoded, plain);
}
