//! Everything the rules in `schemas` and `operations` do not classify, field by field of the
//! typed document: documentation and metadata are `none`, anything else is unclassified and
//! `breaking` for all three crates.
//!
//! Each openapiv3 struct is destructured here without `..`: a field the rules cover is bound
//! to `_` with the rule named beside it, every other field is compared. So a field a new
//! openapiv3 adds is named by the compiler here, and cannot pass unclassified.

use super::Changes;
use super::model::{Node, children};
use crate::lint::escape;
use crate::spec_diff::Class::Breaking;
use crate::spec_diff::Impact;
use courier_spec::openapiv3::{
    Components, OpenAPI, PathItem, Paths, ReferenceOr, SchemaData, SecurityScheme,
};
use indexmap::IndexMap;
use operation::{compare_operation, compare_parameter, compare_request_body, compare_response};
use serde_json::Value;
use std::collections::BTreeSet;

mod operation;

/// What a field that differs is, for the classes: see [`note`].
#[derive(Clone, Copy)]
enum Kind {
    /// Prose, examples, deprecation and the `x-` extensions no generator reads: they reach the
    /// generated code as doc comments at most.
    Documentation,
    /// Not in the generated code: `info.version` is sent as a header the service ignores,
    /// server addresses are given at run time, tag names are compared per operation, response
    /// headers are not read by any generator.
    Metadata,
    /// A change no rule knows: never waved through.
    Unclassified,
}

/// Adds the change at `{at}/{key}` when `before` and `after` differ, classed by `kind`.
fn note<T: PartialEq>(
    changes: &mut Changes,
    kind: Kind,
    (at, key): (&str, &str),
    before: &T,
    after: &T,
) {
    if before == after {
        return;
    }
    let place = format!("{at}/{}", escape(key));
    let (what, impact) = match kind {
        Kind::Documentation => (format!("documentation changed ({key})"), Impact::NONE),
        Kind::Metadata => (format!("metadata changed ({key})"), Impact::NONE),
        Kind::Unclassified => (
            format!("unclassified change at {place} (assumed breaking)"),
            Impact::new(Breaking, Breaking, Breaking),
        ),
    };
    changes.add(place, what, impact);
}

fn doc<T: PartialEq>(changes: &mut Changes, at: &str, key: &str, before: &T, after: &T) {
    note(changes, Kind::Documentation, (at, key), before, after);
}

fn metadata<T: PartialEq>(changes: &mut Changes, at: &str, key: &str, before: &T, after: &T) {
    note(changes, Kind::Metadata, (at, key), before, after);
}

fn unclassified<T: PartialEq>(changes: &mut Changes, at: &str, key: &str, before: &T, after: &T) {
    note(changes, Kind::Unclassified, (at, key), before, after);
}

/// `x-` extensions: those that shape generated code are unclassified, except the one a rule
/// classifies (`x-courier-preserialized`, see the response rules); the rest is documentation.
fn extensions(
    changes: &mut Changes,
    at: &str,
    before: &IndexMap<String, Value>,
    after: &IndexMap<String, Value>,
) {
    use courier_spec::extensions::{PRESERIALIZED, SHAPING_GENERATED_CODE};
    let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for key in keys {
        let kind = if key != PRESERIALIZED && SHAPING_GENERATED_CODE.contains(&key.as_str()) {
            Kind::Unclassified
        } else {
            Kind::Documentation
        };
        note(changes, kind, (at, key), &before.get(key), &after.get(key));
    }
}

/// The entries of two maps present in both, with their place.
fn both<'a, K: std::hash::Hash + Eq + std::fmt::Display, V>(
    at: &str,
    before: &'a IndexMap<K, V>,
    after: &'a IndexMap<K, V>,
) -> Vec<(String, &'a V, &'a V)> {
    before
        .iter()
        .filter_map(|(key, old)| {
            let new = after.get(key)?;
            Some((format!("{at}/{}", escape(&key.to_string())), old, new))
        })
        .collect()
}

