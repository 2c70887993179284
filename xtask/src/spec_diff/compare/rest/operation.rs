//! The rest of an operation, field by field: its parameters, request body, responses and their
//! media types (see the parent module for how each field is classed).

use super::{both, compare_schema_rest, doc, extensions, inline, metadata, unclassified};
use crate::lint::escape;
use crate::spec_diff::compare::Changes;
use crate::spec_diff::compare::model::{JSON, Node};
use courier_spec::openapiv3::{
    MediaType, Operation as OperationObject, Parameter as ParameterObject, ParameterData,
    ParameterSchemaOrContent, ReferenceOr, RequestBody, Response, Responses,
};
use indexmap::IndexMap;

pub(super) fn compare_operation(
    at: &str,
    old: &OperationObject,
    new: &OperationObject,
    changes: &mut Changes,
) {
    let OperationObject {
        tags: _, // the operation rules
        summary,
        description,
        external_docs,
        operation_id: _, // the operation rules match operations by it
        parameters,
        request_body,
        responses,
        callbacks,
        deprecated,
        security: _, // the operation rules
        servers,
        extensions: own_extensions,
    } = old;
    doc(changes, at, "summary", summary, &new.summary);
    doc(changes, at, "description", description, &new.description);
    doc(
        changes,
        at,
        "externalDocs",
        external_docs,
        &new.external_docs,
    );
    let key = |p: &ParameterObject| {
        (
            courier_spec::location_of(p),
            p.parameter_data_ref().name.clone(),
        )
    };
    for before in parameters {
        let ReferenceOr::Item(before) = before else {
            continue;
        };
        let found = new
            .parameters
            .iter()
            .enumerate()
            .find_map(|(index, p)| match p {
                ReferenceOr::Item(p) if key(p) == key(before) => Some((index, p)),
                _ => None,
            });
        if let Some((index, after)) = found {
            compare_parameter(&format!("{at}/parameters/{index}"), before, after, changes);
        }
    }
    if let (Some(before), Some(after)) = (request_body, &new.request_body)
        && let Some((before, after)) = inline(before, after)
    {
        compare_request_body(&format!("{at}/requestBody"), before, after, changes);
    }
    compare_responses(
        &format!("{at}/responses"),
        responses,
        &new.responses,
        changes,
    );
    unclassified(changes, at, "callbacks", callbacks, &new.callbacks);
    doc(changes, at, "deprecated", deprecated, &new.deprecated);
    metadata(changes, at, "servers", servers, &new.servers);
    extensions(changes, at, own_extensions, &new.extensions);
}

pub(super) fn compare_parameter(
    at: &str,
    old: &ParameterObject,
    new: &ParameterObject,
    changes: &mut Changes,
) {
    match (old, new) {
        (
            ParameterObject::Query {
                parameter_data,
                allow_reserved,
                style: _, // the parameter rules: serialization
                allow_empty_value,
            },
            ParameterObject::Query {
                parameter_data: new_data,
                allow_reserved: new_allow_reserved,
                style: _,
                allow_empty_value: new_allow_empty_value,
            },
        ) => {
            unclassified(
                changes,
                at,
                "allowReserved",
                allow_reserved,
                new_allow_reserved,
            );
            unclassified(
                changes,
                at,
                "allowEmptyValue",
                allow_empty_value,
                new_allow_empty_value,
            );
            compare_parameter_data(at, parameter_data, new_data, changes);
        }
        (
            ParameterObject::Header {
                parameter_data,
                style: _,
            },
            ParameterObject::Header {
                parameter_data: new_data,
                style: _,
            },
        )
        | (
            ParameterObject::Path {
                parameter_data,
                style: _,
            },
            ParameterObject::Path {
                parameter_data: new_data,
                style: _,
            },
        )
        | (
            ParameterObject::Cookie {
                parameter_data,
                style: _,
            },
            ParameterObject::Cookie {
                parameter_data: new_data,
                style: _,
            },
        ) => compare_parameter_data(at, parameter_data, new_data, changes),
        // A parameter that moved (`in`) is another parameter to the rules.
        _ => {}
    }
}

