//! Who gets past the credentials and how much: the sign-in guard and the account's rate limit
//! (`docs/decisions.md#d16-order-of-checks`, `docs/decisions.md#d18-rate-limit-headers`). The
//! interface's operations take no body: nothing here or after it reads one (bodies are read,
//! after their routes' credentials, by `crate::body`).

use crate::api::Service;
use crate::signin::{CredentialKind, SignInGuard};
use crate::time::now_ms;
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;

/// Which interface's credentials a route takes.
#[derive(Clone, Copy)]
pub enum Interface {
    Messaging,
    Management,
}

/// What [`admit`] needs: the service, the sign-in guard shared by every listener, the interface.
#[derive(Clone)]
pub struct AdmitState {
    pub service: Arc<Service>,
    pub guard: Arc<SignInGuard>,
    pub interface: Interface,
}

/// The sign-in guard, then the rate limit, after the credentials (`docs/decisions.md#d16-order-of-checks`). A client the
/// sign-in guard has closed gets 429 before its credentials are compared, and wrong credentials
/// count as a failed sign-in of the client's address ([`crate::signin`]). A request whose
/// credentials are missing or wrong goes on to the generated handler, which answers 401, and
/// spends nothing of the account's limit; only an authenticated request is counted, and refused
/// with 429 before its parameters are read. The handler checks the credentials again; a
/// comparison costs nanoseconds and keeps the generated router the only place that decides the
/// 401.
pub async fn admit(
    axum::extract::State(state): axum::extract::State<AdmitState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    use courier_server::{ManagementApi, MessagingApi, auth, query::Query};
    let AdmitState {
        service,
        guard,
        interface,
    } = state;
    let client = crate::signin::client_address(request.extensions());
    let query = Query::parse(request.uri().query().unwrap_or(""));
    let closed = |guard: &SignInGuard| guard.wait(client).map(crate::signin::too_many_failures);
    let authenticated = match interface {
        Interface::Messaging => match auth::messaging_credentials(request.headers(), &query) {
            Err(_) => false,
            Ok(credentials) => {
                if let Some(refusal) = closed(&guard) {
                    return refusal;
                }
                let right = MessagingApi::authenticate(&*service, credentials)
                    .await
                    .is_ok();
                if !right {
                    guard.failed(client, CredentialKind::ServiceToken);
                }
                right
            }
        },
        Interface::Management => match auth::management_credentials(request.headers(), &query) {
            Err(_) => false,
            Ok(credentials) => {
                if let Some(refusal) = closed(&guard) {
                    return refusal;
                }
                let right = ManagementApi::authenticate(&*service, credentials)
                    .await
                    .is_ok();
                if !right {
                    guard.failed(client, CredentialKind::ManagementKey);
                }
                right
            }
        },
    };
    if !authenticated {
        return next.run(request).await;
    }
    let decision = service.rate_limit().await;
    let mut response = match decision.refused {
        None => {
            // Authenticating read the account; the handler's second check needs no new read.
            let mut response = crate::api::account_read(next.run(request)).await;
            response.extensions_mut().insert(crate::metering::Admitted);
            response
        }
        Some(refusal) => too_many_requests(refusal),
    };
    rate_limit_headers(&mut response, &decision);
    response
}

fn too_many_requests(refusal: crate::ratelimit::Refusal) -> Response {
    let message = match refusal {
        crate::ratelimit::Refusal::PerSecond => {
            "too many requests: the account's max_requests_per_second is reached; retry after the time in Retry-After"
        }
        crate::ratelimit::Refusal::Daily => {
            "too many requests: the account's max_requests_per_day_hard is reached for this UTC day; retry after the time in Retry-After"
        }
    };
    courier_server::runtime::error(StatusCode::TOO_MANY_REQUESTS, message)
}

