//! Every scenario the verifier has: its name, the one rule of one operation it checks (in plain
//! words), whether it writes, and whether it runs only when chosen by name. The filter and
//! credential scenarios are made from the contract, one per filter and per operation, so a
//! filter or operation added to the spec gets its scenarios without a line here.

use crate::contract::Contract;

/// One scenario of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioInfo {
    /// Kebab-case name, e.g. `cursor-walk`.
    pub name: String,
    /// The rule it checks, in plain words.
    pub rule: String,
    /// Whether it writes (it needs writing on, and a seed).
    pub writes: bool,
    /// Whether it changes what it cannot undo (credentials) or spends the account's budget
    /// (the rate limit): it runs only when chosen by its full name, and says what it will
    /// change in its rule.
    pub opt_in: bool,
}

/// (name, writes, opt-in, rule) of the scenarios that are not made per filter or operation.
#[rustfmt::skip]
const FIXED: &[(&str, bool, bool, &str)] = &[
    ("seed", true, false, "the seed stores the fixture: every seeded entry can be got, with the fields it was given"),
    ("list-order", false, false, "the list's entries come in ascending order of the spec's order field, compared as the spec says (x-courier-order), without repeats"),
    ("list-complete", true, false, "a full walk of the list shows every stored entry exactly once"),
    ("list-shows-added", true, false, "an entry stored after a list is listed by the next one"),
    ("page-size", false, false, "a page never holds more than `count` entries, nor fewer while more exist"),
    ("cursor-walk", false, false, "walking small pages by cursor gives the entries of one large page, neither repeating nor skipping"),
    ("cursor-end", false, false, "the last page has no cursor, so a cursor never leads to an empty page"),
    ("get-listed", false, false, "getting a listed id answers that entry, with the values the list shows"),
    ("compat-list", false, false, "the list at /v2/dlq?source=workflow answers the same entries as the list"),
    ("filter-and", false, false, "two different filters together list exactly the entries matching both (AND)"),
    ("filter-date-range", false, false, "fromDate and toDate together list exactly the entries created in that range, both bounds inclusive"),
    ("not-found-get", false, false, "getting an id that is not in the DLQ is 404 with the error body"),
    ("not-found-url-group", false, false, "getting a URL group that does not exist is 404 with the error body"),
    ("not-found-index", false, false, "getting a search index that does not exist is 404 with the error body"),
    ("not-found-index-stats", false, false, "the statistics of a search index that does not exist are 404 with the error body"),
    ("bad-request-count", false, false, "a list `count` outside the spec's bounds is 400 with the error body"),
    ("bad-request-empty-value", false, false, "an empty parameter value is 400 with the error body"),
    ("bad-request-unknown-parameter", false, false, "a query parameter the operation does not declare is 400 with the error body"),
    ("bad-request-value-cap", false, false, "more values of a filter than the spec's maxItems is 400 with the error body"),
    ("bad-request-malformed-cursor", false, false, "a cursor the service never gave is 400 with the error body"),
    ("bad-request-unknown-state", false, false, "a failure function state outside the spec's enum is 400 with the error body"),
    ("bad-request-source", false, false, "the compatible list with a `source` other than `workflow` is 400 with the error body"),
    ("bad-request-period", false, false, "a statistics period outside the spec's enum is 400 with the error body"),
    ("credentials-before-parameters", false, false, "a request with a bad parameter and no credentials is 401, not 400: credentials are checked first"),
    ("query-token", false, false, "the list takes the service token in the `service_token` query parameter, answering as with the header"),
    ("query-token-not-for-management", false, false, "a management operation never takes the service token from the query"),
    ("account-stats-series", false, false, "every period series of the account statistics has the length and spacing the spec gives its period"),
    ("account-stats-days", false, false, "the account statistics' daily arrays cover the days of the month and align by index with `days`"),
    ("account-stats-dlq-count", false, false, "the account statistics' `dlq_message_count` is the number of entries the list shows"),
    ("index-contents", true, false, "getting a stored search index answers the fields it was stored with"),
    ("index-stats-series", true, false, "every period series of an index's statistics has the length and spacing the spec gives its period"),
    ("url-group-contents", true, false, "getting a stored URL group answers its name and endpoints"),
    ("delete-one", true, false, "deleting an entry answers 200; it is then 404 and shown by no list, filtered or not"),
    ("delete-one-workflow-path", true, false, "the same at DELETE /v2/workflows/dlq/{dlqId}"),
    ("delete-one-unknown", true, false, "deleting an id that is not in the DLQ (or no longer) is 404 with the error body"),
    ("bulk-delete-ids", true, false, "a bulk delete by ids removes exactly the entries it named, counts them, and returns no cursor"),
    ("bulk-delete-ids-ignore-filters", true, false, "a bulk delete by ids ignores every filter given beside the ids"),
    ("bulk-delete-filter", true, false, "a bulk delete by filter, batch by batch with its cursor, removes exactly the matching entries"),
    ("cancel-run", true, false, "cancelling a run answers 200 and removes its entries from get and from every list; other runs' stay"),
    ("cancel-run-unknown", true, false, "cancelling a run that is not known (or already cancelled) is 404 with the error body"),
    ("rotation", true, true, "CHANGES THE SERVICE TOKEN: rotating answers new credentials; the old token is refused at once and the new one works (the run goes on with the new one; `courier token rotate` gives another)"),
    ("rate-limit", false, true, "SPENDS THE ACCOUNT'S REQUEST BUDGET: requests sent as fast as possible (at most 300) meet a 429 with the error body, Retry-After and one set of rate-limit headers"),
    ("retention", true, true, "CHANGES THE ACCOUNT'S DLQ RETENTION for a moment (to more than the age of every entry there, so none of them expires): an entry older than the retention is gone on every path, a newer one stays"),
    ("dlq-size", true, true, "CHANGES THE ACCOUNT'S DLQ SIZE for a moment (to one more than the entries there): storing into a full DLQ evicts its oldest entry, which the scenario stores itself as the oldest of all"),
    ("bad-request-bulk-count", true, false, "a bulk delete's `count` outside the spec's bounds is 400, with and without dlqIds, and deletes nothing"),
    ("method-not-allowed", false, false, "a known path asked with a method it does not serve is 405 with `Allow` and the error body"),
    ("unknown-path", false, false, "an unknown path is 404 with the error body"),
    ("cleanup", true, false, "a bulk delete by ids removes exactly the entries the run seeded"),
];