/// Both items inline: their documentation is compared here. A `$ref` on either side is
/// compared by the rules (which follow it) and documented where it points.
fn inline<'a, T>(before: &'a ReferenceOr<T>, after: &'a ReferenceOr<T>) -> Option<(&'a T, &'a T)> {
    match (before, after) {
        (ReferenceOr::Item(old), ReferenceOr::Item(new)) => Some((old, new)),
        _ => None,
    }
}

pub(super) fn compare_rest(old: &OpenAPI, new: &OpenAPI, changes: &mut Changes) {
    let OpenAPI {
        openapi,
        info,
        servers,
        paths,
        components,
        security,
        tags,
        external_docs,
        extensions: own_extensions,
    } = old;
    unclassified(changes, "", "openapi", openapi, &new.openapi);
    metadata(changes, "", "info", info, &new.info);
    metadata(changes, "", "servers", servers, &new.servers);
    compare_paths(paths, &new.paths, changes);
    let empty = Components::default();
    compare_components(
        components.as_ref().unwrap_or(&empty),
        new.components.as_ref().unwrap_or(&empty),
        changes,
    );
    // The default of every operation without its own `security`.
    unclassified(changes, "", "security", security, &new.security);
    metadata(changes, "", "tags", tags, &new.tags);
    doc(
        changes,
        "",
        "externalDocs",
        external_docs,
        &new.external_docs,
    );
    extensions(changes, "", own_extensions, &new.extensions);
}

fn compare_paths(old: &Paths, new: &Paths, changes: &mut Changes) {
    let Paths {
        paths,
        extensions: own_extensions,
    } = old;
    extensions(changes, "/paths", own_extensions, &new.extensions);
    for (at, before, after) in both("/paths", paths, &new.paths) {
        match inline(before, after) {
            Some((before, after)) => compare_path_item(&at, before, after, changes),
            // A path item `$ref`: the reader refuses these before the rules run.
            None => unclassified(changes, &at, "$ref", before, after),
        }
    }
}

fn compare_path_item(at: &str, old: &PathItem, new: &PathItem, changes: &mut Changes) {
    let PathItem {
        summary,
        description,
        get,
        put,
        post,
        delete,
        options,
        head,
        patch,
        trace,
        servers,
        parameters: _, // the operation rules: path-level parameters
        extensions: own_extensions,
    } = old;
    doc(changes, at, "summary", summary, &new.summary);
    doc(changes, at, "description", description, &new.description);
    let methods = [
        ("get", get, &new.get),
        ("put", put, &new.put),
        ("post", post, &new.post),
        ("delete", delete, &new.delete),
        ("options", options, &new.options),
        ("head", head, &new.head),
        ("patch", patch, &new.patch),
        ("trace", trace, &new.trace),
    ];
    for (method, before, after) in methods {
        // An operation added or removed is the operation rules'.
        if let (Some(before), Some(after)) = (before, after) {
            compare_operation(&format!("{at}/{method}"), before, after, changes);
        }
    }
    metadata(changes, at, "servers", servers, &new.servers);
    extensions(changes, at, own_extensions, &new.extensions);
}

fn compare_components(old: &Components, new: &Components, changes: &mut Changes) {
    let Components {
        schemas,
        responses,
        parameters,
        examples,
        request_bodies,
        headers,
        security_schemes,
        links,
        callbacks,
        extensions: own_extensions,
    } = old;
    let at = "/components";
    // Added and removed types are the type rules'.
    for (place, before, after) in both(&format!("{at}/schemas"), schemas, &new.schemas) {
        compare_schema_rest(&place, Node::of(before), Node::of(after), changes);
    }
    // Components used by operations are compared there; unused ones generate nothing.
    for (place, before, after) in both(&format!("{at}/responses"), responses, &new.responses) {
        if let Some((before, after)) = inline(before, after) {
            compare_response(&place, before, after, changes);
        }
    }
    for (place, before, after) in both(&format!("{at}/parameters"), parameters, &new.parameters) {
        if let Some((before, after)) = inline(before, after) {
            compare_parameter(&place, before, after, changes);
        }
    }
    doc(changes, at, "examples", examples, &new.examples);
    let bodies = both(
        &format!("{at}/requestBodies"),
        request_bodies,
        &new.request_bodies,
    );
    for (place, before, after) in bodies {
        if let Some((before, after)) = inline(before, after) {
            compare_request_body(&place, before, after, changes);
        }
    }
    unclassified(changes, at, "headers", headers, &new.headers);
    let schemes_at = format!("{at}/securitySchemes");
    for name in security_schemes.keys().chain(new.security_schemes.keys()) {
        let (before, after) = (security_schemes.get(name), new.security_schemes.get(name));
        match (before, after) {
            (Some(ReferenceOr::Item(before)), Some(ReferenceOr::Item(after))) => {
                compare_security_scheme(
                    &format!("{schemes_at}/{}", escape(name)),
                    before,
                    after,
                    changes,
                )
            }
            _ => unclassified(changes, &schemes_at, name, &before, &after),
        }
    }
    unclassified(changes, at, "links", links, &new.links);
    unclassified(changes, at, "callbacks", callbacks, &new.callbacks);
    extensions(changes, at, own_extensions, &new.extensions);
}

