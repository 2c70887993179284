//! The fast path against the full validator, differentially: for every operation and every
//! documented status, an answer made from the contract's own schemas, then thousands of
//! mutants of it (a member dropped or added, `null`, a value of each other type, an enum value
//! outside its set, a bound broken, a wrong content type, a missing header). On each, the fast
//! path's verdict must be the full validator's, and decoding into the model must give the full
//! validator's report whenever it refuses.
//!
//! One kind of body is let off the equality: an object that repeats a member name. The full
//! validator reads the last value (a `serde_json::Value` keeps it), the fast path checks every
//! one, so an earlier bad one sends the answer to the full validator, which passes it. The fast
//! path's pass must still never be wrong there.

use courier_verify::{Contract, Decoded, Validator};
use http::HeaderMap;
use serde::de::{DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

fn courier() -> &'static Validator {
    static VALIDATOR: std::sync::OnceLock<Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| Validator::courier().unwrap())
}

fn headers(content_type: Option<&str>) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Some(content_type) = content_type {
        headers.insert("content-type", content_type.parse().unwrap());
    }
    headers
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

/// The model a component schema decodes into, as the client decodes it.
type Typed =
    fn(&Validator, &str, u16, &HeaderMap, &[u8]) -> Result<bool, Vec<courier_verify::Violation>>;

