//! Serde types for every shape of the courier interface, generated from `spec/openapi.yaml`.
//!
//! This crate is usable alone: it depends on serde, serde_json and uuid only, with no HTTP
//! stack, so a service, a test fixture or a queue consumer can read and write every shape of the
//! interface without pulling in a client. Enable the `schemars` feature to derive
//! `schemars::JsonSchema` for every type.
//!
//! | interface section | type |
//! |---|---|
//! | 2.1 failed run in a list | [`WorkflowDlqMessage`] (in [`WorkflowDlqPage`]) |
//! | 2.2 single failed run | [`FailedWorkflowRun`] with [`FailureCallbackInfo`] |
//! | 2.3 URL group | [`UrlGroup`], [`UrlGroupEndpoint`] |
//! | 2.4 error body | [`ErrorBody`] |
//! | 2.5 search index | [`SearchIndex`] |
//! | 2.6 data points | [`DataPoint`], [`DailyRequestDataPoint`], [`NamedSeries`] |
//! | 2.7 index statistics | [`SearchIndexStats`] |
//! | 2.8 account statistics | [`AccountStats`] |
//! | 2.9 messaging account | [`MessagingAccount`] |
//! | 4.3 bulk delete result | [`BulkDeleteResult`] |
//!
//! Optional fields are `Option`s that are omitted when `None`; unknown fields are ignored on
//! read, so payloads from newer services still deserialise.
//!
//! ```
//! let json = r#"{"error": "count: 500 is above the maximum 100"}"#;
//! let body: courier_models::ErrorBody = serde_json::from_str(json).unwrap();
//! assert_eq!(body.error, "count: 500 is above the maximum 100");
//! ```
//!
//! Every struct has a generated builder: set the fields you have, the optional ones default to
//! `None`, and converting the builder names the first required field that is missing. Types
//! whose empty value the spec allows (a page with no entries, an empty header map) also
//! implement `Default`.
//!
//! ```
//! use courier_models::{FailedWorkflowRun, Headers, WorkflowDlqPage};
//! let run: FailedWorkflowRun = FailedWorkflowRun::builder()
//!     .dlq_id("1761240845000-0")
//!     .message_id("msg_1")
//!     .url("https://example.com/wf/step")
//!     .method("POST")
//!     .header(Headers::default())
//!     .max_retries(3)
//!     .created_at(1_761_240_845_000i64)
//!     .workflow_run_id("wfr_1")
//!     .workflow_url("https://example.com/wf")
//!     .workflow_created_at(1_761_240_800_000i64)
//!     .body("{\"order\": 7}".to_owned())
//!     .try_into()
//!     .unwrap();
//! assert_eq!(run.body.as_deref(), Some("{\"order\": 7}"));
//! assert!(run.labels.is_empty());
//!
//! let missing: Result<FailedWorkflowRun, _> = FailedWorkflowRun::builder().dlq_id("x").try_into();
//! assert!(missing.unwrap_err().to_string().contains("no value supplied for"));
//!
//! assert!(WorkflowDlqPage::default().messages.is_empty());
//! ```
//!
//! Features: `schemars` derives `schemars::JsonSchema` (schemars 1.x) for every type.

// docs.rs builds with `--cfg docsrs` on nightly, where `doc_cfg` marks items (the
// `JsonSchema` impls) with the feature they need; stable builds never see this.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

/// The README's program, run as a doctest so the example on crates.io cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[rustfmt::skip]
#[allow(clippy::all, missing_docs)]
mod generated;
#[rustfmt::skip]
#[allow(clippy::all)]
mod facts;
mod helpers;
mod operation;
pub mod values;

pub use facts::*;
pub use generated::*;
pub use helpers::InvalidBase64;
pub use operation::{Operation, QueryKey, ValueCap, operation};

impl ReservedPlanType {
    /// No reserved plan applies (no card attached and not pay-as-you-go): the empty string on
    /// the wire. The same as [`ReservedPlanType::Unreserved`].
    pub const NONE: ReservedPlanType = ReservedPlanType::Unreserved;
}

impl StatsPeriod {
    /// Every period, shortest first.
    pub const ALL: [StatsPeriod; 7] = [
        StatsPeriod::OneHour,
        StatsPeriod::ThreeHours,
        StatsPeriod::TwelveHours,
        StatsPeriod::OneDay,
        StatsPeriod::ThreeDays,
        StatsPeriod::SevenDays,
        StatsPeriod::ThirtyDays,
    ];

    /// Length of the period in seconds.
    pub fn seconds(self) -> i64 {
        const HOUR: i64 = 3600;
        match self {
            StatsPeriod::OneHour => HOUR,
            StatsPeriod::ThreeHours => 3 * HOUR,
            StatsPeriod::TwelveHours => 12 * HOUR,
            StatsPeriod::OneDay => 24 * HOUR,
            StatsPeriod::ThreeDays => 72 * HOUR,
            StatsPeriod::SevenDays => 168 * HOUR,
            StatsPeriod::ThirtyDays => 720 * HOUR,
        }
    }

    /// How many data points a series of this period holds: 60, or 240 for `30d`.
    pub fn data_points(self) -> i64 {
        match self {
            StatsPeriod::ThirtyDays => 240,
            _ => 60,
        }
    }

    /// Spacing of the data points in seconds: period/60, or 3 hours for `30d`.
    pub fn interval_seconds(self) -> i64 {
        self.seconds() / self.data_points()
    }
}
