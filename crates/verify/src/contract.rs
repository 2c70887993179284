//! The spec's response contract as `cargo xtask codegen` writes it (`generated/contract.json`):
//! every operation's method, path template, security schemes and documented responses, the
//! component schemas as JSON Schema, and the statistics series facts.

use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The generated contract, embedded at build time.
const CONTRACT_JSON: &str = include_str!("generated/contract.json");

/// The whole contract of the spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Contract {
    /// `info.title` of the spec.
    pub title: String,
    /// `info.version` of the spec.
    pub version: String,
    /// Every operation, in the spec's order.
    pub operations: Vec<OperationContract>,
    /// The component schemas, converted to JSON Schema 2020-12 (`$ref`s point at `#/$defs/X`).
    pub schemas: Map<String, Value>,
    /// The security schemes by name: `{"type": "http", "scheme": "bearer"}`,
    /// `{"type": "apiKey", "in": "query", "name": "service_token"}`, ...
    pub security_schemes: Map<String, Value>,
    /// The `x-courier-series` facts by schema name: the data point rule of each statistics
    /// period (`StatsPeriod`) and which arrays of a statistics body follow which rule.
    pub series: Map<String, Value>,
}

/// What the spec documents for one operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationContract {
    pub operation_id: String,
    /// Upper-case HTTP method.
    pub method: String,
    /// Path template, e.g. `/v2/workflows/dlq/{dlqId}`.
    pub path: String,
    pub tags: Vec<String>,
    /// The security schemes that each admit a request.
    pub security: Vec<String>,
    /// The parameters, path item's and operation's merged.
    #[serde(default)]
    pub parameters: Vec<ParameterContract>,
    pub responses: Vec<ResponseContract>,
    /// How a list's entries are ordered (`x-courier-order`), for a list.
    #[serde(default)]
    pub order: Option<OrderFact>,
}

/// The order of a list's entries: ascending by `field`, compared as `compare` says.
#[derive(Debug, Clone, Deserialize)]
pub struct OrderFact {
    pub field: String,
    /// `bytes`: by the values' UTF-8 bytes.
    pub compare: String,
}

impl OrderFact {
    /// How two values of the field compare in this order. `bytes` is the only comparison the
    /// spec's lint admits (`x-courier-order`).
    pub fn compare(&self, a: &str, b: &str) -> std::cmp::Ordering {
        a.as_bytes().cmp(b.as_bytes())
    }
}

/// What a filter parameter is compared with (`x-courier-matches`).
#[derive(Debug, Clone, Deserialize)]
pub struct MatchFact {
    /// Fields of a listed entry; the entry matches when any of them does.
    pub fields: Vec<String>,
    /// `equals` (any field, or any item of an array field, equals any value), `at-least` or
    /// `at-most` (the field is no less, no more than the value).
    pub compare: String,
}

impl MatchFact {
    /// Whether a listed entry matches `values` (any of them) by this fact.
    pub fn matches(&self, entry: &Value, values: &[String]) -> bool {
        self.entry_values(entry).iter().any(|have| {
            values.iter().any(|wanted| match self.compare.as_str() {
                "at-least" => number(have)
                    .zip(wanted.parse::<i64>().ok())
                    .is_some_and(|(h, w)| h >= w),
                "at-most" => number(have)
                    .zip(wanted.parse::<i64>().ok())
                    .is_some_and(|(h, w)| h <= w),
                _ => have == wanted,
            })
        })
    }

    /// The entry's values of the fields this fact names, as text (items of arrays each).
    pub fn entry_values(&self, entry: &Value) -> Vec<String> {
        let mut values = Vec::new();
        for field in &self.fields {
            match &entry[field.as_str()] {
                Value::Array(items) => values.extend(items.iter().filter_map(scalar_text)),
                other => values.extend(scalar_text(other)),
            }
        }
        values
    }
}

fn number(text: &str) -> Option<i64> {
    text.parse().ok()
}

/// A string or number as the text a query parameter would carry.
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A parameter of an operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParameterContract {
    pub name: String,
    /// `query`, `path`, `header` or `cookie`.
    #[serde(rename = "in")]
    pub location: String,
    pub required: bool,
    /// The parameter group (`x-courier-group`) it belongs to, e.g. `DlqFilter`.
    pub group: Option<String>,
    /// Whether it takes several values (an array, repeated keys or the comma form).
    #[serde(default)]
    pub multi_valued: bool,
    /// The most values it takes, when bounded.
    #[serde(default)]
    pub max_items: Option<usize>,
    /// The least and greatest value of an integer parameter, when bounded.
    #[serde(default)]
    pub minimum: Option<i64>,
    #[serde(default)]
    pub maximum: Option<i64>,
    /// The parameter this one is another spelling of (`x-courier-alias-of`).
    #[serde(default)]
    pub alias_of: Option<String>,
    /// What a filter is compared with (`x-courier-matches`).
    #[serde(default)]
    pub matches: Option<MatchFact>,
}