/// Whether `name` is chosen by `pattern`: the same name, or a pattern with one `*` standing
/// for any text (`filter-*`, `filter-*-comma`).
pub(crate) fn chooses(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        Some((prefix, suffix)) => {
            name.len() >= prefix.len() + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(suffix)
        }
        None => pattern == name,
    }
}

/// `camelCase` as `kebab-case`; a run of capitals is one word (`callerIP` → `caller-ip`).
pub(crate) fn kebab(name: &str) -> String {
    let mut kebab = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                kebab.push('-');
            }
            kebab.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else {
            kebab.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    kebab
}

/// The scenario that checks filter `param` alone.
pub(crate) fn filter_scenario(param: &str) -> String {
    format!("filter-{}", kebab(param))
}

/// The scenario that checks several values of `param` (repeated keys) are ORed.
pub(crate) fn any_of_scenario(param: &str) -> String {
    format!("filter-{}-any-of", kebab(param))
}

/// The scenario that checks the comma form of `param` equals repeated keys.
pub(crate) fn comma_scenario(param: &str) -> String {
    format!("filter-{}-comma", kebab(param))
}

/// The scenario that checks the compatible spelling `alias` filters as its parameter does.
pub(crate) fn alias_scenario(alias: &str) -> String {
    format!("filter-alias-{}", kebab(alias))
}

/// The scenario that checks `operation` refuses missing and wrong credentials.
pub(crate) fn unauthorized_scenario(operation_id: &str) -> String {
    format!("unauthorized-{}", kebab(operation_id))
}

/// Whether an operation only reads (so its credential scenario runs without writing on).
pub(crate) fn reads(method: &str) -> bool {
    method.eq_ignore_ascii_case("GET")
}

