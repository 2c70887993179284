//! One version of the spec as the rules read it: lookups by name, where each type is used, the
//! Rust type a schema generates, and its constraints.

use super::*;

pub(super) const SCHEMA_REF: &str = "#/components/schemas/";

/// One version of the spec, with the lookups the rules need.
pub(super) struct SpecView<'a> {
    pub(super) root: &'a Value,
    /// Usage of every component schema by the operations, through `$ref` closure.
    pub(super) usage: BTreeMap<String, Usage>,
}

impl<'a> SpecView<'a> {
    pub(super) fn new(root: &'a Value) -> SpecView<'a> {
        let mut view = SpecView {
            root,
            usage: BTreeMap::new(),
        };
        let mut direct: Vec<(String, Usage)> = Vec::new();
        for op in view.operations().values() {
            for param in view.parameters(op.value).values() {
                for name in refs_in(param.value.get("schema").unwrap_or(&Value::Null)) {
                    direct.push((name, Usage::REQUEST));
                }
            }
            if let Some(body) = op.value.get("requestBody") {
                for name in refs_in(view.resolve(body).0) {
                    direct.push((name, Usage::REQUEST));
                }
            }
            for response in view.responses(op.value).values() {
                for name in refs_in(response) {
                    direct.push((name, Usage::RESPONSE));
                }
            }
        }
        // Closure: a type used by a used type is used the same way.
        let mut todo = direct;
        while let Some((name, usage)) = todo.pop() {
            let known = view.usage.entry(name.clone()).or_default();
            let merged = known.either(usage);
            if merged == *known {
                continue;
            }
            *known = merged;
            if let Some(schema) = view.schema(&name) {
                for inner in refs_in(schema) {
                    todo.push((inner, merged));
                }
            }
        }
        view
    }

    pub(super) fn usage_of(&self, name: &str) -> Usage {
        self.usage.get(name).copied().unwrap_or_default()
    }

    pub(super) fn schemas(&self) -> Map<String, Value> {
        self.root
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    }

    pub(super) fn schema(&self, name: &str) -> Option<&'a Value> {
        self.root
            .pointer(&pointer(&["components", "schemas", name]))
    }

    /// Follows a local `$ref`, returning the target and the pointer it came from.
    pub(super) fn resolve(&self, value: &'a Value) -> (&'a Value, Option<String>) {
        match value.get("$ref").and_then(Value::as_str) {
            Some(reference) => match reference.strip_prefix('#') {
                Some(target) => (
                    self.root.pointer(target).unwrap_or(&Value::Null),
                    Some(target.to_owned()),
                ),
                None => (&Value::Null, None),
            },
            None => (value, None),
        }
    }

    /// Every operation by `operationId`.
    pub(super) fn operations(&self) -> BTreeMap<String, Operation<'a>> {
        let mut operations = BTreeMap::new();
        let Some(paths) = self.root.get("paths").and_then(Value::as_object) else {
            return operations;
        };
        for (path, item) in paths {
            let Some(item) = item.as_object() else {
                continue;
            };
            for (method, op) in item {
                if !matches!(
                    method.as_str(),
                    "get" | "put" | "post" | "delete" | "patch" | "head" | "options" | "trace"
                ) {
                    continue;
                }
                let id = op
                    .get("operationId")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("{} {path}", method.to_uppercase()));
                operations.insert(
                    id,
                    Operation {
                        path: path.clone(),
                        method: method.clone(),
                        value: op,
                        item_parameters: item.get("parameters"),
                    },
                );
            }
        }
        operations
    }

    /// An operation's parameters (path-item ones first, the operation's own winning), resolved.
    pub(super) fn parameters(&self, op: &'a Value) -> BTreeMap<(String, String), Parameter<'a>> {
        let mut parameters = BTreeMap::new();
        if let Some(list) = op.get("parameters").and_then(Value::as_array) {
            for (index, raw) in list.iter().enumerate() {
                let (value, from) = self.resolve(raw);
                let key = (
                    value.get("in").and_then(Value::as_str).unwrap_or("").into(),
                    value
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .into(),
                );
                parameters.insert(
                    key,
                    Parameter {
                        value,
                        index,
                        component: from,
                    },
                );
            }
        }
        parameters
    }

    /// Each documented status with its body schema (`Null` without a body), resolved.
    pub(super) fn responses(&self, op: &'a Value) -> BTreeMap<String, &'a Value> {
        let mut responses = BTreeMap::new();
        if let Some(map) = op.get("responses").and_then(Value::as_object) {
            for (status, raw) in map {
                let (response, _) = self.resolve(raw);
                let schema = response
                    .pointer("/content/application~1json/schema")
                    .unwrap_or(&Value::Null);
                responses.insert(status.clone(), schema);
            }
        }
        responses
    }

    /// The statuses whose response is marked `x-courier-preserialized` (the generated server
    /// takes its body as `JsonBody<T>`).
    pub(super) fn preserialized(&self, op: &'a Value) -> BTreeSet<String> {
        let mut statuses = BTreeSet::new();
        if let Some(map) = op.get("responses").and_then(Value::as_object) {
            for (status, raw) in map {
                let (response, _) = self.resolve(raw);
                if response.get(courier_spec::extensions::PRESERIALIZED) == Some(&Value::Bool(true))
                {
                    statuses.insert(status.clone());
                }
            }
        }
        statuses
    }
}

pub(super) struct Operation<'a> {
    pub(super) path: String,
    pub(super) method: String,
    pub(super) value: &'a Value,
    pub(super) item_parameters: Option<&'a Value>,
}

