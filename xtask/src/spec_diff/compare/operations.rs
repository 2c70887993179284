//! The rules for operations, by `operationId`: parameters by (`in`, `name`), responses by status.

use super::*;

pub(super) fn compare_operations(old: &SpecView, new: &SpecView, changes: &mut Changes) {
    let old_ops = old.operations();
    let new_ops = new.operations();
    for (id, before) in &old_ops {
        let Some(after) = new_ops.get(id) else {
            // The call is gone; an implementation's method matches no trait method (E0407).
            changes.add(
                before.pointer(),
                format!("operation {id} removed ({})", before.endpoint()),
                Impact::new(Nothing, Breaking, Breaking),
            );
            continue;
        };
        if before.path != after.path || before.method != after.method {
            changes.add(
                after.pointer(),
                format!(
                    "operation {id} moved: {} → {}",
                    before.endpoint(),
                    after.endpoint()
                ),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
        let both = BothVersions {
            id,
            old,
            new,
            before,
            after,
        };
        both.compare_parameters(changes);
        both.compare_responses(changes);
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
                format!("operation {id} added ({})", after.endpoint()),
                Impact::new(Nothing, Additive, Breaking),
            );
        }
    }
}

/// One operation in the two versions of the spec, with the documents it comes from.
struct BothVersions<'a> {
    id: &'a str,
    old: &'a SpecView<'a>,
    new: &'a SpecView<'a>,
    before: &'a Operation<'a>,
    after: &'a Operation<'a>,
}

pub(super) fn parameter_pointer(op: &Operation, param: &Parameter) -> String {
    match &param.component {
        Some(component) => component.clone(),
        None => format!("{}/parameters/{}", op.pointer(), param.index),
    }
}

impl BothVersions<'_> {
    fn compare_parameters(&self, changes: &mut Changes) {
        let (id, old, new, before, after) = (self.id, self.old, self.new, self.before, self.after);
        let old_params = old.parameters(before.value);
        let new_params = new.parameters(after.value);
        let required =
            |p: &Parameter| p.value.get("required").and_then(Value::as_bool) == Some(true);
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

    fn compare_responses(&self, changes: &mut Changes) {
        let (id, old, new, before, after) = (self.id, self.old, self.new, self.before, self.after);
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
        let (old_raw, new_raw) = (
            old.preserialized(before.value),
            new.preserialized(after.value),
        );
        for status in old_raw.symmetric_difference(&new_raw) {
            if old_responses.contains_key(status) && new_responses.contains_key(status) {
                // The variant's payload changes between `T` and `JsonBody<T>`: implementations
                // must change how they build it; clients see the same bytes.
                let now = if new_raw.contains(status) {
                    "pre-serialised (JsonBody)"
                } else {
                    "a value"
                };
                changes.add(
                    format!("{}/responses/{status}", after.pointer()),
                    format!("{id}: response {status} body now taken as {now} by the server"),
                    Impact::new(Nothing, Nothing, Breaking),
                );
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
}
