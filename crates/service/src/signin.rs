//! Failed sign-ins per client source, and the backoff that follows them; and a budget of
//! failures over all sources together.
//!
//! Every credential kind counts into one tally per source: the service token, the management
//! key (HTTP Basic on the API or the console), the console's login form and the admin token. A
//! source ([`Source`]) is what one client can cheaply change its address within: the whole
//! loopback (`127.0.0.0/8` and `::1`, all of them one machine's), an IPv6 address's `/64` (one
//! network's, often one host's), an IPv4 address alone. The first [`FAILURE_ALLOWANCE`] failures
//! cost nothing; each one after that closes the source for [`FIRST_BACKOFF`], doubled per
//! further failure up to [`MAX_BACKOFF`]. While closed, every sign-in from that source is
//! answered 429 with `Retry-After` before the secret is even compared. A tally is forgotten
//! [`FORGET_AFTER`] after its last failure.
//!
//! Many sources together (many IPv4 addresses) would still each get the allowance, so the
//! failures of all sources are counted too: once [`GLOBAL_FAILURE_BUDGET`] failures happened in
//! a [`GLOBAL_WINDOW`], every sign-in from every source is answered 429 until the window ends.
//! That bounds the guesses a service takes however many addresses guess, at the price that a
//! flood of failures keeps rightful users out for the rest of the window too.
//!
//! A success resets nothing: the tally belongs to the address, so a client holding one
//! credential cannot interleave successes to keep guessing another, and a rightful user signing
//! in elsewhere does not clear an attacker's tally. The price is that a rightful user behind the
//! attacker's address waits out the backoff too.
//!
//! A request without any credential is not a sign-in and is not counted; it gets its 401.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures a source may make before the backoff starts. High enough for a person's typos and
/// for the test suites that check every operation with wrong credentials from one address.
pub const FAILURE_ALLOWANCE: u32 = 200;
/// Failures of all sources together in one [`GLOBAL_WINDOW`] after which nobody's sign-in is
/// compared until the window ends: five sources' allowances.
pub const GLOBAL_FAILURE_BUDGET: u32 = 5 * FAILURE_ALLOWANCE;
/// The window [`GLOBAL_FAILURE_BUDGET`] counts in: it starts at the first failure after the last
/// window ended.
pub const GLOBAL_WINDOW: Duration = Duration::from_secs(10 * 60);
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

/// Where failed sign-ins are counted together: one client can cheaply use any address of its
/// source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// `127.0.0.0/8` and `::1`: every process of this machine, whichever address it picks.
    Loopback,
    /// An IPv4 address (an IPv4-mapped IPv6 address counts as its IPv4 address).
    V4(Ipv4Addr),
    /// The first 64 bits of an IPv6 address: a host is routinely given a whole `/64`.
    V6Prefix(u64),
}

impl Source {
    /// The source of a client `address`.
    pub fn of(address: IpAddr) -> Source {
        match address.to_canonical() {
            IpAddr::V4(v4) if v4.is_loopback() => Source::Loopback,
            IpAddr::V4(v4) => Source::V4(v4),
            IpAddr::V6(v6) if v6.is_loopback() => Source::Loopback,
            IpAddr::V6(v6) => Source::V6Prefix((u128::from(v6) >> 64) as u64),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Loopback => f.write_str("loopback"),
            Source::V4(v4) => write!(f, "{v4}"),
            Source::V6Prefix(prefix) => {
                write!(
                    f,
                    "{}/64",
                    std::net::Ipv6Addr::from(u128::from(*prefix) << 64)
                )
            }
        }
    }
}

struct Tally {
    failures: u32,
    last_failure: Instant,
    closed_until: Option<Instant>,
}

/// The failures of all sources in the current [`GLOBAL_WINDOW`].
struct Window {
    started: Instant,
    failures: u32,
}

/// The failed sign-ins of every client source, and of all together.
#[derive(Default)]
pub struct SignInGuard {
    tallies: Mutex<Tallies>,
}

#[derive(Default)]
struct Tallies {
    sources: HashMap<Source, Tally>,
    window: Option<Window>,
}

/// Why and for how long sign-ins are not compared: [`SignInGuard::wait`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closed {
    /// How long until a sign-in is compared again.
    pub wait: Duration,
    /// Closed for every source ([`GLOBAL_FAILURE_BUDGET`]), not only the client's.
    pub everyone: bool,
}