fn typed<T: DeserializeOwned>(
    validator: &Validator,
    operation_id: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<bool, Vec<courier_verify::Violation>> {
    match validator.decode::<T>(operation_id, status, headers, body) {
        Decoded::Valid(_) => Ok(true),
        Decoded::Undecodable(_) => Ok(false),
        Decoded::Invalid(violations) => Err(violations),
    }
}

fn model(schema_name: &str) -> Typed {
    use courier_models as m;
    match schema_name {
        "WorkflowDlqPage" => typed::<m::WorkflowDlqPage>,
        "FailedWorkflowRun" => typed::<m::FailedWorkflowRun>,
        "BulkDeleteResult" => typed::<m::BulkDeleteResult>,
        "BulkCancelResult" => typed::<m::BulkCancelResult>,
        "UrlGroup" => typed::<m::UrlGroup>,
        "SearchIndex" => typed::<m::SearchIndex>,
        "SearchIndexStats" => typed::<m::SearchIndexStats>,
        "AccountStats" => typed::<m::AccountStats>,
        "MessagingAccount" => typed::<m::MessagingAccount>,
        "ErrorBody" => typed::<m::ErrorBody>,
        other => panic!("no model named for the body schema {other}: add it here"),
    }
}

/// Whether some object of a JSON text repeats a member name (`false` for text that is not JSON).
fn repeats_a_name(body: &[u8]) -> bool {
    struct Repeats(bool);
    impl<'de> serde::Deserialize<'de> for Repeats {
        fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Repeats, D::Error> {
            de.deserialize_any(Repeats(false))
        }
    }
    impl<'de> Visitor<'de> for Repeats {
        type Value = Repeats;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_str<E>(self, _: &str) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_unit<E>(self) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Repeats, A::Error> {
            let mut repeats = false;
            while let Some(Repeats(inner)) = seq.next_element()? {
                repeats |= inner;
            }
            Ok(Repeats(repeats))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Repeats, A::Error> {
            let (mut repeats, mut names) = (false, HashSet::new());
            while let Some(name) = map.next_key::<String>()? {
                repeats |= !names.insert(name);
                repeats |= map.next_value::<Repeats>()?.0;
            }
            Ok(Repeats(repeats))
        }
    }
    serde_json::from_slice::<Repeats>(body).is_ok_and(|Repeats(repeats)| repeats)
}

/// One answer through the three paths; returns whether it was valid.
fn agree(op: &str, status: u16, headers: &HeaderMap, body: &[u8], model: Option<Typed>) -> bool {
    let validator = courier();
    let full = validator.validate(op, status, headers, body);
    let fast = validator.passes_fast(op, status, headers, body);
    let shown = || String::from_utf8_lossy(body).into_owned();
    if repeats_a_name(body) {
        assert!(
            !fast || full.is_empty(),
            "{op} {status}: {}\n{full:#?}",
            shown()
        );
    } else {
        assert_eq!(
            fast,
            full.is_empty(),
            "{op} {status}: {}\n{full:#?}",
            shown()
        );
    }
    if let Some(model) = model {
        match model(validator, op, status, headers, body) {
            Ok(_) => assert!(full.is_empty(), "{op} {status} passed typed: {}", shown()),
            Err(report) => assert_eq!(report, full, "{op} {status}: {}", shown()),
        }
    }
    full.is_empty()
}

#[test]
fn the_fast_path_agrees_with_the_full_validator_on_every_mutant_of_every_answer() {
    let contract = Contract::courier();
    let json = headers(Some("application/json"));
    let (mut valid, mut invalid) = (0, 0);
    for op in &contract.operations {
        for response in &op.responses {
            let status: u16 = response
                .status
                .parse()
                .expect("the contract's statuses are codes");
            let Some(schema) = response.content.get("application/json") else {
                // No body: an empty one keeps the contract, any other breaks it.
                assert!(agree(
                    &op.operation_id,
                    status,
                    &HeaderMap::new(),
                    b"",
                    None
                ));
                assert!(!agree(&op.operation_id, status, &json, b"{}", None));
                continue;
            };
            let name = schema["$ref"]
                .as_str()
                .unwrap()
                .trim_start_matches("#/$defs/");
            let model = Some(model(name));
            let mut headers = json.clone();
            for header in &response.headers {
                headers.insert(
                    http::HeaderName::from_bytes(header.name.as_bytes()).unwrap(),
                    "1".parse().unwrap(),
                );
            }
            let base = sample(schema, &contract.schemas);
            let body = base.to_string();
            let op = op.operation_id.as_str();
            assert!(
                agree(op, status, &headers, body.as_bytes(), model),
                "{op} {status}: {body}"
            );
            for mutant in mutants(&base) {
                match agree(op, status, &headers, mutant.to_string().as_bytes(), model) {
                    true => valid += 1,
                    false => invalid += 1,
                }
            }
            // The envelope: other content types, an undocumented status, headers missing or
            // of the wrong type, bodies that are not JSON or carry more after the value.
            for content_type in [
                None,
                Some("text/plain"),
                Some("application/json; charset=utf-8"),
            ] {
                let mut other = headers.clone();
                other.remove("content-type");
                if let Some(content_type) = content_type {
                    other.insert("content-type", content_type.parse().unwrap());
                }
                agree(op, status, &other, body.as_bytes(), model);
            }
            agree(op, 418, &headers, body.as_bytes(), None);
            for header in &response.headers {
                let mut other = headers.clone();
                other.remove(header.name.as_str());
                agree(op, status, &other, body.as_bytes(), model);
                other.insert(
                    http::HeaderName::from_bytes(header.name.as_bytes()).unwrap(),
                    "soon".parse().unwrap(),
                );
                agree(op, status, &other, body.as_bytes(), model);
            }
            for broken in [&b""[..], b"{", b"nul", b"{} {}", b"[] x", b"\xff"] {
                assert!(!agree(op, status, &headers, broken, model));
            }
            let spaced = format!(" \n{body}\t ");
            assert!(agree(op, status, &headers, spaced.as_bytes(), model));
        }
    }
    // Both verdicts are met often, or the mutants would test little.
    assert!(
        valid > 500 && invalid > 5000,
        "valid {valid}, invalid {invalid}"
    );
}

#[test]
fn duplicate_members_escapes_and_number_forms_agree() {
    let json = headers(Some("application/json"));
    let model = Some(model("BulkDeleteResult"));
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
        agree("deleteWorkflowDlqBulk", 200, &json, body.as_bytes(), model);
    }
}

/// serde_json skips a value nobody reads without checking it, where the full validator's parse
/// refuses it: the fast path parses such values whole.
#[test]
fn bytes_that_are_not_json_inside_an_unknown_member_are_refused() {
    let json = headers(Some("application/json"));
    let model = Some(model("BulkDeleteResult"));
    for body in [
        &b"{\"deleted\": 1, \"cursr\": \"\xff\"}"[..],
        b"{\"deleted\": 1, \"zz\": \"\\ud800\"}",
        b"{\"deleted\": 1, \"zz\": 1e400}",
        b"{\"deleted\": 1, \"zz\": [{\"a\": \"\xc3\"}]}",
    ] {
        assert!(!agree("deleteWorkflowDlqBulk", 200, &json, body, model));
    }
}

#[test]
fn a_valid_page_decodes_once_and_equals_serde_json() {
    let page = sample(
        &json!({"$ref": "#/$defs/WorkflowDlqPage"}),
        &Contract::courier().schemas,
    );
    let body = page.to_string();
    let decoded = courier().decode::<courier_models::WorkflowDlqPage>(
        "listWorkflowDlq",
        200,
        &headers(Some("application/json")),
        body.as_bytes(),
    );
    let Decoded::Valid(decoded) = decoded else {
        panic!("{decoded:?}")
    };
    let plain: courier_models::WorkflowDlqPage = serde_json::from_str(&body).unwrap();
    assert_eq!(decoded, plain);
}
