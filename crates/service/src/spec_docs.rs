//! `GET /openapi.yaml` and `GET /openapi.json`: the committed spec, byte for byte and without
//! credentials, so any tool can verify the running service against its own contract.

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::routing::get;

/// The spec as committed; `spec/openapi.json` is written from it by `cargo xtask codegen`.
const SPEC_YAML: &str = include_str!("../../../spec/openapi.yaml");
const SPEC_JSON: &str = include_str!("../../../spec/openapi.json");

/// The two routes, open to anyone (the document holds no secret).
pub fn router() -> Router {
    Router::new()
        .route(
            "/openapi.yaml",
            get(|| async { ([(CONTENT_TYPE, "application/yaml")], SPEC_YAML) }),
        )
        .route(
            "/openapi.json",
            get(|| async { ([(CONTENT_TYPE, "application/json")], SPEC_JSON) }),
        )
}