impl Operation<'_> {
    pub(super) fn pointer(&self) -> String {
        pointer(&["paths", &self.path, &self.method])
    }

    /// `GET /v2/...`, as a reader writes it.
    pub(super) fn endpoint(&self) -> String {
        format!("{} {}", self.method.to_uppercase(), self.path)
    }
}

pub(super) struct Parameter<'a> {
    pub(super) value: &'a Value,
    /// Position in the operation's list (for the pointer of an inline parameter).
    pub(super) index: usize,
    /// Pointer of the `components/parameters` entry it is a `$ref` to.
    pub(super) component: Option<String>,
}

/// Names of the component schemas a schema refers to, directly.
pub(super) fn refs_in(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    pub(super) fn walk(value: &Value, names: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix(SCHEMA_REF))
                {
                    names.insert(name.to_owned());
                }
                map.values().for_each(|v| walk(v, names));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, names)),
            _ => {}
        }
    }
    walk(schema, &mut names);
    names
}

/// The Rust type the generators make of a schema, as a comparable string: two schemas with the
/// same signature generate the same type. Constraints are left out except where they pick the
/// type (typify makes an integer with `minimum: 1` a `NonZero` integer).
pub(super) fn signature(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return format!("ref {}", reference.trim_start_matches(SCHEMA_REF));
    }
    let nullable = schema.get("nullable").and_then(Value::as_bool) == Some(true);
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("any");
    let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
    let base = match kind {
        "integer" => {
            let minimum = schema.get("minimum").and_then(Value::as_f64);
            let exclusive = schema.get("exclusiveMinimum").and_then(Value::as_bool) == Some(true);
            let non_zero = minimum == Some(1.0) || (minimum == Some(0.0) && exclusive);
            format!("integer {format}{}", if non_zero { " nonzero" } else { "" })
        }
        "array" => format!(
            "array<{}>",
            signature(schema.get("items").unwrap_or(&Value::Null))
        ),
        "object" => {
            let properties = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|props| {
                    props
                        .iter()
                        .map(|(name, prop)| format!("{name}: {}", signature(prop)))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let additional = match schema.get("additionalProperties") {
                Some(Value::Object(_)) => {
                    format!(" map<{}>", signature(&schema["additionalProperties"]))
                }
                _ => String::new(),
            };
            format!(
                "object {{{properties}}} required {:?}{additional}",
                required_of(schema)
            )
        }
        other => match schema.get("enum").and_then(Value::as_array) {
            Some(values) => format!("{other} enum {values:?}"),
            None => format!("{other} {format}"),
        },
    };
    let composed = ["allOf", "oneOf", "anyOf"]
        .iter()
        .filter_map(|key| {
            schema.get(*key).and_then(Value::as_array).map(|parts| {
                let inner: Vec<String> = parts.iter().map(signature).collect();
                format!(" {key}[{}]", inner.join(", "))
            })
        })
        .collect::<String>();
    if nullable {
        format!("nullable({base}{composed})")
    } else {
        format!("{base}{composed}")
    }
}

pub(super) fn required_of(schema: &Value) -> BTreeSet<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a field or parameter that is not required is an `Option` in Rust: arrays become an
/// empty `Vec` and values with a default become the default, so only the others are wrapped.
pub(super) fn optional_is_option(schema: &Value) -> bool {
    schema.get("default").is_none() && schema.get("type").and_then(Value::as_str) != Some("array")
}

/// The Rust type of a field or parameter, `Option` included.
pub(super) fn field_type(schema: &Value, required: bool) -> String {
    let inner = signature(schema);
    if !required && optional_is_option(schema) {
        format!("Option<{inner}>")
    } else {
        inner
    }
}

/// Numeric and length constraints: smaller upper bounds and larger lower bounds tighten.
pub(super) const UPPER_BOUNDS: [&str; 3] = ["maximum", "maxLength", "maxItems"];
pub(super) const LOWER_BOUNDS: [&str; 3] = ["minimum", "minLength", "minItems"];

/// Each constraint that differs, with its direction.
pub(super) fn constraint_changes(
    old: &Value,
    new: &Value,
) -> Vec<(&'static str, Direction, String)> {
    let mut changes = Vec::new();
    for (keys, upper) in [(UPPER_BOUNDS, true), (LOWER_BOUNDS, false)] {
        for key in keys {
            let before = old.get(key).and_then(Value::as_f64);
            let after = new.get(key).and_then(Value::as_f64);
            let direction = match (before, after) {
                (Some(a), Some(b)) if a == b => continue,
                (None, None) => continue,
                (Some(a), Some(b)) => {
                    if (b < a) == upper {
                        Direction::Tighten
                    } else {
                        Direction::Loosen
                    }
                }
                (None, Some(_)) => Direction::Tighten,
                (Some(_), None) => Direction::Loosen,
            };
            let show = |v: Option<f64>| v.map_or("none".to_owned(), |v| v.to_string());
            changes.push((
                key,
                direction,
                format!("{key} {} → {}", show(before), show(after)),
            ));
        }
    }
    if old.get("pattern") != new.get("pattern") {
        let direction = match (old.get("pattern"), new.get("pattern")) {
            (None, Some(_)) => Direction::Tighten,
            (Some(_), None) => Direction::Loosen,
            _ => Direction::Both,
        };
        changes.push(("pattern", direction, "pattern changed".to_owned()));
    }
    changes
}
