//! Benchmark tooling for courier: realistic failed workflow runs in bulk, for `courier-fill`.
//!
//! [`entries`] makes the `i`-th of `total` failed runs deterministically with the generator the
//! demo uses too (`courier_service::sample`), from this crate's [`VOCABULARY`], so a store of any
//! size has the same value distributions, documented by the constants below; `bench/run.sh` picks its filters from them and `BENCHMARKS.md` quotes their
//! selectivity.

use courier_models::FailedWorkflowRun;
pub use courier_service::sample::Spread;
use courier_service::sample::{self, Vocabulary};

/// Workflow URLs, chosen uniformly (1/16 each).
pub const WORKFLOWS: [&str; 16] = [
    "https://shop.example.com/api/workflows/checkout",
    "https://shop.example.com/api/workflows/refund",
    "https://shop.example.com/api/workflows/restock",
    "https://shop.example.com/api/workflows/invoice",
    "https://mail.example.com/workflows/welcome-sequence",
    "https://mail.example.com/workflows/digest",
    "https://mail.example.com/workflows/password-reset",
    "https://mail.example.com/workflows/churn-winback",
    "https://etl.example.com/workflows/nightly-import",
    "https://etl.example.com/workflows/hourly-sync",
    "https://etl.example.com/workflows/backfill",
    "https://etl.example.com/workflows/export-csv",
    "https://ops.example.com/workflows/rotate-keys",
    "https://ops.example.com/workflows/provision",
    "https://ops.example.com/workflows/deprovision",
    "https://ops.example.com/workflows/audit",
];

/// Labels: every entry has one or two, drawn uniformly, so a label matches about 18%
/// (1/8 + 7/8 · 1/8 · 1/2).
pub const LABELS: [&str; 8] = [
    "billing",
    "onboarding",
    "etl",
    "priority",
    "beta",
    "reports",
    "sync",
    "alerts",
];

/// Caller IPs, chosen uniformly (1/8 each).
pub const CALLER_IPS: [&str; 8] = [
    "203.0.113.7",
    "203.0.113.19",
    "198.51.100.23",
    "198.51.100.61",
    "192.0.2.44",
    "192.0.2.90",
    "2001:db8::1",
    "2001:db8::7",
];

/// How many flow control keys there are (see [`FLOW_CONTROL_KEYS`]).
pub const FLOW_KEYS: usize = 9;

/// Flow control keys `tenant-00` … `tenant-08`: entry `i` has `tenant-0{i % 10}`, except
/// `i % 10 == 9`, which has none; so `tenant-00` matches exactly one entry in ten (100,000 of
/// 1,000,000).
pub const FLOW_CONTROL_KEYS: [&str; FLOW_KEYS] = [
    "tenant-00",
    "tenant-01",
    "tenant-02",
    "tenant-03",
    "tenant-04",
    "tenant-05",
    "tenant-06",
    "tenant-07",
    "tenant-08",
];

/// The fill's values, for the shared generator of `courier-service`.
pub const VOCABULARY: Vocabulary = Vocabulary {
    seed: 0xC0C0_0E1E,
    workflows: &WORKFLOWS,
    labels: &LABELS,
    caller_ips: &CALLER_IPS,
    flow_control_keys: &FLOW_CONTROL_KEYS,
    run_id_prefix: "wfr_bench",
    first_run: 0,
    run_digits: 9,
};

/// Failed runs `range` (indices into the `spread.total` entries of a fill), `dlqId` left empty
/// so the store assigns `<createdAt>-<seq>` as it does for the admin API.
pub fn entries(range: std::ops::Range<u64>, spread: Spread) -> Vec<FailedWorkflowRun> {
    sample::failed_runs(&VOCABULARY, spread, range)
}

/// The `i`-th failed run of a fill.
pub fn entry(i: u64, spread: Spread) -> FailedWorkflowRun {
    sample::failed_run(&VOCABULARY, spread, i)
}

/// The service a measuring binary talks to, as each of them takes it (`#[command(flatten)]`).
#[derive(clap::Args)]
pub struct ServiceArgs {
    /// The service, e.g. http://127.0.0.1:18600.
    #[arg(long)]
    pub base_url: String,
    /// Its messaging service token.
    #[arg(long)]
    pub token: String,
}

/// The median of some timings (the upper one of an even count); `values` must not be empty.
pub fn median(mut values: Vec<std::time::Duration>) -> std::time::Duration {
    values.sort();
    values[values.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_deterministic_ordered_and_spread() {
        let spread = Spread {
            now_ms: 1_700_000_000_000,
            span_ms: 3 * 86_400_000,
            total: 1000,
        };
        let a = entries(0..1000, spread);
        assert_eq!(a, entries(0..1000, spread));
        assert!(a.windows(2).all(|w| w[0].created_at <= w[1].created_at));
        assert!(a[0].created_at >= spread.now_ms - spread.span_ms);
        assert!(a[999].created_at <= spread.now_ms);
        let tenant0 = a
            .iter()
            .filter(|e| e.flow_control_key.as_deref() == Some("tenant-00"))
            .count();
        assert_eq!(tenant0, 100);
        let billing = a
            .iter()
            .filter(|e| e.labels.iter().any(|l| l == "billing"))
            .count();
        assert!((150..300).contains(&billing), "{billing}");
    }
}
