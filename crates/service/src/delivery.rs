//! The operations of the hosted service that need a delivery engine, which the local service
//! does not have: they answer 501 with a body that says so.

use crate::api::Service;
use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;

/// What the official workflow client can ask of the hosted service and a local service without a
/// delivery engine cannot do: resume and restart failed runs, retry a failure callback. They
/// answer 501 with the error body saying so, never a 404 that reads like a wrong address; like
/// their neighbours they first want the service token (401 without it).
pub fn needs_delivery_engine(service: Arc<Service>) -> Router {
    async fn not_implemented(
        axum::extract::State(service): axum::extract::State<Arc<Service>>,
        headers: axum::http::HeaderMap,
        uri: axum::http::Uri,
    ) -> Response {
        use axum::response::IntoResponse as _;
        use courier_server::{MessagingApi, auth, query::Query};
        let query = Query::parse(uri.query().unwrap_or(""));
        let authenticated = match auth::messaging_credentials(&headers, &query) {
            Ok(credentials) => MessagingApi::authenticate(&*service, credentials).await,
            Err(rejection) => Err(rejection),
        };
        if let Err(rejection) = authenticated {
            return rejection.into_response();
        }
        courier_server::runtime::error(
            StatusCode::NOT_IMPLEMENTED,
            format!(
                "{} needs a delivery engine, which the local courier service does not have: it \
                 keeps the DLQ but delivers nothing; resume, restart and failure-callback retry \
                 are the hosted service's",
                uri.path()
            ),
        )
    }
    let post = || {
        axum::routing::post(not_implemented).fallback(courier_server::runtime::method_not_allowed)
    };
    Router::new()
        .route("/v2/workflows/dlq/resume", post())
        .route("/v2/workflows/dlq/restart", post())
        .route("/v2/workflows/dlq/callback/{dlqId}", post())
        .with_state(service)
}
