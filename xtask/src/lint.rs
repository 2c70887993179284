//! Spec lint run before generation: the rules the generators rely on, reported with JSON pointers.
//!
//! progenitor and typify either panic or silently produce duplicate types when a spec breaks these
//! rules, so they are checked here first and every violation is reported at once, pointing at the
//! place in `spec/openapi.yaml` that needs to change. The document is read through `courier-spec`
//! like everywhere else; the pointers are built from the place each typed node came from.

use courier_spec::openapiv3::{
    self, Parameter, ParameterSchemaOrContent, QueryStyle, ReferenceOr, SchemaKind, Type,
};
use courier_spec::{Spec, extensions, location_of};
use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::fmt;

/// The schema of an entry as listed, whose fields the filter and order facts name.
const LISTED_ENTRY: &str = "WorkflowDLQMessage";

/// One violated rule, with the JSON pointer of the offending node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintError {
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for LintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Checks the whole document; an empty result means the generators can run.
pub fn lint(spec: &Spec) -> Vec<LintError> {
    let mut linter = Linter {
        spec,
        errors: Vec::new(),
    };
    linter.run();
    linter.errors
}

struct Linter<'a> {
    spec: &'a Spec,
    errors: Vec<LintError>,
}

impl<'a> Linter<'a> {
    fn error(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.errors.push(LintError {
            pointer: pointer.into(),
            message: message.into(),
        });
    }

