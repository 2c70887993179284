//! Fuzz target: `Query::parse`, every accessor and every generated `*Request::parse` on arbitrary
//! query strings. Panics on a crash and on a broken contract: a rejection that is not a 400, has
//! an empty message or does not name a parameter in backticks.
#![no_main]

use courier_models::{FailureFunctionState, StatsPeriod};
use courier_server::query::Query;
use courier_server::runtime::{PathParams, Rejection};
use courier_server::*;
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

/// Every query key some operation declares, from the generated table of operations.
static KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut keys: Vec<&'static str> = courier_models::OPERATIONS
        .iter()
        .flat_map(|operation| operation.query.iter().map(|key| key.name))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
});

/// A rejection must be a 400 with a message naming one of `names` in backticks.
fn expect_named(result: Result<impl Sized, Rejection>, names: &[&str]) {
    if let Err(rejection) = result {
        assert_eq!(rejection.status(), 400, "{}", rejection.message());
        assert!(
            names
                .iter()
                .any(|name| rejection.message().contains(&format!("`{name}`")))
                // An unknown key is named too, but the target does not decode keys itself.
                || rejection.message().starts_with("unknown query parameter `"),
            "{} names none of {names:?}",
            rejection.message()
        );
    }
}

fn path() -> PathParams {
    PathParams::new(
        [
            ("workflowRunId", "wfr_1"),
            ("dlqId", "1-0"),
            ("urlGroupName", "orders"),
            ("id", "idx-1"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .to_vec(),
    )
}

fuzz_target!(|data: &[u8]| {
    let raw = String::from_utf8_lossy(data);
    let query = Query::parse(&raw);
    for &name in KEYS.iter() {
        expect_named(query.string(name), &[name]);
        expect_named(query.integer(name, None, None), &[name]);
        if let Ok(Some(value)) = query.integer(name, Some(1), Some(1000)) {
            assert!((1..=1000).contains(&value));
        }
        expect_named(query.integer(name, Some(1), Some(1000)), &[name]);
        expect_named(query.boolean(name), &[name]);
        if let Ok(values) = query.strings(name) {
            assert!(values.iter().all(|value| !value.is_empty()));
        }
        expect_named(query.strings(name), &[name]);
        expect_named(query.enum_value::<StatsPeriod>(name, &["1h", "3h"]), &[name]);
        expect_named(query.enum_values::<FailureFunctionState>(name, &[]), &[name]);
        let _ = query.credential(name);
    }
    for allowed in [&[][..], KEYS.as_slice(), ListWorkflowDlqRequest::QUERY_KEYS] {
        expect_named(query.reject_unknown(allowed), &[]);
    }
    for operation in courier_models::OPERATIONS {
        let declared: Vec<&str> = operation.query.iter().map(|key| key.name).collect();
        let parsed =
            parse_request(operation.id, &path(), &query).expect("a parser for every operation");
        expect_named(parsed, &declared);
    }
});