/// A security scheme's credentials are unclassified; its description is documentation.
fn compare_security_scheme(
    at: &str,
    old: &SecurityScheme,
    new: &SecurityScheme,
    changes: &mut Changes,
) {
    /// The scheme without its documentation, and that documentation.
    fn split(scheme: &SecurityScheme) -> (SecurityScheme, Option<String>, IndexMap<String, Value>) {
        let mut bare = scheme.clone();
        let (description, own_extensions) = match &mut bare {
            SecurityScheme::APIKey {
                description,
                extensions,
                ..
            }
            | SecurityScheme::HTTP {
                description,
                extensions,
                ..
            }
            | SecurityScheme::OAuth2 {
                description,
                extensions,
                ..
            }
            | SecurityScheme::OpenIDConnect {
                description,
                extensions,
                ..
            } => (description.take(), std::mem::take(extensions)),
        };
        (bare, description, own_extensions)
    }
    let (old_bare, old_description, old_extensions) = split(old);
    let (new_bare, new_description, new_extensions) = split(new);
    if old_bare != new_bare {
        changes.add(
            at.to_owned(),
            format!("unclassified change at {at} (assumed breaking)"),
            Impact::new(Breaking, Breaking, Breaking),
        );
    }
    doc(
        changes,
        at,
        "description",
        &old_description,
        &new_description,
    );
    extensions(changes, at, &old_extensions, &new_extensions);
}

/// A schema and the inline schemas inside it: the type rules compare its kind, properties,
/// enum values and constraints (see [`signature`] and [`constraints`]); the rest is here.
fn compare_schema_rest(at: &str, before: Node<'_>, after: Node<'_>, changes: &mut Changes) {
    let (Some(old), Some(new)) = (before.inline(), after.inline()) else {
        return;
    };
    let SchemaData {
        nullable: _, // the type rules: part of the Rust type
        read_only,
        write_only,
        deprecated,
        external_docs,
        example,
        title,
        description,
        discriminator,
        default,
        extensions: own_extensions,
    } = &old.schema_data;
    let new_data = &new.schema_data;
    unclassified(changes, at, "readOnly", read_only, &new_data.read_only);
    unclassified(changes, at, "writeOnly", write_only, &new_data.write_only);
    doc(changes, at, "deprecated", deprecated, &new_data.deprecated);
    doc(
        changes,
        at,
        "externalDocs",
        external_docs,
        &new_data.external_docs,
    );
    doc(changes, at, "example", example, &new_data.example);
    doc(changes, at, "title", title, &new_data.title);
    doc(
        changes,
        at,
        "description",
        description,
        &new_data.description,
    );
    unclassified(
        changes,
        at,
        "discriminator",
        discriminator,
        &new_data.discriminator,
    );
    // A new default changes what an omitted value means; no rule weighs that yet.
    unclassified(changes, at, "default", default, &new_data.default);
    extensions(changes, at, own_extensions, &new_data.extensions);
    let new_children = children(new);
    for (place, old_child) in children(old) {
        if let Some((_, new_child)) = new_children.iter().find(|(p, _)| *p == place) {
            compare_schema_rest(&format!("{at}{place}"), old_child, *new_child, changes);
        }
    }
}
