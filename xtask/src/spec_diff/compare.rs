//! The rules: how each kind of spec change is classified for each crate (see the parent module
//! for what the classes mean).
//!
//! Types (`components/schemas`) are compared property by property, operations by `operationId`,
//! parameters by (`in`, `name`) after resolving `$ref`s, responses by status. Whether a type
//! change reaches the client or the server depends on where the type is used: in a request
//! (the client user builds it, the implementer reads it), in a response (the implementer builds
//! it, the client user reads it), or nowhere. Constraints (`maximum`, `minLength`, ...) do not
//! change a Rust type, so they never touch the models; on the wire, tightening what a request
//! may carry breaks its producer (the client) and loosening it breaks its consumer (the
//! implementer), and the other way round for a response.
//!
//! Anything outside the compared parts is documentation (`none`) when its key is one
//! (`description`, `summary`, `example`, `x-…`, ...), and otherwise reported as unclassified
//! and `breaking` for all three: a change the rules do not know is never waved through.

use super::{Change, Class, Impact, Report};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

use Class::{Additive, Breaking, None as Nothing};

/// Keys whose values are prose or tooling metadata: they reach the generated code as doc
/// comments at most.
fn is_doc_key(key: &str) -> bool {
    matches!(
        key,
        "description" | "summary" | "example" | "examples" | "title" | "externalDocs"
    ) || key.starts_with("x-")
}

/// Where a type is used, as seen from the operations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Usage {
    request: bool,
    response: bool,
}

impl Usage {
    const REQUEST: Usage = Usage {
        request: true,
        response: false,
    };
    const RESPONSE: Usage = Usage {
        request: false,
        response: true,
    };

    fn either(self, other: Usage) -> Usage {
        Usage {
            request: self.request || other.request,
            response: self.response || other.response,
        }
    }

    fn any(self) -> bool {
        self.request || self.response
    }
}

/// A change that narrows or widens what may be sent, or both (a new `pattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Tighten,
    Loosen,
    Both,
}

/// Client and server classes of a constraint change at a place used as `usage`: tightening
/// breaks the producer (client for requests, implementer for responses), loosening the consumer.
fn directional(direction: Direction, usage: Usage) -> (Class, Class) {
    let (tighten, loosen) = match direction {
        Direction::Tighten => (true, false),
        Direction::Loosen => (false, true),
        Direction::Both => (true, true),
    };
    let mut client = Nothing;
    let mut server = Nothing;
    if usage.request {
        // Client produces, server consumes.
        client = client.max(if tighten { Breaking } else { Additive });
        server = server.max(if loosen { Breaking } else { Nothing });
    }
    if usage.response {
        // Server produces, client consumes.
        server = server.max(if tighten { Breaking } else { Additive });
        client = client.max(if loosen { Breaking } else { Nothing });
    }
    (client, server)
}

/// JSON pointer escaping (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn pointer(tokens: &[&str]) -> String {
    tokens.iter().map(|t| format!("/{}", escape(t))).collect()
}

const SCHEMA_REF: &str = "#/components/schemas/";

/// One version of the spec, with the lookups the rules need.
struct SpecView<'a> {
    root: &'a Value,
    /// Usage of every component schema by the operations, through `$ref` closure.
    usage: BTreeMap<String, Usage>,
}

