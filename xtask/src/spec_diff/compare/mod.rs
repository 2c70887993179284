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
//!
//! In rooms: `model` reads a spec (lookups, the Rust type a schema becomes, constraints),
//! `schemas` and `operations` hold the rules for types and for operations; here the
//! accumulator, the entry point and the catch-all for everything else.

use super::{Change, Class, Impact, Report};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

use Class::{Additive, Breaking, None as Nothing};

mod model;
mod operations;
mod schemas;

use model::*;
use operations::*;
use schemas::*;

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

impl Changes {
    /// A change that breaks every user of a type: the models', and the client's and the
    /// implementers' where the type is used (see [`breaks_where_used`]).
    fn add_breaking_where_used(&mut self, pointer: String, what: String, usage: Usage) {
        let (client, server) = breaks_where_used(usage);
        self.add(pointer, what, Impact::new(Breaking, client, server));
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
