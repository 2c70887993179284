//! The rules for operations, by `operationId`: parameters by (`in`, `name`), responses by status.

use super::model::{JSON, Node, Operation, Parameter, SpecView};
use super::rust_type::{field_type, signature};
use super::schemas::compare_constraints;
use super::{Changes, Direction, Usage, pointer};
use crate::lint::escape;
use crate::spec_diff::Class::{Additive, Breaking, None as Nothing};
use crate::spec_diff::{DiffError, Impact};
use std::collections::BTreeMap;

pub(super) fn compare_operations(
    old: &SpecView<'_>,
    new: &SpecView<'_>,
    changes: &mut Changes,
) -> Result<(), DiffError> {
    let old_ops = old.operations();
    let new_ops = new.operations();
    for (id, before) in old_ops {
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
        both.compare_parameters(changes)?;
        both.compare_request_body(changes)?;
        both.compare_responses(changes)?;
        // Tags pick the client (and trait) an operation is in; security the credentials.
        if before.value.security != after.value.security {
            changes.add(
                format!("{}/security", after.pointer()),
                format!("{id}: security changed"),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
        if before.value.tags != after.value.tags {
            changes.add(
                format!("{}/tags", after.pointer()),
                format!("{id}: tags changed"),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
        if before.item.parameters != after.item.parameters {
            changes.add(
                pointer(&["paths", after.path, "parameters"]),
                format!("{}: path-level parameters changed", after.path),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
    }
    for (id, after) in new_ops {
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
    Ok(())
}

/// One operation in the two versions of the spec, with the documents it comes from.
struct BothVersions<'a> {
    id: &'a str,
    old: &'a SpecView<'a>,
    new: &'a SpecView<'a>,
    before: &'a Operation<'a>,
    after: &'a Operation<'a>,
}

pub(super) fn parameter_pointer(op: &Operation<'_>, param: &Parameter<'_>) -> String {
    match &param.component {
        Some(component) => component.clone(),
        None => format!("{}/parameters/{}", op.pointer(), param.index),
    }
}

/// A parameter's schema, or the signature of a parameter without one (`content`).
fn schema_signature(param: &Parameter<'_>) -> String {
    param
        .schema()
        .map_or_else(|| "content".to_owned(), signature)
}

impl BothVersions<'_> {
    fn compare_parameters(&self, changes: &mut Changes) -> Result<(), DiffError> {
        let (id, old, new, before, after) = (self.id, self.old, self.new, self.before, self.after);
        let old_params = old.parameters(before)?;
        let new_params = new.parameters(after)?;
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
            let (old_signature, new_signature) = (schema_signature(gone), schema_signature(came));
            if old_signature != new_signature
                || gone.serialization() != came.serialization()
                || gone.value.parameter_data_ref().format != came.value.parameter_data_ref().format
                    && (gone.schema().is_none() || came.schema().is_none())
            {
                changes.add(
                    at.clone(),
                    format!("{label} retyped: {old_signature} → {new_signature}"),
                    Impact::new(Nothing, Breaking, Breaking),
                );
            } else if gone.required() != came.required() {
                // The server resolves a `$ref`'d schema's default, so resolve before typing.
                let resolved_type = |view: &SpecView<'_>, param: &Parameter<'_>| {
                    param
                        .schema()
                        .and_then(|schema| view.resolve(schema))
                        .map(|schema| field_type(Node::Inline(schema), param.required()))
                };
                let server_type_changes = resolved_type(old, gone) != resolved_type(new, came);
                let server = if server_type_changes {
                    Breaking
                } else if came.required() {
                    Nothing
                } else {
                    // The implementer may now get a request without it.
                    Breaking
                };
                if came.required() {
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
            if let (Some(old_schema), Some(new_schema)) = (gone.schema(), came.schema()) {
                compare_constraints(
                    &label,
                    &format!("{at}/schema"),
                    old_schema,
                    new_schema,
                    Direction::usage(Usage::REQUEST),
                    changes,
                );
            }
        }
        for (key @ (location, name), came) in &new_params {
            if old_params.contains_key(key) {
                continue;
            }
            let label = format!("{id}: {location} parameter {name}");
            // A new use of a shared parameter too: point at the operation's list entry.
            let at = format!("{}/parameters/{}", after.pointer(), came.index);
            if came.required() {
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
        Ok(())
    }

    /// The body's media types, their Rust types and whether it is required; the constraints
    /// of an inline body schema like a request type's.
    fn compare_request_body(&self, changes: &mut Changes) -> Result<(), DiffError> {
        let (id, old, new, before, after) = (self.id, self.old, self.new, self.before, self.after);
        let (old_body, new_body) = (old.request_body(before)?, new.request_body(after)?);
        let shape = |body: &BTreeMap<&str, Option<Node<'_>>>| {
            body.iter()
                .map(|(media, schema)| {
                    format!("{media}: {}", schema.map_or_else(String::new, signature))
                })
                .collect::<Vec<_>>()
        };
        let at = format!("{}/requestBody", after.pointer());
        if shape(&old_body) != shape(&new_body)
            || old.request_body_required(before) != new.request_body_required(after)
        {
            changes.add(
                at.clone(),
                format!("{id}: request body changed"),
                Impact::new(Nothing, Breaking, Breaking),
            );
        }
        for (media, schema) in &old_body {
            if let (Some(old_schema), Some(Some(new_schema))) = (schema, new_body.get(media)) {
                compare_constraints(
                    &format!("{id}: request body"),
                    &format!("{at}/content/{}/schema", escape(media)),
                    *old_schema,
                    *new_schema,
                    Direction::usage(Usage::REQUEST),
                    changes,
                );
            }
        }
        Ok(())
    }

    fn compare_responses(&self, changes: &mut Changes) -> Result<(), DiffError> {
        let (id, old, new, before, after) = (self.id, self.old, self.new, self.before, self.after);
        let old_responses = old.responses(before)?;
        let new_responses = new.responses(after)?;
        let body_signature = |schema: &Option<Node<'_>>| schema.map_or_else(String::new, signature);
        for (status, old_schema) in &old_responses {
            let at = format!("{}/responses/{status}", after.pointer());
            match new_responses.get(status) {
                None => changes.add(
                    format!("{}/responses/{status}", before.pointer()),
                    // The response enum loses its variant; the client just stops expecting it.
                    format!("{id}: response {status} removed"),
                    Impact::new(Nothing, Nothing, Breaking),
                ),
                Some(new_schema) if body_signature(old_schema) != body_signature(new_schema) => {
                    changes.add(
                        at,
                        format!(
                            "{id}: response {status} body retyped: {} → {}",
                            body_signature(old_schema),
                            body_signature(new_schema)
                        ),
                        Impact::new(Nothing, Breaking, Breaking),
                    )
                }
                Some(new_schema) => {
                    if let (Some(old_schema), Some(new_schema)) = (old_schema, new_schema) {
                        compare_constraints(
                            &format!("{id}: response {status}"),
                            &format!("{at}/content/{}/schema", escape(JSON)),
                            *old_schema,
                            *new_schema,
                            Direction::usage(Usage::RESPONSE),
                            changes,
                        );
                    }
                }
            }
        }
        let (old_raw, new_raw) = (old.preserialized(before)?, new.preserialized(after)?);
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
        Ok(())
    }
}