impl<'a> SpecView<'a> {
    fn new(root: &'a Value) -> SpecView<'a> {
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

    fn usage_of(&self, name: &str) -> Usage {
        self.usage.get(name).copied().unwrap_or_default()
    }

    fn schemas(&self) -> Map<String, Value> {
        self.root
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    }

    fn schema(&self, name: &str) -> Option<&'a Value> {
        self.root
            .pointer(&pointer(&["components", "schemas", name]))
    }

    /// Follows a local `$ref`, returning the target and the pointer it came from.
    fn resolve(&self, value: &'a Value) -> (&'a Value, Option<String>) {
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
    fn operations(&self) -> BTreeMap<String, Operation<'a>> {
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
    fn parameters(&self, op: &'a Value) -> BTreeMap<(String, String), Parameter<'a>> {
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
    fn responses(&self, op: &'a Value) -> BTreeMap<String, &'a Value> {
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
}

struct Operation<'a> {
    path: String,
    method: String,
    value: &'a Value,
    item_parameters: Option<&'a Value>,
}

impl Operation<'_> {
    fn pointer(&self) -> String {
        pointer(&["paths", &self.path, &self.method])
    }
}

struct Parameter<'a> {
    value: &'a Value,
    /// Position in the operation's list (for the pointer of an inline parameter).
    index: usize,
    /// Pointer of the `components/parameters` entry it is a `$ref` to.
    component: Option<String>,
}

/// Names of the component schemas a schema refers to, directly.
fn refs_in(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    fn walk(value: &Value, names: &mut BTreeSet<String>) {
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
fn signature(schema: &Value) -> String {
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

fn required_of(schema: &Value) -> BTreeSet<String> {
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
fn optional_is_option(schema: &Value) -> bool {
    schema.get("default").is_none() && schema.get("type").and_then(Value::as_str) != Some("array")
}

/// The Rust type of a field or parameter, `Option` included.
fn field_type(schema: &Value, required: bool) -> String {
    let inner = signature(schema);
    if !required && optional_is_option(schema) {
        format!("Option<{inner}>")
    } else {
        inner
    }
}

/// Numeric and length constraints: smaller upper bounds and larger lower bounds tighten.
const UPPER_BOUNDS: [&str; 3] = ["maximum", "maxLength", "maxItems"];
const LOWER_BOUNDS: [&str; 3] = ["minimum", "minLength", "minItems"];

/// Each constraint that differs, with its direction.
fn constraint_changes(old: &Value, new: &Value) -> Vec<(&'static str, Direction, String)> {
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

/// Accumulates changes; one pointer appears once, with the worst classes given for it (a
/// shared parameter component changes every operation that uses it).
#[derive(Default)]
struct Changes {
    by_pointer: BTreeMap<String, Change>,
}

impl Changes {
    fn add(&mut self, pointer: String, what: String, impact: Impact) {
        self.by_pointer
            .entry(pointer.clone())
            .and_modify(|known| known.impact = known.impact.merge(impact))
            .or_insert(Change {
                pointer,
                what,
                impact,
            });
    }
}

/// Every change between two specs, classified, worst first (then by pointer).
pub fn diff(old: &Value, new: &Value) -> Report {
    let old_view = SpecView::new(old);
    let new_view = SpecView::new(new);
    let mut changes = Changes::default();
    compare_schemas(&old_view, &new_view, &mut changes);
    compare_operations(&old_view, &new_view, &mut changes);
    compare_rest(old, new, "", &mut changes);
    let mut list: Vec<Change> = changes.by_pointer.into_values().collect();
    list.sort_by(|a, b| {
        b.impact
            .worst()
            .cmp(&a.impact.worst())
            .then_with(|| a.pointer.cmp(&b.pointer))
    });
    Report { changes: list }
}

/// Client and server classes of a change that breaks every user of a type, where it is used.
fn breaks_where_used(usage: Usage) -> (Class, Class) {
    let class = if usage.any() { Breaking } else { Nothing };
    (class, class)
}

fn compare_schemas(old: &SpecView, new: &SpecView, changes: &mut Changes) {
    let old_schemas = old.schemas();
    let new_schemas = new.schemas();
    for (name, before) in &old_schemas {
        let at = pointer(&["components", "schemas", name]);
        // A type used in either version: removing a use is classified at the operation, but a
        // type change still reaches whoever used it before.
        let usage = old.usage_of(name).either(new.usage_of(name));
        let Some(after) = new_schemas.get(name) else {
            let (client, server) = breaks_where_used(old.usage_of(name));
            changes.add(
                at,
                format!("type {name} removed"),
                Impact::new(Breaking, client, server),
            );
            continue;
        };
        compare_schema(name, &at, before, after, usage, changes);
    }
    for name in new_schemas.keys() {
        if !old_schemas.contains_key(name) {
            // Only the models expose a type nobody uses yet; a use of it is an operation change.
            changes.add(
                pointer(&["components", "schemas", name]),
                format!("type {name} added"),
                Impact::new(Additive, Nothing, Nothing),
            );
        }
    }
}

fn compare_schema(
    name: &str,
    at: &str,
    before: &Value,
    after: &Value,
    usage: Usage,
    changes: &mut Changes,
) {
    let old_enum = before.get("enum").and_then(Value::as_array);
    let new_enum = after.get("enum").and_then(Value::as_array);
    let old_props = before.get("properties").and_then(Value::as_object);
    let new_props = after.get("properties").and_then(Value::as_object);
    if let (Some(old_values), Some(new_values)) = (old_enum, new_enum) {
        // A new value is a new variant: an exhaustive `match` over it stops compiling (Rust),
        // and a consumer of an older build cannot read it (HTTP). A removed one is gone from
        // the enum and refused on the wire.
        let (client, server) = breaks_where_used(usage);
        for value in new_values.iter().filter(|v| !old_values.contains(v)) {
            changes.add(
                format!("{at}/enum/{}", value_label(value)),
                format!("{name}: enum value {value} added"),
                Impact::new(Breaking, client, server),
            );
        }
        for value in old_values.iter().filter(|v| !new_values.contains(v)) {
            changes.add(
                format!("{at}/enum/{}", value_label(value)),
                format!("{name}: enum value {value} removed"),
                Impact::new(Breaking, client, server),
            );
        }
    } else if let (Some(old_props), Some(new_props)) = (old_props, new_props) {
        compare_properties(
            name, at, before, after, old_props, new_props, usage, changes,
        );
    } else if signature(before) != signature(after) {
        let (client, server) = breaks_where_used(usage);
        changes.add(
            at.to_owned(),
            format!("type {name} changed kind"),
            Impact::new(Breaking, client, server),
        );
    }
    if old_enum.is_none() && old_props.is_none() {
        constraints_at(name, at, before, after, usage, changes);
    }
}

/// An enum value as a pointer token: the value itself, so a reader sees which one.
fn value_label(value: &Value) -> String {
    escape(
        &value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned),
    )
}

#[allow(clippy::too_many_arguments)]
fn compare_properties(
    name: &str,
    at: &str,
    before: &Value,
    after: &Value,
    old_props: &Map<String, Value>,
    new_props: &Map<String, Value>,
    usage: Usage,
    changes: &mut Changes,
) {
    let old_required = required_of(before);
    let new_required = required_of(after);
    let removed: Vec<&String> = old_props
        .keys()
        .filter(|p| !new_props.contains_key(*p))
        .collect();
    let added: Vec<&String> = new_props
        .keys()
        .filter(|p| !old_props.contains_key(*p))
        .collect();
    let prop_at = |prop: &str| format!("{at}/properties/{}", escape(prop));

    // One field gone and one of the same Rust type come: a rename (the field name is the JSON
    // key, so it is a rename on the wire too).
    if let ([gone], [came]) = (removed.as_slice(), added.as_slice()) {
        let gone_type = field_type(&old_props[*gone], old_required.contains(*gone));
        let came_type = field_type(&new_props[*came], new_required.contains(*came));
        if gone_type == came_type {
            let (client, server) = breaks_where_used(usage);
            changes.add(
                prop_at(came),
                format!("{name}.{gone} renamed to {came}"),
                Impact::new(Breaking, client, server),
            );
            compare_common(
                name,
                &prop_at,
                old_props,
                new_props,
                &old_required,
                &new_required,
                usage,
                changes,
            );
            return;
        }
    }
    for prop in removed {
        // Readers lose the field, builders name a field that is gone.
        let (client, server) = breaks_where_used(usage);
        changes.add(
            format!("{at}/properties/{}", escape(prop)),
            format!("{name}.{prop} removed"),
            Impact::new(Breaking, client, server),
        );
    }
    for prop in added {
        let required = new_required.contains(prop);
        // A new field breaks every struct literal (Rust): the models' users build any type, the
        // client's users build request types, implementers build response types. Readers only
        // gain a field.
        let client = if usage.request {
            Breaking
        } else if usage.response {
            Additive
        } else {
            Nothing
        };
        let server = if usage.response {
            Breaking
        } else if usage.request {
            Additive
        } else {
            Nothing
        };
        let kind = if required { "required" } else { "optional" };
        changes.add(
            prop_at(prop),
            format!("{name}.{prop} added ({kind})"),
            Impact::new(Breaking, client, server),
        );
    }
    compare_common(
        name,
        &prop_at,
        old_props,
        new_props,
        &old_required,
        &new_required,
        usage,
        changes,
    );
}

#[allow(clippy::too_many_arguments)]
fn compare_common(
    name: &str,
    prop_at: &dyn Fn(&str) -> String,
    old_props: &Map<String, Value>,
    new_props: &Map<String, Value>,
    old_required: &BTreeSet<String>,
    new_required: &BTreeSet<String>,
    usage: Usage,
    changes: &mut Changes,
) {
    for (prop, before) in old_props {
        let Some(after) = new_props.get(prop) else {
            continue;
        };
        let was_required = old_required.contains(prop);
        let is_required = new_required.contains(prop);
        let field = format!("{name}.{prop}");
        if signature(before) != signature(after) {
            let (client, server) = breaks_where_used(usage);
            changes.add(
                prop_at(prop),
                format!(
                    "{field} retyped: {} → {}",
                    signature(before),
                    signature(after)
                ),
                Impact::new(Breaking, client, server),
            );
        } else if was_required != is_required {
            let change = if is_required {
                "made required"
            } else {
                "made optional"
            };
            if field_type(before, was_required) != field_type(after, is_required) {
                // `T` ↔ `Option<T>`: every reader and builder of the field.
                let (client, server) = breaks_where_used(usage);
                changes.add(
                    prop_at(prop),
                    format!("{field} {change} (Option changes)"),
                    Impact::new(Breaking, client, server),
                );
            } else {
                // Same Rust type (an array or a defaulted value): only the wire changes.
                let direction = if is_required {
                    Direction::Tighten
                } else {
                    Direction::Loosen
                };
                let (client, server) = directional(direction, usage);
                changes.add(
                    prop_at(prop),
                    format!("{field} {change} (same Rust type)"),
                    Impact::new(Nothing, client, server),
                );
            }
        }
        for (key, direction, text) in constraint_changes(before, after) {
            let (client, server) = directional(direction, usage);
            changes.add(
                format!("{}/{key}", prop_at(prop)),
                format!("{field}: {text}"),
                Impact::new(Nothing, client, server),
            );
        }
    }
}

/// Constraint changes of a whole (scalar) component.
fn constraints_at(
    name: &str,
    at: &str,
    before: &Value,
    after: &Value,
    usage: Usage,
    changes: &mut Changes,
) {
    for (key, direction, text) in constraint_changes(before, after) {
        let (client, server) = directional(direction, usage);
        changes.add(
            format!("{at}/{key}"),
            format!("{name}: {text}"),
            Impact::new(Nothing, client, server),
        );
    }
}

fn compare_operations(old: &SpecView, new: &SpecView, changes: &mut Changes) {
    let old_ops = old.operations();
    let new_ops = new.operations();
    for (id, before) in &old_ops {
        let Some(after) = new_ops.get(id) else {
            // The call is gone; an implementation's method matches no trait method (E0407).
            changes.add(
                before.pointer(),
                format!(
                    "operation {id} removed ({} {})",
                    before.method.to_uppercase(),
                    before.path
                ),
                Impact::new(Nothing, Breaking, Breaking),
            );
            continue;
        };
        if before.path != after.path || before.method != after.method {
            changes.add(
                after.pointer(),
                format!(
                    "operation {id} moved: {} {} → {} {}",
                    before.method.to_uppercase(),
                    before.path,
                    after.method.to_uppercase(),
                    after.path
                ),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
        compare_parameters(id, old, new, before, after, changes);
        compare_responses(id, old, new, before, after, changes);
        let body = |op: &Operation| op.value.get("requestBody").map(|b| b.to_string());
        if body(before) != body(after) {
            changes.add(
                format!("{}/requestBody", after.pointer()),
                format!("{id}: request body changed"),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
        for key in ["security", "tags"] {
            if before.value.get(key) != after.value.get(key) {
                // Tags pick the client (and trait) an operation is in; security the credentials.
                changes.add(
                    format!("{}/{key}", after.pointer()),
                    format!("{id}: {key} changed"),
                    Impact::new(Nothing, Breaking, Breaking),
                );
            }
        }
        if before.item_parameters != after.item_parameters {
            changes.add(
                pointer(&["paths", &after.path, "parameters"]),
                format!("{}: path-level parameters changed", after.path),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
    }
    for (id, after) in &new_ops {
        if !old_ops.contains_key(id) {
            // A new builder method for callers; a new required trait method for implementers
            // (the generated traits have no default bodies).
            changes.add(
                after.pointer(),
                format!(
                    "operation {id} added ({} {})",
                    after.method.to_uppercase(),
                    after.path
                ),
                Impact::new(Nothing, Additive, Breaking),
            );
        }
    }
}

fn parameter_pointer(op: &Operation, param: &Parameter) -> String {
    match &param.component {
        Some(component) => component.clone(),
        None => format!("{}/parameters/{}", op.pointer(), param.index),
    }
}

fn compare_parameters(
    id: &str,
    old: &SpecView,
    new: &SpecView,
    before: &Operation,
    after: &Operation,
    changes: &mut Changes,
) {
    let old_params = old.parameters(before.value);
    let new_params = new.parameters(after.value);
    let required = |p: &Parameter| p.value.get("required").and_then(Value::as_bool) == Some(true);
    let schema = |p: &Parameter| p.value.get("schema").cloned().unwrap_or(Value::Null);
    for (key @ (location, name), gone) in &old_params {
        let label = format!("{id}: {location} parameter {name}");
        let Some(came) = new_params.get(key) else {
            // The builder method and the request field are gone.
            changes.add(
                format!("{}/parameters/{}", before.pointer(), gone.index),
                format!("{label} removed"),
                Impact::new(Nothing, Breaking, Breaking),
            );
            continue;
        };
        let at = parameter_pointer(after, came);
        let (old_schema, new_schema) = (schema(gone), schema(came));
        let style = |p: &Parameter| {
            (
                p.value.get("style").cloned(),
                p.value.get("explode").cloned(),
            )
        };
        if signature(&old_schema) != signature(&new_schema) || style(gone) != style(came) {
            changes.add(
                at.clone(),
                format!(
                    "{label} retyped: {} → {}",
                    signature(&old_schema),
                    signature(&new_schema)
                ),
                Impact::new(Nothing, Breaking, Breaking),
            );
        } else if required(gone) != required(came) {
            // The server resolves a `$ref`'d schema's default, so resolve before typing.
            let server_type_changes = field_type(old.resolve(&old_schema).0, required(gone))
                != field_type(new.resolve(&new_schema).0, required(came));
            let server = if server_type_changes {
                Breaking
            } else if required(came) {
                Nothing
            } else {
                // The implementer may now get a request without it.
                Breaking
            };
            if required(came) {
                // Builders compile unchanged, but `send()` refuses a call that leaves it out.
                changes.add(
                    at.clone(),
                    format!("{label} made required"),
                    Impact::new(Nothing, Breaking, server),
                );
            } else {
                changes.add(
                    at.clone(),
                    format!("{label} made optional"),
                    Impact::new(Nothing, Additive, server),
                );
            }
        }
        for (constraint, direction, text) in constraint_changes(&old_schema, &new_schema) {
            let (client, server) = directional(direction, Usage::REQUEST);
            changes.add(
                format!("{at}/schema/{constraint}"),
                format!("{label}: {text}"),
                Impact::new(Nothing, client, server),
            );
        }
    }
    for (key @ (location, name), came) in &new_params {
        if old_params.contains_key(key) {
            continue;
        }
        let label = format!("{id}: {location} parameter {name}");
        let at = match &came.component {
            // A new use of a shared parameter: point at the operation's list entry.
            Some(_) | None => format!("{}/parameters/{}", after.pointer(), came.index),
        };
        if required(came) {
            // New builder method, but old calls without it are refused by `send()` (and by the
            // service); implementers get a new field to read.
            changes.add(
                at,
                format!("{label} added (required)"),
                Impact::new(Nothing, Breaking, Additive),
            );
        } else {
            changes.add(
                at,
                format!("{label} added (optional)"),
                Impact::new(Nothing, Additive, Additive),
            );
        }
    }
}

fn compare_responses(
    id: &str,
    old: &SpecView,
    new: &SpecView,
    before: &Operation,
    after: &Operation,
    changes: &mut Changes,
) {
    let old_responses = old.responses(before.value);
    let new_responses = new.responses(after.value);
    for (status, old_schema) in &old_responses {
        let at = format!("{}/responses/{status}", after.pointer());
        match new_responses.get(status) {
            None => changes.add(
                format!("{}/responses/{status}", before.pointer()),
                // The response enum loses its variant; the client just stops expecting it.
                format!("{id}: response {status} removed"),
                Impact::new(Nothing, Nothing, Breaking),
            ),
            Some(new_schema) if signature(old_schema) != signature(new_schema) => changes.add(
                at,
                format!(
                    "{id}: response {status} body retyped: {} → {}",
                    signature(old_schema),
                    signature(new_schema)
                ),
                Impact::new(Nothing, Breaking, Breaking),
            ),
            Some(_) => {}
        }
    }
    for status in new_responses.keys() {
        if !old_responses.contains_key(status) {
            // A new variant of the response enum: breaks an exhaustive `match` over it (Rust
            // semver), although an implementer that only builds responses is unaffected. The
            // client decodes the status instead of reporting it unexpected.
            changes.add(
                format!("{}/responses/{status}", after.pointer()),
                format!("{id}: response {status} added"),
                Impact::new(Nothing, Additive, Breaking),
            );
        }
    }
}

/// The parts the rules above do not cover: documentation is `none`, anything else unclassified
/// and `breaking`. Schemas, parameters, responses and operations are compared above.
fn compare_rest(old: &Value, new: &Value, at: &str, changes: &mut Changes) {
    let covered = [
        "/components/schemas",
        "/components/parameters",
        "/components/responses",
        "/components/requestBodies",
    ];
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let child = format!("{at}/{}", escape(key));
                let (before, after) = (a.get(key), b.get(key));
                if before == after {
                    continue;
                }
                if is_doc_key(key) {
                    changes.add(
                        child,
                        format!("documentation changed ({key})"),
                        Impact::NONE,
                    );
                    continue;
                }
                let inside_compared =
                    covered.iter().any(|c| child.starts_with(c)) || child.starts_with("/paths/");
                if ["/info", "/servers", "/tags"].contains(&child.as_str()) {
                    // Not in the generated code (progenitor sends `info.version` as a header the
                    // service ignores; addresses are given at run time; tag names are compared
                    // per operation).
                    changes.add(child, format!("metadata changed ({key})"), Impact::NONE);
                    continue;
                }
                if inside_compared && (before.is_none() || after.is_none()) {
                    // Added or removed types, operations and their parts are classified above.
                    continue;
                }
                if inside_compared {
                    // Compared above; still look for documentation changes inside.
                    compare_docs_inside(
                        before.unwrap_or(&Value::Null),
                        after.unwrap_or(&Value::Null),
                        &child,
                        changes,
                    );
                    continue;
                }
                match (before, after) {
                    (Some(x), Some(y)) if x.is_object() && y.is_object() => {
                        compare_rest(x, y, &child, changes)
                    }
                    _ => changes.add(
                        child.clone(),
                        format!("unclassified change at {child} (assumed breaking)"),
                        Impact::new(Breaking, Breaking, Breaking),
                    ),
                }
            }
        }
        _ => changes.add(
            at.to_owned(),
            format!("unclassified change at {at} (assumed breaking)"),
            Impact::new(Breaking, Breaking, Breaking),
        ),
    }
}

/// Documentation keys that changed where both sides exist, inside a part compared above.
fn compare_docs_inside(old: &Value, new: &Value, at: &str, changes: &mut Changes) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, before) in a {
                let Some(after) = b.get(key) else { continue };
                if before == after {
                    continue;
                }
                let child = format!("{at}/{}", escape(key));
                if is_doc_key(key) {
                    changes.add(
                        child,
                        format!("documentation changed ({key})"),
                        Impact::NONE,
                    );
                } else {
                    compare_docs_inside(before, after, &child, changes);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (before, after)) in a.iter().zip(b).enumerate() {
                compare_docs_inside(before, after, &format!("{at}/{index}"), changes);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tightening_a_request_breaks_the_client_and_loosening_breaks_the_server() {
        assert_eq!(
            directional(Direction::Tighten, Usage::REQUEST),
            (Breaking, Nothing)
        );
        assert_eq!(
            directional(Direction::Loosen, Usage::REQUEST),
            (Additive, Breaking)
        );
        assert_eq!(
            directional(Direction::Tighten, Usage::RESPONSE),
            (Nothing, Breaking)
        );
        assert_eq!(
            directional(Direction::Loosen, Usage::RESPONSE),
            (Breaking, Additive)
        );
    }

    #[test]
    fn minimum_one_is_a_different_integer_type() {
        let plain = json!({"type": "integer", "format": "int64", "minimum": 0});
        let non_zero = json!({"type": "integer", "format": "int64", "minimum": 1});
        assert_ne!(signature(&plain), signature(&non_zero));
        let two = json!({"type": "integer", "format": "int64", "minimum": 2});
        assert_eq!(signature(&plain), signature(&two));
    }

    #[test]
    fn optional_arrays_and_defaults_are_not_options() {
        assert_eq!(
            field_type(
                &json!({"type": "array", "items": {"type": "string"}}),
                false
            ),
            "array<string >"
        );
        assert_eq!(
            field_type(&json!({"type": "integer", "default": 3}), false),
            "integer "
        );
        assert_eq!(
            field_type(&json!({"type": "string"}), false),
            "Option<string >"
        );
    }

    #[test]
    fn pointers_escape_slashes_and_tildes() {
        assert_eq!(
            pointer(&["paths", "/v2/a~b", "get"]),
            "/paths/~1v2~1a~0b/get"
        );
    }
}
