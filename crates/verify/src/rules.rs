//! Every rule of the interface and every decision of courier's that can be observed from
//! outside, with the scenarios that check it, or why it is not checked from outside. A test
//! holds the table to the catalogue (every scenario checks a listed rule, every scenario named
//! here exists) and to `docs/decisions.md` (every decision is here).

/// How a rule is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// By these scenarios (names, or prefixes ending in `*`).
    Scenarios(&'static [&'static str]),
    /// Not from outside, for this reason.
    NotFromOutside(&'static str),
    /// Observable, but no scenario checks it yet: the verifier's backlog.
    Backlog(&'static str),
    /// Courier's own choice where another implementation may rightly choose otherwise, for
    /// this reason: not held against other services (courier's own suite holds courier to it).
    CourierOnly(&'static str),
}

/// One rule: what it says, where it is written, and how it is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The rule in plain words.
    pub rule: &'static str,
    /// Where the spec or the decisions write it (`docs/decisions.md#<anchor>`, or the spec's
    /// operation or schema).
    pub source: &'static str,
    pub check: Check,
}

use Check::{Backlog, CourierOnly, NotFromOutside, Scenarios};

const fn rule(rule: &'static str, source: &'static str, check: Check) -> Rule {
    Rule {
        rule,
        source,
        check,
    }
}

/// The rules, grouped by operation.
#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    rule("every answer has a documented status, content type and headers, and a body its schema admits", "spec/openapi.yaml (every operation's responses)", Scenarios(&["*"])),
    rule("a failed run carries the field names the hosted service sends (body/bodyBase64, failureCallbackInfo, labels, ...)", "docs/decisions.md#d1-failed-run-field-names", Scenarios(&["seed", "get-listed"])),
    rule("the list comes in ascending dlqId order, compared by bytes, without repeats", "docs/decisions.md#d11-list-order-and-filters", Scenarios(&["list-order"])),
    rule("walking by cursor neither repeats nor skips an entry", "docs/decisions.md#d11-list-order-and-filters", Scenarios(&["cursor-walk"])),
    rule("a full walk lists every stored entry exactly once", "listWorkflowDlq", Scenarios(&["list-complete"])),
    rule("`count` bounds a page, and a page is not shorter while more entries exist", "listWorkflowDlq, its parameter `count`", Scenarios(&["page-size", "bad-request-count"])),
    rule("the last page has no cursor; a malformed cursor is 400", "docs/decisions.md#d5-cursor-at-the-end", Scenarios(&["cursor-end", "bad-request-malformed-cursor"])),
    rule("each filter lists exactly the entries whose field equals the value (all of them, and only them)", "docs/decisions.md#d11-list-order-and-filters", Scenarios(&["filter-workflow-url", "filter-workflow-run-id", "filter-workflow-created-at", "filter-label", "filter-failure-function-state", "filter-caller-ip", "filter-flow-control-key"])),
    rule("several values of one filter are ORed", "docs/decisions.md#d11-list-order-and-filters", Scenarios(&["filter-*-any-of"])),
    rule("different filters are ANDed", "docs/decisions.md#d11-list-order-and-filters", Scenarios(&["filter-and"])),
    rule("fromDate and toDate bound createdAt, both inclusive, alone or together", "docs/decisions.md#d11-list-order-and-filters", Scenarios(&["filter-from-date", "filter-to-date", "filter-date-range"])),
    rule("the comma form equals repeated keys", "docs/decisions.md#d12-multi-value-encoding", Scenarios(&["filter-*-comma"])),
    rule("an empty value is 400", "docs/decisions.md#d12-multi-value-encoding", Scenarios(&["bad-request-empty-value"])),
    rule("more values of a filter than its maxItems is 400", "listWorkflowDlq (maxItems of each filter)", Scenarios(&["bad-request-value-cap"])),
    rule("an unknown failure function state is 400", "FailureFunctionState", Scenarios(&["bad-request-unknown-state"])),
    rule("a list answers what is stored when it is asked: what was removed is gone from every page and filter, what was added shows", "docs/decisions.md#d21-kept-list-pages", Scenarios(&["list-shows-added", "delete-one", "bulk-delete-ids", "bulk-delete-filter", "cancel-run"])),
    rule("getting a listed entry answers it; what is not in the DLQ is 404", "getWorkflowDlq", Scenarios(&["get-listed", "not-found-get"])),
    rule("deleting one entry answers 200 and the entry is gone; an unknown id is 404", "deleteDlqMessage", Scenarios(&["delete-one", "delete-one-workflow-path", "delete-one-unknown"])),
    rule("bulk delete answers 200 with the count deleted; by ids it returns no cursor", "docs/decisions.md#d2-success-statuses", Scenarios(&["bulk-delete-ids", "bulk-delete-filter", "cleanup"])),
    rule("with dlqIds every filter is ignored", "docs/decisions.md#d6-bulk-delete-count", Scenarios(&["bulk-delete-ids-ignore-filters"])),
    rule("bulk delete's count is at most 1000 (400 beyond), validated even beside dlqIds", "docs/decisions.md#d6-bulk-delete-count", Scenarios(&["bad-request-bulk-count"])),
    rule("cancel answers 200 and removes the run's entries; an unknown or cancelled run is 404", "docs/decisions.md#d3-cancel-response", Scenarios(&["cancel-run", "cancel-run-unknown"])),
    rule("cancelling a run removes every DLQ entry of the run", "docs/decisions.md#d14-cancel-and-the-dlq", Scenarios(&["cancel-run"])),
    rule("a stored URL group is answered with its name and endpoints; an unknown one is 404", "docs/decisions.md#d2-success-statuses", Scenarios(&["url-group-contents", "not-found-url-group"])),
    rule("a stored search index is answered as stored; an unknown one is 404", "getSearchIndex", Scenarios(&["index-contents", "not-found-index"])),
    rule("statistics series have 60 points per period (240 for 30d) at the period's spacing", "StatsPeriod (x-courier-series)", Scenarios(&["account-stats-series", "index-stats-series", "not-found-index-stats"])),
    rule("the account's daily arrays cover the month's days and align by index with `days`", "AccountStats", Scenarios(&["account-stats-days"])),
    rule("`dlq_message_count` is the number of entries in the DLQ", "AccountStats", Scenarios(&["account-stats-dlq-count"])),
    rule("a data point's time is `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`", "docs/decisions.md#d8-data-point-time", Scenarios(&["account-stats-series", "index-stats-series"])),
    rule("the metric identifiers of named series are an open set of strings", "docs/decisions.md#d7-metric-identifiers", NotFromOutside("an open set has nothing to hold a service to beyond the schema, which every answer is validated against")),
    rule("index statistics come from recorded usage", "docs/decisions.md#d17-index-statistics", NotFromOutside("where a service takes its figures from cannot be seen in them; their shape is checked")),
    rule("messaging takes a bearer token, management Basic credentials; without valid ones every operation is 401", "docs/decisions.md#d10-management-credentials", Scenarios(&["unauthorized-*"])),
    rule("rotation answers new credentials: the old token is refused at once, the new one works", "docs/decisions.md#d10-management-credentials", Scenarios(&["rotation"])),
    rule("the list takes the service token in the query; management never does", "docs/decisions.md#d4-query-parameter-token", Scenarios(&["query-token", "query-token-not-for-management"])),
    rule("every error answer has the body {\"error\": string}, with the documented statuses", "docs/decisions.md#d9-error-statuses", Scenarios(&["not-found-*", "bad-request-*", "unauthorized-*"])),
    rule("a known path with another method is 405 with Allow; an unknown path is 404", "docs/decisions.md#d9-error-statuses", Scenarios(&["method-not-allowed", "unknown-path"])),
    rule("a query parameter the operation does not declare is 400", "docs/decisions.md#d15-unknown-query-parameters", Scenarios(&["bad-request-unknown-parameter"])),
    rule("a request body sent to an operation, which takes none, changes nothing in its answer", "docs/decisions.md#d22-unread-request-bodies", CourierOnly("RFC 9110 gives content in a GET or a DELETE no meaning, so a service may refuse it (a Prism mock answers 400)")),
    rule("credentials are checked before parameters: 401, not 400", "docs/decisions.md#d16-order-of-checks", Scenarios(&["credentials-before-parameters"])),
    rule("a 429 carries Retry-After and one whole set of rate-limit headers", "docs/decisions.md#d18-rate-limit-headers", Scenarios(&["rate-limit"])),
    rule("the official clients' paths and spellings are aliases of the interface's", "docs/decisions.md#d19-official-client-compatibility", Scenarios(&["compat-list", "filter-alias-*", "delete-one-workflow-path", "bad-request-source", "unauthorized-cancel-workflow-runs"])),
    rule("an entry older than the account's retention is gone on every path; a full DLQ evicts its oldest entry", "docs/decisions.md#d13-retention-and-dlq-size", Scenarios(&["retention", "dlq-size"])),
    rule("several processes over one database answer as one", "docs/decisions.md#d20-several-processes", NotFromOutside("one base URL shows one process; the PostgreSQL suites hold several processes to it")),
    rule("a statistics period outside the enum is 400", "StatsPeriod", Scenarios(&["bad-request-period"])),
];