fn compare_parameter_data(
    at: &str,
    old: &ParameterData,
    new: &ParameterData,
    changes: &mut Changes,
) {
    let ParameterData {
        name: _, // the parameter rules match parameters by it
        description,
        required: _, // the parameter rules
        deprecated,
        format,
        example,
        examples,
        explode: _, // the parameter rules: serialization
        extensions: own_extensions,
    } = old;
    doc(changes, at, "description", description, &new.description);
    doc(changes, at, "deprecated", deprecated, &new.deprecated);
    match (format, &new.format) {
        (ParameterSchemaOrContent::Schema(before), ParameterSchemaOrContent::Schema(after)) => {
            compare_schema_rest(
                &format!("{at}/schema"),
                Node::of(before),
                Node::of(after),
                changes,
            )
        }
        (ParameterSchemaOrContent::Content(before), ParameterSchemaOrContent::Content(after)) => {
            compare_media_types(&format!("{at}/content"), before, after, true, changes)
        }
        // Schema against content: the parameter rules call it retyped.
        _ => {}
    }
    doc(changes, at, "example", example, &new.example);
    doc(changes, at, "examples", examples, &new.examples);
    extensions(changes, at, own_extensions, &new.extensions);
}

/// Media types by name; `others_covered` when the rules compare every media type (request
/// bodies, parameters), not only `application/json` (responses).
pub(super) fn compare_media_types(
    at: &str,
    old: &IndexMap<String, MediaType>,
    new: &IndexMap<String, MediaType>,
    others_covered: bool,
    changes: &mut Changes,
) {
    for media in old.keys().chain(new.keys()) {
        let (before, after) = (old.get(media), new.get(media));
        match (before, after) {
            (Some(before), Some(after)) => {
                compare_media_type(&format!("{at}/{}", escape(media)), before, after, changes)
            }
            _ if others_covered || media == JSON => {}
            _ => unclassified(changes, at, media, &before, &after),
        }
    }
}

fn compare_media_type(at: &str, old: &MediaType, new: &MediaType, changes: &mut Changes) {
    let MediaType {
        schema,
        example,
        examples,
        encoding,
        extensions: own_extensions,
    } = old;
    if let (Some(before), Some(after)) = (schema, &new.schema) {
        compare_schema_rest(
            &format!("{at}/schema"),
            Node::of(before),
            Node::of(after),
            changes,
        );
    }
    doc(changes, at, "example", example, &new.example);
    doc(changes, at, "examples", examples, &new.examples);
    unclassified(changes, at, "encoding", encoding, &new.encoding);
    extensions(changes, at, own_extensions, &new.extensions);
}

pub(super) fn compare_request_body(
    at: &str,
    old: &RequestBody,
    new: &RequestBody,
    changes: &mut Changes,
) {
    let RequestBody {
        description,
        content,
        required: _, // the request body rule
        extensions: own_extensions,
    } = old;
    doc(changes, at, "description", description, &new.description);
    compare_media_types(
        &format!("{at}/content"),
        content,
        &new.content,
        true,
        changes,
    );
    extensions(changes, at, own_extensions, &new.extensions);
}

fn compare_responses(at: &str, old: &Responses, new: &Responses, changes: &mut Changes) {
    let Responses {
        default,
        responses,
        extensions: own_extensions,
    } = old;
    if let (Some(before), Some(after)) = (default, &new.default)
        && let Some((before, after)) = inline(before, after)
    {
        compare_response(&format!("{at}/default"), before, after, changes);
    }
    for (place, before, after) in both(at, responses, &new.responses) {
        if let Some((before, after)) = inline(before, after) {
            compare_response(&place, before, after, changes);
        }
    }
    extensions(changes, at, own_extensions, &new.extensions);
}

pub(super) fn compare_response(at: &str, old: &Response, new: &Response, changes: &mut Changes) {
    let Response {
        description,
        headers,
        content,
        links,
        extensions: own_extensions,
    } = old;
    doc(changes, at, "description", description, &new.description);
    unclassified(changes, at, "headers", headers, &new.headers);
    compare_media_types(
        &format!("{at}/content"),
        content,
        &new.content,
        false,
        changes,
    );
    unclassified(changes, at, "links", links, &new.links);
    extensions(changes, at, own_extensions, &new.extensions);
}
