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
//! Everything else is documentation or metadata (`none`: `description`, `summary`, `example`,
//! `x-…`, `info`, ...), or reported as unclassified and `breaking` for all three: a change the
//! rules do not know is never waved through.
//!
//! The rules read the typed document of `courier-spec` (openapiv3), never its JSON: a field a
//! new openapiv3 adds is named by the compiler in `rest`, where every struct is destructured.
//!
//! In rooms: `model` reads a spec (lookups, uses, operations), `rust_type` gives the Rust type a
//! schema becomes, `constraints` its constraints,
//! `schemas` and `operations` hold the rules for types and for operations, `rest` classifies
//! every other field; here the accumulator and the entry point.

use super::{Change, Class, DiffError, Impact, Report};
use Class::{Additive, Breaking, None as Nothing};
use courier_spec::Spec;
use model::SpecView;
use operations::compare_operations;
use rest::compare_rest;
use schemas::compare_schemas;
use std::collections::BTreeMap;

mod constraints;
mod model;
mod operations;
mod rest;
mod rust_type;
mod schemas;

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

/// Every change between two specs, classified, worst first (then by pointer). A `$ref` that
/// does not resolve makes a spec incomparable.
pub fn diff(old: &Spec, new: &Spec) -> Result<Report, DiffError> {
    let old_view = SpecView::new(old)?;
    let new_view = SpecView::new(new)?;
    let mut changes = Changes::default();
    compare_schemas(&old_view, &new_view, &mut changes);
    compare_operations(&old_view, &new_view, &mut changes)?;
    compare_rest(old.openapi(), new.openapi(), &mut changes);
    let mut list: Vec<Change> = changes.by_pointer.into_values().collect();
    list.sort_by(|a, b| {
        b.impact
            .worst()
            .cmp(&a.impact.worst())
            .then_with(|| a.pointer.cmp(&b.pointer))
    });
    Ok(Report { changes: list })
}

/// Client and server classes of a change that breaks every user of a type, where it is used.
fn breaks_where_used(usage: Usage) -> (Class, Class) {
    let class = if usage.any() { Breaking } else { Nothing };
    (class, class)
}

impl Changes {
    /// A change that breaks every user of a type: the models', and the client's and the
    /// implementers' where the type is used (see [`breaks_where_used`]).
    fn add_breaking_where_used(&mut self, pointer: String, what: String, usage: Usage) {
        let (client, server) = breaks_where_used(usage);
        self.add(pointer, what, Impact::new(Breaking, client, server));
    }
}

#[cfg(test)]
mod tests {
    use super::constraints::constraint_changes;
    use super::model::Node;
    use super::rust_type::{field_type, signature};
    use super::{Additive, Breaking, Direction, Nothing, Usage, directional, pointer};
    use courier_spec::openapiv3::Schema;
    use serde_json::json;

    #[test]
    fn tightening_a_request_breaks_the_client_and_loosening_breaks_the_server() {
        let cases = [
            (Direction::Tighten, Usage::REQUEST, (Breaking, Nothing)),
            (Direction::Loosen, Usage::REQUEST, (Additive, Breaking)),
            (Direction::Tighten, Usage::RESPONSE, (Nothing, Breaking)),
            (Direction::Loosen, Usage::RESPONSE, (Breaking, Additive)),
        ];
        for (direction, usage, classes) in cases {
            assert_eq!(
                directional(direction, usage),
                classes,
                "{direction:?} {usage:?}"
            );
        }
    }

    fn schema(json: serde_json::Value) -> Schema {
        serde_json::from_value(json).expect("a schema")
    }

    #[test]
    fn minimum_one_is_a_different_integer_type() {
        let plain = schema(json!({"type": "integer", "format": "int64", "minimum": 0}));
        let non_zero = schema(json!({"type": "integer", "format": "int64", "minimum": 1}));
        let two = schema(json!({"type": "integer", "format": "int64", "minimum": 2}));
        let signature_of = |s: &Schema| signature(Node::Inline(s));
        assert_ne!(signature_of(&plain), signature_of(&non_zero));
        assert_eq!(signature_of(&plain), signature_of(&two));
    }

    #[test]
    fn optional_arrays_and_defaults_are_not_options() {
        let array = schema(json!({"type": "array", "items": {"type": "string"}}));
        let defaulted = schema(json!({"type": "integer", "default": 3}));
        let plain = schema(json!({"type": "string"}));
        assert_eq!(field_type(Node::Inline(&array), false), "array<string >");
        assert_eq!(field_type(Node::Inline(&defaulted), false), "integer ");
        assert_eq!(field_type(Node::Inline(&plain), false), "Option<string >");
        assert_eq!(
            field_type(Node::Ref("#/components/schemas/Page"), false),
            "Option<ref Page>"
        );
    }

    #[test]
    fn constraints_have_directions_and_flags_tighten_when_set() {
        let loose = schema(json!({"type": "array", "items": {"type": "string"}, "maxItems": 10}));
        let tight = schema(json!({
            "type": "array", "items": {"type": "string"}, "maxItems": 5, "uniqueItems": true
        }));
        let changes = constraint_changes(Node::Inline(&loose), Node::Inline(&tight));
        let directions: Vec<(&str, Direction)> = changes.iter().map(|(k, d, _)| (*k, *d)).collect();
        assert_eq!(
            directions,
            [
                ("maxItems", Direction::Tighten),
                ("uniqueItems", Direction::Tighten)
            ]
        );
        let back = constraint_changes(Node::Inline(&tight), Node::Inline(&loose));
        assert!(
            back.iter().all(|(_, d, _)| *d == Direction::Loosen),
            "{back:?}"
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