/// The rate-limit headers of an authenticated interface response (`docs/decisions.md#d18-rate-limit-headers`): the
/// per-second window as `Burst-RateLimit-*` always; the daily limit as `RateLimit-*` on a
/// success and on its own 429, but never on a per-second 429, whose `RateLimit-*` the official
/// clients would read as the daily limit. `Retry-After` on every 429.
fn rate_limit_headers(response: &mut Response, decision: &crate::ratelimit::Decision) {
    use crate::ratelimit::Refusal;
    use axum::http::{HeaderName, HeaderValue};
    // Constants: a name given as a string is parsed and checked on every insert, which was a
    // tenth of a get-one request's instructions (`bench/findings.md`, "Where a get-one
    // request's time goes").
    const BURST_LIMIT: HeaderName = HeaderName::from_static("burst-ratelimit-limit");
    const BURST_REMAINING: HeaderName = HeaderName::from_static("burst-ratelimit-remaining");
    const BURST_RESET: HeaderName = HeaderName::from_static("burst-ratelimit-reset");
    const LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
    const REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
    const RESET: HeaderName = HeaderName::from_static("ratelimit-reset");
    let now = now_ms();
    let headers = response.headers_mut();
    headers.reserve(7);
    let recent =
        |slot: Slowly, value: u64| RECENT.with_borrow_mut(|recent| recent.value(slot, value));
    let burst = &decision.per_second;
    headers.insert(BURST_LIMIT, recent(Slowly::BurstLimit, burst.limit));
    headers.insert(BURST_REMAINING, HeaderValue::from(burst.remaining));
    headers.insert(
        BURST_RESET,
        recent(Slowly::BurstReset, burst.reset_unix_seconds()),
    );
    if decision.refused != Some(Refusal::PerSecond) {
        let daily = &decision.daily;
        headers.insert(LIMIT, recent(Slowly::Limit, daily.limit));
        headers.insert(REMAINING, HeaderValue::from(daily.remaining));
        headers.insert(RESET, recent(Slowly::Reset, daily.reset_unix_seconds()));
    }
    let retry_after = match decision.refused {
        Some(Refusal::PerSecond) => burst.retry_after_seconds(now),
        Some(Refusal::Daily) => decision.daily.retry_after_seconds(now),
        None => return,
    };
    headers.insert(
        axum::http::header::RETRY_AFTER,
        HeaderValue::from(retry_after),
    );
}

/// The rate-limit headers whose values change seldom: the limits, and the resets (once a second
/// and once a day). The remaining counts change with every request and are formatted each time.
#[derive(Clone, Copy)]
enum Slowly {
    BurstLimit,
    BurstReset,
    Limit,
    Reset,
}

/// The last header value made for each [`Slowly`] header on this thread. A header value made
/// from a number is a new allocation; a clone of the last is a reference count, and most
/// requests send the same four values as the one before.
#[derive(Default)]
struct Recent([Option<(u64, axum::http::HeaderValue)>; 4]);

impl Recent {
    fn value(&mut self, slot: Slowly, value: u64) -> axum::http::HeaderValue {
        let Some(kept) = self.0.get_mut(slot as usize) else {
            return axum::http::HeaderValue::from(value);
        };
        match kept {
            Some((last, header)) if *last == value => header.clone(),
            _ => {
                let header = axum::http::HeaderValue::from(value);
                *kept = Some((value, header.clone()));
                header
            }
        }
    }
}

thread_local! {
    static RECENT: std::cell::RefCell<Recent> = std::cell::RefCell::default();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept value is sent only while it is the value asked for: a changed limit or a new
    /// reset time is formatted anew, in its own slot.
    #[test]
    fn a_recent_header_value_is_the_value_asked_for() {
        let mut recent = Recent::default();
        assert_eq!(recent.value(Slowly::Limit, 1000), "1000");
        assert_eq!(recent.value(Slowly::Limit, 1000), "1000");
        assert_eq!(recent.value(Slowly::Reset, 1_764_288_000), "1764288000");
        assert_eq!(recent.value(Slowly::Limit, 999), "999");
        assert_eq!(recent.value(Slowly::Reset, 1_764_288_001), "1764288001");
        assert_eq!(recent.value(Slowly::BurstLimit, 0), "0");
        assert_eq!(
            recent.value(Slowly::BurstReset, u64::MAX),
            u64::MAX.to_string()
        );
        assert_eq!(recent.value(Slowly::Limit, 999), "999");
    }
}