impl Closed {
    /// Whose failures closed it, for the refusal's message.
    pub fn whose(&self) -> &'static str {
        if self.everyone {
            "on this service from all addresses together"
        } else {
            "from this address"
        }
    }
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
    fn lock(&self) -> std::sync::MutexGuard<'_, Tallies> {
        self.tallies
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How long `client` must still wait before it may try again, and why; `None` when it may
    /// now.
    pub fn wait(&self, client: IpAddr) -> Option<Closed> {
        let now = Instant::now();
        let tallies = self.lock();
        let left = |until: Instant| until.checked_duration_since(now).filter(|d| !d.is_zero());
        let everyone = tallies
            .window
            .as_ref()
            .filter(|window| window.failures >= GLOBAL_FAILURE_BUDGET)
            .and_then(|window| left(window.started + GLOBAL_WINDOW));
        let own = tallies
            .sources
            .get(&Source::of(client))
            .and_then(|tally| tally.closed_until)
            .and_then(left);
        match (own, everyone) {
            (Some(own), Some(all)) if own > all => Some(Closed {
                wait: own,
                everyone: false,
            }),
            (_, Some(all)) => Some(Closed {
                wait: all,
                everyone: true,
            }),
            (Some(own), None) => Some(Closed {
                wait: own,
                everyone: false,
            }),
            (None, None) => None,
        }
    }

    /// Records a failed sign-in of `kind` from `client` and logs it.
    pub fn failed(&self, client: IpAddr, kind: CredentialKind) {
        let now = Instant::now();
        let source = Source::of(client);
        let mut tallies = self.lock();
        let window = match &mut tallies.window {
            Some(window) if now.duration_since(window.started) < GLOBAL_WINDOW => window,
            slot => slot.insert(Window {
                started: now,
                failures: 0,
            }),
        };
        window.failures = window.failures.saturating_add(1);
        let everyone = window.failures;
        let sources = &mut tallies.sources;
        if sources.len() >= MAX_TRACKED && !sources.contains_key(&source) {
            sources.retain(|_, tally| now.duration_since(tally.last_failure) < FORGET_AFTER);
            if sources.len() >= MAX_TRACKED
                && let Some(quietest) = sources
                    .iter()
                    .min_by_key(|(_, tally)| tally.last_failure)
                    .map(|(source, _)| *source)
            {
                sources.remove(&quietest);
            }
        }
        let tally = sources.entry(source).or_insert(Tally {
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
        tracing::info!(
            client = %client,
            %source,
            credential = kind.name(),
            failures,
            all_sources = everyone,
            "sign-in failed"
        );
        if everyone == GLOBAL_FAILURE_BUDGET {
            tracing::warn!(
                budget = GLOBAL_FAILURE_BUDGET,
                window_seconds = GLOBAL_WINDOW.as_secs(),
                "failed sign-ins from all addresses reached the budget: no sign-in is checked \
                 until the window ends"
            );
        }
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
pub fn too_many_failures(closed: Closed) -> axum::response::Response {
    let seconds = retry_after_seconds(closed.wait);
    let mut response = courier_server::runtime::error(
        axum::http::StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many failed sign-ins {}: credentials are not checked for another {seconds} s; \
             retry after the time in Retry-After",
            closed.whose()
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
        let closed = guard.wait(attacker).expect("closed after the allowance");
        assert!(
            closed.wait <= FIRST_BACKOFF && !closed.everyone,
            "{closed:?}"
        );
        guard.failed(attacker, CredentialKind::ManagementKey);
        assert!(guard.wait(attacker).expect("closed").wait > FIRST_BACKOFF);
        assert_eq!(guard.wait(neighbour), None);
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn loopback_is_one_source_an_ipv6_address_counts_by_its_64_and_ipv4_alone() {
        for address in [
            "127.0.0.1",
            "127.0.0.2",
            "127.5.6.7",
            "::1",
            "::ffff:127.0.0.9",
        ] {
            assert_eq!(Source::of(ip(address)), Source::Loopback, "{address}");
        }
        assert_eq!(
            Source::of(ip("2001:db8:1:2::1")),
            Source::of(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        );
        assert_ne!(
            Source::of(ip("2001:db8:1:2::1")),
            Source::of(ip("2001:db8:1:3::1"))
        );
        assert_eq!(
            Source::of(ip("::ffff:192.0.2.1")),
            Source::of(ip("192.0.2.1"))
        );
        assert_ne!(Source::of(ip("192.0.2.1")), Source::of(ip("192.0.2.2")));
        assert_eq!(
            Source::of(ip("2001:db8:1:2::1")).to_string(),
            "2001:db8:1:2::/64"
        );

        let guard = SignInGuard::default();
        for _ in 0..=FAILURE_ALLOWANCE {
            guard.failed(ip("2001:db8:1:2::1"), CredentialKind::ServiceToken);
        }
        assert!(guard.wait(ip("2001:db8:1:2::abcd")).is_some(), "same /64");
        assert_eq!(guard.wait(ip("2001:db8:1:3::1")), None, "another /64");
    }

    #[test]
    fn the_budget_over_all_sources_closes_every_source_until_the_window_ends() {
        let guard = SignInGuard::default();
        // Each of many IPv4 addresses stays within its own allowance.
        let addresses: Vec<IpAddr> = (0..GLOBAL_FAILURE_BUDGET)
            .map(|n| IpAddr::V4(Ipv4Addr::from(0xC633_6400 + n)))
            .collect();
        for address in &addresses[..GLOBAL_FAILURE_BUDGET as usize - 1] {
            guard.failed(*address, CredentialKind::ServiceToken);
        }
        let fresh = ip("203.0.113.200");
        assert_eq!(guard.wait(fresh), None, "below the budget");
        guard.failed(
            addresses[GLOBAL_FAILURE_BUDGET as usize - 1],
            CredentialKind::AdminToken,
        );
        let closed = guard.wait(fresh).expect("the budget is spent");
        assert!(closed.everyone, "{closed:?}");
        assert!(closed.wait <= GLOBAL_WINDOW && closed.wait > GLOBAL_WINDOW / 2);
        assert!(too_many_failures(closed).status() == axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!(closed.whose().contains("all addresses"));
    }
}
