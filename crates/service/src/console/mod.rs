//! The console at `/console`: the DLQ, topics, search indexes and statistics as HTML pages.
//!
//! Every page is rendered from the service's own code paths: queries are parsed by the generated
//! `*Request::parse` functions (so filters, multi-value rules and errors are the API's), and
//! data comes from the same `MessagingApi`/`ManagementApi` methods of [`Service`] the API
//! routes call. Templates are `maud` macros, checked at compile time; the stylesheet and the
//! small script are embedded in the binary. Who may look is decided in `auth`.

mod assets;
mod auth;
mod chart;
pub mod filters;
mod pages;
mod sessions;
mod view;
mod viewer;

use crate::api::Service;
use crate::signin::SignInGuard;
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{Redirect, Response};
use axum::routing::{get, post};
use std::sync::Arc;

pub use auth::{LoginForm, SESSION_COOKIE, read_login_form, safe_next};
pub(crate) use auth::{MAX_FORM_BYTES, form_too_large};
pub use view::login as login_form_page;
pub use viewer::CSRF_FIELD;

/// What every console handler shares.
pub struct Console {
    service: Arc<Service>,
    sessions: sessions::Sessions,
    /// Failed sign-ins per client address, shared with the API's listeners.
    guard: Arc<SignInGuard>,
    /// Whether the session cookie gets `Secure` (the service serves HTTPS).
    secure_cookies: bool,
}

/// The console's routes, all under `/console`, for the management listener.
pub fn router(service: Arc<Service>, guard: Arc<SignInGuard>, secure_cookies: bool) -> Router {
    let console = Arc::new(Console {
        sessions: sessions::Sessions::of(&service),
        service,
        guard,
        secure_cookies,
    });
    let signed_in = Router::new()
        .route("/console", get(|| async { Redirect::to("/console/dlq") }))
        .route("/console/", get(|| async { Redirect::to("/console/dlq") }))
        .route("/console/dlq", get(pages::dlq_list))
        .route("/console/dlq/{dlq_id}", get(pages::dlq_detail))
        .route("/console/dlq/{dlq_id}/delete", post(pages::dlq_delete))
        .route("/console/runs/{run_id}/cancel", post(pages::run_cancel))
        .route(
            "/console/bulk-delete",
            get(pages::bulk_delete_confirm).post(pages::bulk_delete),
        )
        .route("/console/topics", get(pages::topics))
        .route("/console/search", get(pages::indexes))
        .route("/console/search/{id}", get(pages::index))
        .route("/console/stats", get(pages::stats))
        .route("/console/logout", post(auth::logout))
        .route("/console/{*rest}", get(pages::not_found))
        .route_layer(axum::middleware::from_fn_with_state(
            console.clone(),
            auth::require_viewer,
        ));
    let public = Router::new()
        .route("/console/login", get(auth::login_page).post(auth::login))
        .route("/console/assets/{name}", get(assets::serve));
    signed_in
        .merge(public)
        .layer(axum::middleware::from_fn(security_headers))
        .with_state(console)
}

/// Mounts the console at `/console` on `router`, its routes built by `build` on the console's
/// first request. Building them at every start cost a fresh `courier serve` a quarter of its
/// routers' instructions, for pages most services never serve.
pub fn mount(router: Router, build: impl Fn() -> Router + Send + Sync + 'static) -> Router {
    router.nest_service(
        "/console",
        BuiltOnFirstRequest {
            build: Arc::new(build),
            router: Arc::new(std::sync::OnceLock::new()),
        },
    )
}

/// A router built on its first request, then kept.
#[derive(Clone)]
struct BuiltOnFirstRequest {
    build: Arc<dyn Fn() -> Router + Send + Sync>,
    router: Arc<std::sync::OnceLock<Router>>,
}

impl tower::Service<axum::extract::Request> for BuiltOnFirstRequest {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = axum::routing::future::RouteFuture<std::convert::Infallible>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: axum::extract::Request) -> Self::Future {
        // `nest_service` strips `/console` from the path; the console's routes (and the pages'
        // return addresses) are written in full, so each request goes in as it came.
        if let Some(axum::extract::OriginalUri(uri)) = request.extensions().get().cloned() {
            *request.uri_mut() = uri;
        }
        let mut router = self.router.get_or_init(|| (self.build)()).clone();
        tower::Service::call(&mut router, request)
    }
}

/// Pages load nothing from another host and run no inline script, so a strict policy costs
/// nothing and blunts any markup that escaped escaping. Pages hold account data: never cached.
async fn security_headers(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let is_asset = request.uri().path().starts_with("/console/assets/");
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if !is_asset {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