/// The rules of the backlog: observable, not yet checked.
pub fn backlog() -> impl Iterator<Item = &'static Rule> {
    RULES.iter().filter(|r| matches!(r.check, Backlog(_)))
}

#[cfg(all(test, feature = "runner"))]
mod tests {
    use super::*;
    use crate::catalogue;
    use crate::runner::chooses;

    #[test]
    fn every_named_scenario_exists_and_every_scenario_checks_a_rule() {
        let names: Vec<String> = catalogue().into_iter().map(|i| i.name).collect();
        for rule in RULES {
            if let Scenarios(patterns) = rule.check {
                for pattern in patterns {
                    assert!(
                        names.iter().any(|n| chooses(pattern, n)),
                        "`{pattern}` of rule `{}` names no scenario",
                        rule.rule
                    );
                }
            }
        }
        for name in &names {
            let checked = RULES.iter().any(|rule| match rule.check {
                Scenarios(patterns) => patterns.iter().any(|p| *p != "*" && chooses(p, name)),
                _ => false,
            });
            assert!(checked, "scenario `{name}` checks no rule of the table");
        }
    }

    #[test]
    fn every_decision_is_in_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/decisions.md");
        let decisions = std::fs::read_to_string(path).expect("docs/decisions.md");
        let anchors: Vec<&str> = decisions
            .split("<a id=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert!(anchors.len() >= 21, "{anchors:?}");
        for anchor in anchors {
            // Joined, not one literal: the tidy check reads every such path as a link.
            let source = ["docs/decisions.md", anchor].join("#");
            assert!(
                RULES.iter().any(|rule| rule.source == source),
                "decision `{anchor}` has no rule in the table"
            );
        }
    }
}
