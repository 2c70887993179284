//! Failed sign-ins per client address, and the backoff that follows them.
//!
//! Every credential kind counts into one tally per client IP address: the service token, the
//! management key (HTTP Basic on the API or the console), the console's login form and the
//! admin token. The first [`FAILURE_ALLOWANCE`] failures cost nothing; each one after that
//! closes the address for [`FIRST_BACKOFF`], doubled per further failure up to [`MAX_BACKOFF`].
//! While closed, every sign-in from that address is answered 429 with `Retry-After` before the
//! secret is even compared. A tally is forgotten [`FORGET_AFTER`] after its last failure.
//!
//! A success resets nothing: the tally belongs to the address, so a client holding one
//! credential cannot interleave successes to keep guessing another, and a rightful user signing
//! in elsewhere does not clear an attacker's tally. The price is that a rightful user behind the
//! attacker's address waits out the backoff too.
//!
//! A request without any credential is not a sign-in and is not counted; it gets its 401.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures an address may make before the backoff starts. High enough for a person's typos and
/// for the test suites that check every operation with wrong credentials from one address.
pub const FAILURE_ALLOWANCE: u32 = 200;
/// The wait after the first failure beyond the allowance.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait, however many failures.
pub const MAX_BACKOFF: Duration = Duration::from_secs(15 * 60);
/// How long after its last failure an address's tally is forgotten.
pub const FORGET_AFTER: Duration = Duration::from_secs(60 * 60);
/// Addresses tracked at most; beyond it the tallies longest quiet are dropped first, so many
/// addresses cannot grow the memory without bound.
const MAX_TRACKED: usize = 100_000;

/// Which secret a failed sign-in tried; logged with the client address, never the secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CredentialKind {
    ServiceToken,
    ManagementKey,
    ConsoleLogin,
    AdminToken,
}

impl CredentialKind {
    fn name(self) -> &'static str {
        match self {
            CredentialKind::ServiceToken => "service token",
            CredentialKind::ManagementKey => "management key (HTTP Basic)",
            CredentialKind::ConsoleLogin => "console login",
            CredentialKind::AdminToken => "admin token",
        }
    }
}

struct Tally {
    failures: u32,
    last_failure: Instant,
    closed_until: Option<Instant>,
}

/// The failed sign-ins of every client address.
#[derive(Default)]
pub struct SignInGuard {
    tallies: Mutex<HashMap<IpAddr, Tally>>,
}

/// The address a request came from: the peer of its connection, which the listener records.
/// Requests served without a listener (a router called in a test) share one unspecified address.
pub fn client_address(extensions: &axum::http::Extensions) -> IpAddr {
    extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
        .unwrap_or(IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED))
}

impl SignInGuard {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Tally>> {
        self.tallies
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How long `client` must still wait before it may try again; `None` when it may now.
    pub fn wait(&self, client: IpAddr) -> Option<Duration> {
        let now = Instant::now();
        let tallies = self.lock();
        let until = tallies.get(&client)?.closed_until?;
        until.checked_duration_since(now).filter(|d| !d.is_zero())
    }

    /// Records a failed sign-in of `kind` from `client` and logs it.
    pub fn failed(&self, client: IpAddr, kind: CredentialKind) {
        let now = Instant::now();
        let mut tallies = self.lock();
        if tallies.len() >= MAX_TRACKED && !tallies.contains_key(&client) {
            tallies.retain(|_, tally| now.duration_since(tally.last_failure) < FORGET_AFTER);
            if tallies.len() >= MAX_TRACKED
                && let Some(quietest) = tallies
                    .iter()
                    .min_by_key(|(_, tally)| tally.last_failure)
                    .map(|(address, _)| *address)
            {
                tallies.remove(&quietest);
            }
        }
        let tally = tallies.entry(client).or_insert(Tally {
            failures: 0,
            last_failure: now,
            closed_until: None,
        });
        if now.duration_since(tally.last_failure) >= FORGET_AFTER {
            tally.failures = 0;
            tally.closed_until = None;
        }
        tally.failures = tally.failures.saturating_add(1);
        tally.last_failure = now;
        let beyond = tally.failures.saturating_sub(FAILURE_ALLOWANCE);
        if beyond > 0 {
            tally.closed_until = Some(now + backoff(beyond));
        }
        let failures = tally.failures;
        drop(tallies);
        tracing::info!(client = %client, credential = kind.name(), failures, "sign-in failed");
    }
}

/// The wait after the `beyond`-th failure past the allowance: doubling from [`FIRST_BACKOFF`],
/// capped at [`MAX_BACKOFF`].
fn backoff(beyond: u32) -> Duration {
    let doublings = beyond.saturating_sub(1).min(31);
    FIRST_BACKOFF
        .saturating_mul(1u32 << doublings)
        .min(MAX_BACKOFF)
}

/// The 429 for a client that must wait: the JSON error body and `Retry-After` in whole seconds.
pub fn too_many_failures(wait: Duration) -> axum::response::Response {
    let seconds = retry_after_seconds(wait);
    let mut response = courier_server::runtime::error(
        axum::http::StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many failed sign-ins from this address: credentials are not checked for \
             another {seconds} s; retry after the time in Retry-After"
        ),
    );
    response
        .headers_mut()
        .insert("retry-after", axum::http::HeaderValue::from(seconds));
    response
}

/// `wait` rounded up to whole seconds, at least one.
pub fn retry_after_seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_and_stops_at_the_cap() {
        assert_eq!(backoff(1), FIRST_BACKOFF);
        assert_eq!(backoff(2), FIRST_BACKOFF * 2);
        assert_eq!(backoff(4), FIRST_BACKOFF * 8);
        assert_eq!(backoff(100), MAX_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn an_address_is_closed_after_the_allowance_and_others_are_not() {
        let guard = SignInGuard::default();
        let attacker: IpAddr = "192.0.2.1".parse().unwrap();
        let neighbour: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..FAILURE_ALLOWANCE {
            guard.failed(attacker, CredentialKind::AdminToken);
        }
        assert_eq!(guard.wait(attacker), None, "the allowance is free");
        guard.failed(attacker, CredentialKind::ServiceToken);
        let wait = guard.wait(attacker).expect("closed after the allowance");
        assert!(wait <= FIRST_BACKOFF, "{wait:?}");
        guard.failed(attacker, CredentialKind::ManagementKey);
        assert!(guard.wait(attacker).expect("closed") > FIRST_BACKOFF);
        assert_eq!(guard.wait(neighbour), None);
    }
}
