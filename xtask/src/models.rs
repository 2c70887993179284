//! Generates `courier-models`: typify's types for every component schema, nothing else.

use crate::{CodegenError, Spec};
use courier_spec::{extensions, openapiv3};
use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use progenitor::{GenerationSettings, Generator, TypePatch};
use typify::TypeDetails;

/// Derive added to every model type behind the crate's `schemars` feature.
const SCHEMARS_ATTR: &str = "#[cfg_attr(feature = \"schemars\", derive(::schemars::JsonSchema))]";

pub(crate) struct Models {
    pub tokens: TokenStream,
    /// The Rust name of every generated type (typify's sanitised Pascal case of the component
    /// name, e.g. `WorkflowDLQMessage` → `WorkflowDlqMessage`), with the traits it implements.
    pub type_names: Vec<ModelType>,
}

#[derive(Debug, Clone)]
pub(crate) struct ModelType {
    pub name: String,
    pub is_string_enum: bool,
    pub has_default: bool,
}

fn settings(spec: &Spec) -> GenerationSettings {
    let mut settings = GenerationSettings::new();
    // BTreeMap keeps header maps in a stable order, so serialised JSON (and snapshots) are stable.
    // The builder interface also makes typify emit a builder per struct
    // (`FailedWorkflowRun::builder().dlq_id(..)`), so a value is written field by field, the
    // optional ones defaulted, and a missing required field is an error that names it.
    settings
        .with_map_type("::std::collections::BTreeMap")
        .with_derive("PartialEq")
        .with_interface(progenitor::InterfaceStyle::Builder);
    for name in plain_string_components(spec) {
        settings.with_replacement(name, "::std::string::String", std::iter::empty());
    }
    settings
}

/// Components marked `x-courier-rust-type: String`: constrained in the spec (for validators and
/// readers) but a plain `String` in Rust, by their typify name.
pub(crate) fn plain_string_components(spec: &Spec) -> Vec<String> {
    component_names(spec, extensions::is_plain_string)
}

/// The typify names of the component schemas that pass `filter`.
fn component_names(spec: &Spec, filter: impl Fn(&openapiv3::Schema) -> bool) -> Vec<String> {
    spec.doc
        .components::<openapiv3::Schema>()
        .filter(|(_, schema)| schema.as_ref().is_ok_and(|schema| filter(schema)))
        .map(|(name, _)| name.to_upper_camel_case())
        .collect()
}

/// Whether the empty value of a schema is one the spec allows, so that its type may derive
/// `Default`: an array without `minItems`, a map (an object without properties), or an object
/// whose required properties are all such. A required string or number has no value that is
/// valid by construction, so structs with one get a builder only.
fn empty_is_valid(spec: &Spec, schema: &openapiv3::Schema) -> bool {
    use openapiv3::{SchemaKind, Type};
    match &schema.schema_kind {
        SchemaKind::Type(Type::Array(array)) => array.min_items.unwrap_or(0) == 0,
        SchemaKind::Type(Type::Object(object)) => object.required.iter().all(|name| {
            object
                .properties
                .get(name)
                .and_then(|property| spec.doc.resolve_boxed(property).ok())
                .is_some_and(|property| empty_is_valid(spec, property))
        }),
        _ => false,
    }
}

fn types_only(spec: &Spec) -> openapiv3::OpenAPI {
    let mut openapi = spec.openapi().clone();
    openapi.paths = Default::default();
    openapi
}

pub(crate) fn generate(spec: &Spec) -> Result<Models, CodegenError> {
    let openapi = types_only(spec);
    // First pass: learn typify's names, which the patches below are keyed by.
    let mut first = Generator::new(&settings(spec));
    first
        .generate_tokens(&openapi)
        .map_err(|e| CodegenError::Generator(e.to_string()))?;
    let component_defaults = component_names(spec, |schema| schema.schema_data.default.is_some());
    let mut type_names: Vec<ModelType> = first
        .get_type_space()
        .iter_types()
        .filter_map(|ty| {
            let is_string_enum = match ty.details() {
                TypeDetails::Enum(_) => true,
                TypeDetails::Struct(_) | TypeDetails::Newtype(_) => false,
                _ => return None,
            };
            let name = ty.name();
            let has_default = component_defaults.contains(&name);
            Some(ModelType {
                name,
                is_string_enum,
                has_default,
            })
        })
        .collect();
    type_names.sort_by(|a, b| a.name.cmp(&b.name));

    let mut settings = settings(spec);
    let mut patch = TypePatch::default();
    patch.with_attr(SCHEMARS_ATTR);
    let mut defaultable_patch = patch.clone();
    defaultable_patch.with_derive("Default");
    let defaultable = component_names(spec, |schema| empty_is_valid(spec, schema));
    for ty in &type_names {
        let patch = if defaultable.contains(&ty.name) {
            &defaultable_patch
        } else {
            &patch
        };
        settings.with_patch(&ty.name, patch);
    }
    let mut generator = Generator::new(&settings);
    generator
        .generate_tokens(&openapi)
        .map_err(|e| CodegenError::Generator(e.to_string()))?;
    let renames = crate::postprocess::enum_variant_names(spec)?;
    let tokens =
        crate::postprocess::rename_enum_variants(generator.get_type_space().to_stream(), &renames)?;
    Ok(Models { tokens, type_names })
}