/// One documented response of an operation.
#[derive(Debug, Clone, Deserialize)]
pub struct ResponseContract {
    /// `200`, a range such as `4XX`, or `default`.
    pub status: String,
    /// Media type → JSON Schema of the body (`null` when the spec gives no schema). Empty when
    /// the response has no body.
    pub content: Map<String, Value>,
    pub headers: Vec<HeaderContract>,
}

/// A documented response header.
#[derive(Debug, Clone, Deserialize)]
pub struct HeaderContract {
    pub name: String,
    pub required: bool,
    /// Its JSON Schema (`null` when not given).
    pub schema: Value,
}

impl Contract {
    /// The contract of courier's spec, parsed once.
    pub fn courier() -> &'static Contract {
        static CONTRACT: OnceLock<Contract> = OnceLock::new();
        CONTRACT.get_or_init(|| {
            serde_json::from_str(CONTRACT_JSON)
                .expect("the generated contract is valid JSON of this shape (checked by tests)")
        })
    }

    /// The operation of that id.
    pub fn operation(&self, operation_id: &str) -> Option<&OperationContract> {
        self.operations
            .iter()
            .find(|op| op.operation_id == operation_id)
    }

    /// The operation a request of `method` to `path` (without query) answers, by path template.
    pub fn operation_for(&self, method: &str, path: &str) -> Option<&OperationContract> {
        self.operations
            .iter()
            .find(|op| op.method.eq_ignore_ascii_case(method) && template_matches(&op.path, path))
    }

    /// The data point rule of a statistics period: (points, seconds between points).
    pub fn period_rule(&self, period: &str) -> Option<(u64, u64)> {
        let rule = self.series.get("StatsPeriod")?.get(period)?;
        Some((
            rule.get("points")?.as_u64()?,
            rule.get("intervalSeconds")?.as_u64()?,
        ))
    }

    /// The statistics periods, sorted by name.
    pub fn periods(&self) -> Vec<&str> {
        self.series
            .get("StatsPeriod")
            .and_then(Value::as_object)
            .map(|rules| rules.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }
}

impl OperationContract {
    /// The documented response for `status`: the exact code, else its range (`4XX`), else
    /// `default`.
    pub fn response(&self, status: u16) -> Option<&ResponseContract> {
        let code = status.to_string();
        let range = format!("{}XX", status / 100);
        [code.as_str(), range.as_str(), "default"]
            .into_iter()
            .find_map(|wanted| self.responses.iter().find(|r| r.status == wanted))
    }

    /// The filters of this operation (`DlqFilter` parameters with their facts), in the spec's
    /// order.
    pub fn filters(&self) -> impl Iterator<Item = (&ParameterContract, &MatchFact)> {
        self.parameters
            .iter()
            .filter_map(|p| p.matches.as_ref().map(|facts| (p, facts)))
    }

    /// Whether the spec documents an answer of exactly `status`.
    pub fn documents(&self, status: u16) -> bool {
        let code = status.to_string();
        self.responses.iter().any(|r| r.status == code)
    }

    /// The parameter of that name.
    pub fn parameter(&self, name: &str) -> Option<&ParameterContract> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// The documented statuses, as the spec writes them.
    pub fn statuses(&self) -> Vec<&str> {
        self.responses.iter().map(|r| r.status.as_str()).collect()
    }

    /// The name of the component schema of the `200` JSON body, if it is a `$ref`.
    pub fn success_schema_name(&self) -> Option<&str> {
        self.response(200)?
            .content
            .get("application/json")?
            .get("$ref")?
            .as_str()?
            .strip_prefix("#/$defs/")
    }
}

/// Whether a concrete path matches a template; `{name}` matches one non-empty segment.
fn template_matches(template: &str, path: &str) -> bool {
    let mut templates = template.split('/');
    let mut segments = path.split('/');
    loop {
        match (templates.next(), segments.next()) {
            (None, None) => return true,
            (Some(t), Some(s)) if t.starts_with('{') && t.ends_with('}') && !s.is_empty() => {}
            (Some(t), Some(s)) if t == s => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_contract_reads_and_names_every_operation() {
        let contract = Contract::courier();
        assert!(contract.operations.len() >= 10);
        let list = contract.operation("listWorkflowDlq").unwrap();
        assert_eq!(
            (list.method.as_str(), list.path.as_str()),
            ("GET", "/v2/workflows/dlq")
        );
        assert_eq!(list.success_schema_name(), Some("WorkflowDlqPage"));
        assert!(list.response(418).is_none());
        let get = contract
            .operation_for("get", "/v2/workflows/dlq/abc")
            .unwrap();
        assert_eq!(get.operation_id, "getWorkflowDlq");
        assert!(
            contract
                .operation_for("GET", "/v2/workflows/dlq/")
                .is_none()
        );
        assert_eq!(contract.period_rule("30d"), Some((240, 10_800)));
        assert_eq!(contract.period_rule("1h"), Some((60, 60)));
        assert_eq!(contract.periods().len(), 7);
    }
}
