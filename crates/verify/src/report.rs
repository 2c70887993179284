//! The verifier's report: every scenario with its outcome and failures, as JSON (serde), JUnit
//! XML (which CI systems display) or a table for a terminal.

use crate::violation::{Violation, printable};
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
    /// Whether an inconclusive scenario was allowed to leave the run passed.
    pub allow_inconclusive: bool,
    /// How many 429 answers were waited out (as their headers asked) before a retry.
    pub rate_limited: usize,
    pub scenarios: Vec<ScenarioResult>,
}

/// How a scenario ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Its rule held.
    Passed,
    /// Its rule was broken: see the failures.
    Failed,
    /// It could not check its rule, for the reason given (no data to check it on, a seed that
    /// offers nothing, ...): neither a pass nor a failure. A run with one fails unless
    /// inconclusive scenarios were allowed.
    Inconclusive,
    /// The operation it checks answered 501 (documented for every operation): the
    /// implementation says it does not offer it. Not a failure.
    NotImplemented,
}

impl Outcome {
    /// The outcome as the table and the summary write it.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "FAILED",
            Outcome::Inconclusive => "inconclusive",
            Outcome::NotImplemented => "not implemented",
        }
    }
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    /// Kebab-case name, e.g. `cursor-walk`.
    pub name: String,
    /// The rule it holds the service to, in plain words.
    pub description: String,
    /// Whether the scenario writes (deletes or cancels entries it created).
    pub writes: bool,
    pub outcome: Outcome,
    /// Why it was inconclusive, or which operation is not implemented.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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
    /// Whether the run passed: no scenario failed, and none was inconclusive unless that was
    /// allowed. Not implemented operations do not fail a run.
    pub fn passed(&self) -> bool {
        self.scenarios.iter().all(|s| match s.outcome {
            Outcome::Failed => false,
            Outcome::Inconclusive => self.allow_inconclusive,
            Outcome::Passed | Outcome::NotImplemented => true,
        })
    }

    /// How many scenarios ended with `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.scenarios
            .iter()
            .filter(|s| s.outcome == outcome)
            .count()
    }

    /// The summary line: every outcome counted, and the 429s waited out.
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{} passed, {} failed, {} inconclusive, {} not implemented",
            self.count(Outcome::Passed),
            self.count(Outcome::Failed),
            self.count(Outcome::Inconclusive),
            self.count(Outcome::NotImplemented),
        );
        if self.rate_limited > 0 {
            let _ = write!(
                line,
                "; {} rate-limited answers (429) waited out",
                self.rate_limited
            );
        }
        if self.count(Outcome::Inconclusive) > 0 && self.allow_inconclusive {
            line.push_str(" (inconclusive allowed)");
        }
        line
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

    /// Inconclusive scenarios that fail the run (none when they are allowed).
    fn inconclusive_failing(&self) -> usize {
        if self.allow_inconclusive {
            0
        } else {
            self.count(Outcome::Inconclusive)
        }
    }

    /// The report as JUnit XML: one test suite, one test case per scenario, a `<failure>` per
    /// failed one listing each request and its violations (and per inconclusive one unless
    /// allowed), `<skipped>` with the reason for the rest.
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
            escape(printable(&self.base_url).as_str()),
            self.scenarios.len(),
            count(Outcome::Failed) + self.inconclusive_failing(),
            count(Outcome::NotImplemented) + count(Outcome::Inconclusive)
                - self.inconclusive_failing(),
        );
        for scenario in &self.scenarios {
            let _ = write!(
                xml,
                "  <testcase classname=\"courier-verify\" name=\"{}\" time=\"{:.3}\">",
                escape(scenario.name.as_str()),
                scenario.duration_ms as f64 / 1000.0
            );
            let reason = scenario.reason.as_deref().unwrap_or_default();
            match scenario.outcome {
                Outcome::Passed => {}
                Outcome::NotImplemented => {
                    let _ = write!(
                        xml,
                        "<skipped message=\"not implemented: {}\"/>",
                        escape(printable(reason).as_str())
                    );
                }
                Outcome::Inconclusive if self.allow_inconclusive => {
                    let _ = write!(
                        xml,
                        "<skipped message=\"inconclusive: {}\"/>",
                        escape(printable(reason).as_str())
                    );
                }
                Outcome::Inconclusive => {
                    let _ = write!(
                        xml,
                        "<failure message=\"inconclusive: {}\"/>",
                        escape(printable(reason).as_str())
                    );
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
            let outcome = scenario.outcome.label();
            let detail = match scenario.outcome {
                Outcome::Passed => scenario.description.clone(),
                Outcome::Inconclusive | Outcome::NotImplemented => {
                    printable(scenario.reason.as_deref().unwrap_or_default())
                }
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
            printable(&self.base_url),
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
                "\n{} FAILED: {}\n{}",
                scenario.name,
                scenario.description,
                failures_text(scenario)
            );
        }
        let _ = writeln!(text, "\n{}", self.summary());
        text
    }
}

/// A failure's first violation (or error) in one line.
fn failure_summary(failure: &Failure) -> String {
    match (failure.violations.first(), &failure.error) {
        (Some(violation), _) => violation.to_string(),
        (None, Some(error)) => printable(error),
        (None, None) => String::new(),
    }
}

/// Every failure of a scenario: its request, then its violations, indented.
fn failures_text(scenario: &ScenarioResult) -> String {
    let mut text = String::new();
    for failure in &scenario.failures {
        let _ = writeln!(text, "  request: {}", failure.request);
        if let Some(error) = &failure.error {
            let _ = writeln!(text, "    {}", printable(error));
        }
        for violation in &failure.violations {
            let _ = writeln!(text, "    {violation}");
        }
    }
    text
}
