//! The verifier's report: every scenario with its outcome and failures, as JSON (serde), JUnit
//! XML (which CI systems display) or a table for a terminal.

use crate::violation::Violation;
use comfy_table::{ContentArrangement, Table};
use quick_xml::escape::escape;
use serde::Serialize;
use std::fmt::Write as _;

/// The outcome of a verification run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The messaging address verified.
    pub base_url: String,
    /// `info.version` of the spec verified against.
    pub spec_version: String,
    /// Whether writing scenarios ran.
    pub write: bool,
    pub scenarios: Vec<ScenarioResult>,
}

/// How a scenario ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Passed,
    Failed,
    /// Not run, for the reason given (no data to derive it from, writing not enabled, ...).
    Skipped,
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    /// Kebab-case name, e.g. `cursor-walk`.
    pub name: String,
    /// What the scenario holds the service to.
    pub description: String,
    /// Whether the scenario writes (deletes or cancels entries it created).
    pub writes: bool,
    pub outcome: Outcome,
    /// Why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    /// How many requests it sent.
    pub requests: usize,
    pub duration_ms: u64,
    pub failures: Vec<Failure>,
}

/// One request whose answer broke the contract or a rule of the scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The request as a curl command, credentials masked.
    pub request: String,
    /// The status answered, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// What was wrong; empty when the request got no answer (see `error`).
    pub violations: Vec<Violation>,
    /// A transport error, when the request got no answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Report {
    /// Whether every scenario that ran held (skipped ones do not fail a run).
    pub fn passed(&self) -> bool {
        self.scenarios.iter().all(|s| s.outcome != Outcome::Failed)
    }

    /// The scenario of that name.
    pub fn scenario(&self, name: &str) -> Option<&ScenarioResult> {
        self.scenarios.iter().find(|s| s.name == name)
    }

    /// The names of the scenarios with that outcome.
    pub fn names(&self, outcome: Outcome) -> Vec<&str> {
        self.scenarios
            .iter()
            .filter(|s| s.outcome == outcome)
            .map(|s| s.name.as_str())
            .collect()
    }

    /// Every violation of the failed scenarios, with the scenario's name.
    pub fn violations(&self) -> impl Iterator<Item = (&str, &Violation)> {
        self.scenarios.iter().flat_map(|s| {
            s.failures
                .iter()
                .flat_map(move |f| f.violations.iter().map(move |v| (s.name.as_str(), v)))
        })
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report is plain data")
    }

    /// The report as JUnit XML: one test suite, one test case per scenario, a `<failure>` per
    /// failed one listing each request and its violations, `<skipped>` with the reason.
    pub fn to_junit(&self) -> String {
        let count = |outcome| self.names(outcome).len();
        let seconds: f64 = self
            .scenarios
            .iter()
            .map(|s| s.duration_ms as f64)
            .sum::<f64>()
            / 1000.0;
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            xml,
            "<testsuites><testsuite name=\"courier-verify {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{seconds:.3}\">",
            escape(self.base_url.as_str()),
            self.scenarios.len(),
            count(Outcome::Failed),
            count(Outcome::Skipped),
        );
        for scenario in &self.scenarios {
            let _ = write!(
                xml,
                "  <testcase classname=\"courier-verify\" name=\"{}\" time=\"{:.3}\">",
                escape(scenario.name.as_str()),
                scenario.duration_ms as f64 / 1000.0
            );
            match scenario.outcome {
                Outcome::Passed => {}
                Outcome::Skipped => {
                    let reason = scenario.skip_reason.as_deref().unwrap_or_default();
                    let _ = write!(xml, "<skipped message=\"{}\"/>", escape(reason));
                }
                Outcome::Failed => {
                    let first = scenario
                        .failures
                        .first()
                        .map(failure_summary)
                        .unwrap_or_default();
                    let _ = write!(
                        xml,
                        "<failure message=\"{}\">{}</failure>",
                        escape(first.as_str()),
                        escape(failures_text(scenario).as_str())
                    );
                }
            }
            xml.push_str("</testcase>\n");
        }
        xml.push_str("</testsuite></testsuites>\n");
        xml
    }

    /// The report as a table for a terminal: one row per scenario, then each failure.
    pub fn to_table(&self) -> String {
        let mut table = Table::new();
        table
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_header(["scenario", "outcome", "requests", "detail"]);
        for scenario in &self.scenarios {
            let outcome = match scenario.outcome {
                Outcome::Passed => "passed",
                Outcome::Failed => "FAILED",
                Outcome::Skipped => "skipped",
            };
            let detail = match scenario.outcome {
                Outcome::Passed => scenario.description.clone(),
                Outcome::Skipped => scenario.skip_reason.clone().unwrap_or_default(),
                Outcome::Failed => scenario
                    .failures
                    .first()
                    .map(failure_summary)
                    .unwrap_or_default(),
            };
            table.add_row([
                scenario.name.clone(),
                outcome.to_owned(),
                scenario.requests.to_string(),
                detail,
            ]);
        }
        let mut text = format!(
            "courier-verify: {} against spec {}{}\n{table}\n",
            self.base_url,
            self.spec_version,
            if self.write {
                " (writing scenarios on)"
            } else {
                ""
            }
        );
        for scenario in self
            .scenarios
            .iter()
            .filter(|s| s.outcome == Outcome::Failed)
        {
            let _ = write!(
                text,
                "\n{} FAILED\n{}",
                scenario.name,
                failures_text(scenario)
            );
        }
        let _ = writeln!(
            text,
            "\n{} passed, {} failed, {} skipped",
            self.names(Outcome::Passed).len(),
            self.names(Outcome::Failed).len(),
            self.names(Outcome::Skipped).len()
        );
        text
    }
}

/// A failure's first violation (or error) in one line.
fn failure_summary(failure: &Failure) -> String {
    match (failure.violations.first(), &failure.error) {
        (Some(violation), _) => violation.to_string(),
        (None, Some(error)) => error.clone(),
        (None, None) => String::new(),
    }
}

/// Every failure of a scenario: its request, then its violations, indented.
fn failures_text(scenario: &ScenarioResult) -> String {
    let mut text = String::new();
    for failure in &scenario.failures {
        let _ = writeln!(text, "  request: {}", failure.request);
        if let Some(error) = &failure.error {
            let _ = writeln!(text, "    {error}");
        }
        for violation in &failure.violations {
            let _ = writeln!(text, "    {violation}");
        }
    }
    text
}