/// Every scenario, in the order a run runs them.
pub fn catalogue() -> Vec<ScenarioInfo> {
    let contract = Contract::courier();
    let info = |name: String, writes: bool, opt_in: bool, rule: String| ScenarioInfo {
        name,
        rule,
        writes,
        opt_in,
    };
    let mut all: Vec<ScenarioInfo> = Vec::new();
    let fixed = |name: &str| {
        let (name, writes, opt_in, rule) = FIXED
            .iter()
            .find(|(n, ..)| *n == name)
            .unwrap_or_else(|| panic!("`{name}` is a fixed scenario"));
        info((*name).to_owned(), *writes, *opt_in, (*rule).to_owned())
    };
    for name in [
        "seed",
        "list-order",
        "list-complete",
        "page-size",
        "cursor-walk",
        "cursor-end",
        "get-listed",
        "compat-list",
    ] {
        all.push(fixed(name));
    }
    if let Some(list) = contract.operation(super::listing::LIST) {
        for (param, facts) in list.filters() {
            let fields = facts.fields.join("` or `");
            let how = match facts.compare.as_str() {
                "at-least" => format!("`{fields}` at least the value"),
                "at-most" => format!("`{fields}` at most the value"),
                _ => format!("`{fields}` equal to the value"),
            };
            all.push(info(
                filter_scenario(&param.name),
                false,
                false,
                format!("`{}` lists exactly the entries with {how}", param.name),
            ));
            if param.multi_valued {
                all.push(info(
                    any_of_scenario(&param.name),
                    false,
                    false,
                    format!(
                        "`{0}=a&{0}=b` lists exactly the entries matching a or b (OR)",
                        param.name
                    ),
                ));
                all.push(info(
                    comma_scenario(&param.name),
                    false,
                    false,
                    format!(
                        "`{0}=a,b` lists the same entries as `{0}=a&{0}=b`",
                        param.name
                    ),
                ));
            }
        }
        for param in &list.parameters {
            if let Some(of) = &param.alias_of {
                all.push(info(
                    alias_scenario(&param.name),
                    false,
                    false,
                    format!("`{}` filters as `{of}` does", param.name),
                ));
            }
        }
    }
    for name in ["filter-and", "filter-date-range"] {
        all.push(fixed(name));
    }
    for name in [
        "not-found-get",
        "not-found-url-group",
        "not-found-index",
        "not-found-index-stats",
        "bad-request-count",
        "bad-request-empty-value",
        "bad-request-unknown-parameter",
        "bad-request-value-cap",
        "bad-request-malformed-cursor",
        "bad-request-unknown-state",
        "bad-request-source",
        "bad-request-period",
        "credentials-before-parameters",
        "query-token",
        "query-token-not-for-management",
        "method-not-allowed",
        "unknown-path",
    ] {
        all.push(fixed(name));
    }
    for op in &contract.operations {
        all.push(info(
            unauthorized_scenario(&op.operation_id),
            !reads(&op.method),
            false,
            format!(
                "{} {} without credentials or with wrong ones is 401 with the error body{}",
                op.method,
                op.path,
                if reads(&op.method) {
                    ""
                } else {
                    ", and changes nothing"
                }
            ),
        ));
    }
    for name in [
        "account-stats-series",
        "account-stats-days",
        "account-stats-dlq-count",
        "index-contents",
        "index-stats-series",
        "url-group-contents",
        "list-shows-added",
        "delete-one",
        "delete-one-workflow-path",
        "delete-one-unknown",
        "bulk-delete-ids",
        "bulk-delete-ids-ignore-filters",
        "bulk-delete-filter",
        "cancel-run",
        "cancel-run-unknown",
        "bad-request-bulk-count",
        "cleanup",
        "rate-limit",
        "retention",
        "dlq-size",
        "rotation",
    ] {
        all.push(fixed(name));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixed_scenario_is_in_the_catalogue_once() {
        let all = catalogue();
        for (name, ..) in FIXED {
            assert_eq!(
                all.iter().filter(|info| info.name == *name).count(),
                1,
                "{name}"
            );
        }
        let mut names: Vec<&str> = all.iter().map(|info| info.name.as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "scenario names are unique");
        assert_eq!(kebab("failureFunctionState"), "failure-function-state");
        assert_eq!(kebab("callerIP"), "caller-ip");
    }

    #[test]
    fn every_filter_of_the_spec_has_its_scenarios() {
        let all = catalogue();
        let list = Contract::courier().operation("listWorkflowDlq").unwrap();
        for parameter in &list.parameters {
            if parameter.group.as_deref() == Some("DlqFilter") {
                assert!(
                    parameter.matches.is_some(),
                    "{} has its facts",
                    parameter.name
                );
                assert!(
                    all.iter()
                        .any(|info| info.name == filter_scenario(&parameter.name)),
                    "the filter `{}` has a scenario",
                    parameter.name
                );
            }
        }
    }
}