    /// Follows a `$ref` of kind `T`; a dangling one is reported at `pointer`.
    fn resolve<T: courier_spec::Component>(
        &mut self,
        pointer: &str,
        item: &'a ReferenceOr<T>,
    ) -> Option<&'a T> {
        match self.spec.resolve(item) {
            Ok(target) => Some(target),
            Err(error) => {
                self.error(format!("{pointer}/$ref"), error.to_string());
                None
            }
        }
    }

    fn run(&mut self) {
        let openapi = self.spec.openapi();
        if openapi.openapi != "3.0.3" {
            self.error("/openapi", "must be \"3.0.3\"");
        }
        let declared_tags: BTreeSet<&str> =
            openapi.tags.iter().map(|tag| tag.name.as_str()).collect();
        for (name, schema) in self.spec.components::<openapiv3::Schema>() {
            // courier-server names each operation's types `{Operation}Request` and
            // `{Operation}Response`; a model with either ending would read as one of them, or
            // share its name outright, in any program that uses both crates.
            if let Some(suffix) = ["Request", "Response"]
                .into_iter()
                .find(|suffix| name.ends_with(suffix))
            {
                self.error(
                    format!("/components/schemas/{}", escape(name)),
                    format!(
                        "a schema name may not end in `{suffix}`: courier-server names each operation's own types that way (name the body for what it holds, as `WorkflowDlqPage`)"
                    ),
                );
            }
            let Ok(schema) = schema else { continue };
            if let Some(rust_type) = extensions::rust_type(schema) {
                let pointer = format!("/components/schemas/{}/x-courier-rust-type", escape(name));
                if rust_type.as_str() != Some("String") {
                    self.error(&pointer, "the only supported value is `String`");
                } else if !matches!(schema.schema_kind, SchemaKind::Type(Type::String(_))) {
                    self.error(pointer, "`String` needs a `type: string` schema");
                }
            }
        }
        if openapi.paths.paths.is_empty() {
            self.error("/paths", "the spec has no paths");
            return;
        }
        let mut operation_ids = BTreeSet::new();
        for (path, item) in &openapi.paths.paths {
            let item_pointer = format!("/paths/{}", escape(path));
            let ReferenceOr::Item(item) = item else {
                self.error(
                    &item_pointer,
                    "path items must be written inline, not as $ref",
                );
                continue;
            };
            if !item.parameters.is_empty() {
                self.error(
                    format!("{item_pointer}/parameters"),
                    "declare parameters on each operation, not on the path item",
                );
            }
            for (method, operation) in item.iter() {
                let pointer = format!("{item_pointer}/{method}");
                self.operation(&pointer, operation, &declared_tags, &mut operation_ids);
            }
        }
    }

    fn operation(
        &mut self,
        pointer: &str,
        operation: &'a openapiv3::Operation,
        declared_tags: &BTreeSet<&str>,
        operation_ids: &mut BTreeSet<String>,
    ) {
        match operation.operation_id.as_deref() {
            None => self.error(pointer, "operation has no operationId"),
            Some(id) if !operation_ids.insert(id.to_owned()) => self.error(
                format!("{pointer}/operationId"),
                format!("operationId `{id}` is used twice"),
            ),
            Some(_) => {}
        }
        if operation.tags.len() != 1 {
            self.error(
                format!("{pointer}/tags"),
                "operation needs exactly one tag (its interface)",
            );
        }
        for tag in &operation.tags {
            if !declared_tags.contains(tag.as_str()) {
                self.error(
                    format!("{pointer}/tags"),
                    format!("tag `{tag}` is not declared in /tags"),
                );
            }
        }
        for (field, text) in [
            ("summary", &operation.summary),
            ("description", &operation.description),
        ] {
            if text.as_deref().is_none_or(str::is_empty) {
                self.error(pointer, format!("operation has no {field}"));
            }
        }
        if operation.security.as_ref().is_none_or(Vec::is_empty) {
            self.error(pointer, "operation declares no security requirement");
        }
        for (index, parameter) in operation.parameters.iter().enumerate() {
            self.parameter(&format!("{pointer}/parameters/{index}"), parameter);
        }
        if let Some(order) = extensions::list_order(operation) {
            let order_pointer = format!("{pointer}/x-courier-order");
            match order {
                Err(error) => self.error(order_pointer, error),
                Ok(order) => {
                    if !extensions::ORDER_COMPARISONS.contains(&order.compare.as_str()) {
                        self.error(
                            &order_pointer,
                            format!(
                                "`compare: {}` is none of {:?}",
                                order.compare,
                                extensions::ORDER_COMPARISONS
                            ),
                        );
                    }
                    self.listed_field(&order_pointer, &order.field);
                }
            }
        }
        if let Some(body) = &operation.request_body {
            let body_pointer = format!("{pointer}/requestBody");
            if let Some(body) = self.resolve(&body_pointer, body) {
                self.content_schemas(&body_pointer, &body.content);
            }
        }
        self.responses(pointer, operation);
    }

    fn parameter(&mut self, pointer: &str, parameter: &'a ReferenceOr<Parameter>) {
        let Some(resolved) = self.resolve(pointer, parameter) else {
            return;
        };
        // A shared parameter is reported where it is written, in /components/parameters.
        let pointer = match parameter {
            ReferenceOr::Reference { reference } => reference.trim_start_matches('#').to_owned(),
            ReferenceOr::Item(_) => pointer.to_owned(),
        };
        let parameter = resolved;
        let data = parameter.parameter_data_ref();
        let name = &data.name;
        // The verifier checks every filter by these facts, so a filter without them could not
        // be checked, and facts on another parameter would mean nothing.
        let is_filter = extensions::group(parameter) == Some("DlqFilter");
        match (extensions::filter_match(parameter), is_filter) {
            (None, true) => self.error(
                &pointer,
                format!(
                    "filter `{name}` has no `x-courier-matches` (the fields it is compared with)"
                ),
            ),
            (Some(_), false) => self.error(
                format!("{pointer}/x-courier-matches"),
                format!(
                    "`{name}` is no `DlqFilter` parameter: `x-courier-matches` means nothing here"
                ),
            ),
            (Some(Err(error)), true) => self.error(format!("{pointer}/x-courier-matches"), error),
            (Some(Ok(matches)), true) => {
                let facts_pointer = format!("{pointer}/x-courier-matches");
                if !extensions::FILTER_COMPARISONS.contains(&matches.compare.as_str()) {
                    self.error(
                        &facts_pointer,
                        format!(
                            "`compare: {}` is none of {:?}",
                            matches.compare,
                            extensions::FILTER_COMPARISONS
                        ),
                    );
                }
                if matches.fields.is_empty() {
                    self.error(&facts_pointer, "`fields` names no field");
                }
                for field in &matches.fields {
                    self.listed_field(&facts_pointer, field);
                }
            }
            (None, false) => {}
        }
        let location = location_of(parameter);
        if !matches!(location, "query" | "path") {
            self.error(
                format!("{pointer}/in"),
                format!("parameter `{name}`: only query and path parameters are supported"),
            );
        }
        if data.description.as_deref().is_none_or(str::is_empty) {
            self.error(&pointer, format!("parameter `{name}` has no description"));
        }
        let ParameterSchemaOrContent::Schema(schema) = &data.format else {
            return self.error(&pointer, format!("parameter `{name}` has no schema"));
        };
        let schema_pointer = format!("{pointer}/schema");
        let ReferenceOr::Item(openapiv3::Schema {
            schema_kind: SchemaKind::Type(Type::Array(array)),
            ..
        }) = schema
        else {
            return self.primitive_or_ref(&schema_pointer, schema);
        };
        match parameter {
            Parameter::Query { style, .. } => {
                let explode = data.explode.unwrap_or(*style == QueryStyle::Form);
                if *style != QueryStyle::Form || !explode {
                    self.error(
                        &pointer,
                        format!("array parameter `{name}` must be `style: form, explode: true`"),
                    );
                }
            }
            _ => self.error(
                &schema_pointer,
                format!("array parameter `{name}` must be in the query"),
            ),
        }
        match &array.items {
            Some(items) => self.primitive_or_ref(&format!("{schema_pointer}/items"), items),
            None => self.error(
                &schema_pointer,
                format!("array parameter `{name}` has no items"),
            ),
        }
    }

    /// `field` must be a property of a listed entry (`WorkflowDlqMessage`).
    fn listed_field(&mut self, pointer: &str, field: &str) {
        let listed = self
            .spec
            .components::<openapiv3::Schema>()
            .find(|(name, _)| *name == LISTED_ENTRY)
            .and_then(|(_, schema)| schema.ok());
        let known = match listed.map(|schema| &schema.schema_kind) {
            Some(SchemaKind::Type(Type::Object(object))) => object.properties.contains_key(field),
            _ => false,
        };
        if !known {
            self.error(
                pointer,
                format!("`{field}` is not a property of `{LISTED_ENTRY}`"),
            );
        }
    }

    /// Parameters may only use primitive schemas or `$ref`s: an inline enum or object would be
    /// generated again inside the client instead of reusing the models crate's type.
    fn primitive_or_ref<S: Borrow<openapiv3::Schema>>(
        &mut self,
        pointer: &str,
        schema: &ReferenceOr<S>,
    ) {
        let schema: &openapiv3::Schema = match schema {
            ReferenceOr::Reference { reference } => {
                if let Err(error) = self.spec.resolve_ref::<openapiv3::Schema>(reference) {
                    self.error(format!("{pointer}/$ref"), error.to_string());
                }
                return;
            }
            ReferenceOr::Item(schema) => schema.borrow(),
        };
        let SchemaKind::Type(ty) = &schema.schema_kind else {
            return self.error(pointer, "schema has neither a primitive type nor a $ref");
        };
        let inline_enum = match ty {
            Type::String(string) => !string.enumeration.is_empty(),
            Type::Integer(integer) => !integer.enumeration.is_empty(),
            Type::Number(number) => !number.enumeration.is_empty(),
            Type::Boolean(boolean) => !boolean.enumeration.is_empty(),
            Type::Object(_) => {
                return self.error(
                    pointer,
                    "inline `object` schema: move it to /components/schemas and $ref it",
                );
            }
            Type::Array(_) => {
                return self.error(
                    pointer,
                    "inline `array` schema: move it to /components/schemas and $ref it",
                );
            }
        };
        if inline_enum {
            self.error(
                pointer,
                "inline enum: move it to /components/schemas and $ref it",
            );
        }
    }

    /// Bodies must be a `$ref` to a component, for the same reason as parameters. Returns the
    /// `$ref`s found.
    fn content_schemas(&mut self, pointer: &str, content: &'a openapiv3::Content) -> Vec<&'a str> {
        let mut refs = Vec::new();
        for (media_type, media) in content {
            let schema_pointer = format!("{pointer}/content/{}/schema", escape(media_type));
            match &media.schema {
                Some(ReferenceOr::Reference { reference }) => {
                    match self.spec.resolve_ref::<openapiv3::Schema>(reference) {
                        Ok(_) => refs.push(reference.as_str()),
                        Err(error) => {
                            self.error(format!("{schema_pointer}/$ref"), error.to_string())
                        }
                    }
                }
                _ => self.error(
                    schema_pointer,
                    "body schemas must be a $ref to /components/schemas",
                ),
            }
        }
        refs
    }

    /// progenitor panics unless all 2xx responses share one schema and all error responses share
    /// one schema.
    fn responses(&mut self, pointer: &str, operation: &'a openapiv3::Operation) {
        let responses_pointer = format!("{pointer}/responses");
        let responses = &operation.responses;
        let statuses = responses
            .responses
            .iter()
            .map(|(status, response)| (status.to_string(), response))
            .chain(
                responses
                    .default
                    .iter()
                    .map(|response| ("default".to_owned(), response)),
            );
        let mut success: BTreeSet<Option<&str>> = BTreeSet::new();
        let mut failure: BTreeSet<Option<&str>> = BTreeSet::new();
        let mut any = false;
        for (status, response) in statuses {
            any = true;
            let status_pointer = format!("{responses_pointer}/{}", escape(&status));
            let Some(response) = self.resolve(&status_pointer, response) else {
                continue;
            };
            let schema = self
                .content_schemas(&status_pointer, &response.content)
                .into_iter()
                .next();
            if status.starts_with('2') {
                success.insert(schema);
            } else if status.starts_with('4') || status.starts_with('5') || status == "default" {
                if schema.is_none() {
                    self.error(
                        &status_pointer,
                        "error responses must carry the error body schema",
                    );
                }
                failure.insert(schema);
            } else {
                self.error(
                    &status_pointer,
                    format!("status `{status}` is not supported"),
                );
            }
        }
        if !any {
            return self.error(responses_pointer, "operation has no responses");
        }
        if success.is_empty() {
            self.error(&responses_pointer, "operation has no 2xx response");
        }
        if success.len() > 1 {
            self.error(
                &responses_pointer,
                "all 2xx responses must share one schema",
            );
        }
        if failure.len() > 1 {
            self.error(
                &responses_pointer,
                "all error responses must share one schema",
            );
        }
    }
}

#[cfg(test)]
mod tests;
