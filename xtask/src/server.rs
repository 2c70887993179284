//! Generates `courier-server`: per-operation request types, response enums, traits and routers.

use crate::models::ModelType;
use crate::{CodegenError, Spec};
use proc_macro2::TokenStream;

pub fn generate(_spec: &Spec, _models: &[ModelType]) -> Result<TokenStream, CodegenError> {
    Ok(TokenStream::new())
}
