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
        MOUNTED_AT,
        BuiltOnFirstRequest {
            build: Arc::new(build),
            router: Arc::new(std::sync::OnceLock::new()),
        },
    )
}

/// Where the console lives; its routes are written with it.
const MOUNTED_AT: &str = "/console";

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
        // return addresses) are written in full, so the prefix goes back on (`/console` itself
        // comes in as `/console/`, which the console redirects alike).
        let stripped = request
            .uri()
            .path_and_query()
            .map_or("/", |path| path.as_str());
        if let Ok(whole) = format!("{MOUNTED_AT}{stripped}").parse() {
            *request.uri_mut() = whole;
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

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    /// What the console's router saw: the path and query it was asked for, and the one path
    /// parameter of its route, if any.
    async fn seen(router: Router, uri: &str) -> String {
        let request = axum::extract::Request::get(uri)
            .body(axum::body::Body::empty())
            .expect("request");
        let answer = router.oneshot(request).await.expect("infallible");
        let body = answer.into_body().collect().await.expect("body").to_bytes();
        String::from_utf8(body.to_vec()).expect("utf-8")
    }

    #[tokio::test]
    async fn the_mounted_console_is_built_once_on_its_first_request_and_sees_whole_paths() {
        let builds = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = builds.clone();
        let console = move || {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let echo = |uri: axum::http::Uri| async move { uri.to_string() };
            Router::new()
                .route("/console/", get(echo))
                .route(
                    "/console/dlq/{id}",
                    get(|axum::extract::Path(id): axum::extract::Path<String>,
                         uri: axum::http::Uri| async move { format!("{uri} {id}") }),
                )
        };
        let app = mount(
            Router::new().route("/other", get(|| async { "other" })),
            console,
        );
        assert_eq!(seen(app.clone(), "/other").await, "other");
        assert_eq!(
            builds.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "not before a console request"
        );
        assert_eq!(seen(app.clone(), "/console").await, "/console/");
        assert_eq!(seen(app.clone(), "/console/").await, "/console/");
        assert_eq!(
            seen(app.clone(), "/console/dlq/42?next=%2Fconsole").await,
            "/console/dlq/42?next=%2Fconsole 42"
        );
        assert_eq!(
            builds.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "built once, then kept"
        );
    }
}
