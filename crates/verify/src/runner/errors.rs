//! The scenarios of errors and credentials, which need no data: what does not exist is 404,
//! a bad parameter 400, a request without valid credentials 401 (before anything else), and
//! where the service token may travel.

use super::catalogue::{reads, unauthorized_scenario};
use super::http::Auth;
use super::listing::{LIST, Walk};
use super::read::{absent_call, bad_count, bad_value_cap, expect, query_token, unauthorized};
use super::{Run, scenario};

/// (scenario, operation, query key, value, why) of a request that must be 400.
#[rustfmt::skip]
const BAD_REQUESTS: [(&str, &str, &str, &str, &str); 6] = [
    (
        "bad-request-empty-value",
        LIST,
        "label",
        "",
        "for an empty value",
    ),
    (
        "bad-request-unknown-parameter",
        LIST,
        "courierVerifyUnknown",
        "1",
        "for a parameter the operation does not declare",
    ),
    (
        "bad-request-malformed-cursor",
        LIST,
        "cursor",
        "courier-verify-not-a-cursor",
        "for a cursor the service never gave",
    ),
    (
        "bad-request-unknown-state",
        LIST,
        "failureFunctionState",
        "CALLBACK_COURIER_VERIFY",
        "for a state outside the enum",
    ),
    (
        "bad-request-source",
        "listDlqCompat",
        "source",
        "courier-verify",
        "for a source other than workflow",
    ),
    (
        "bad-request-period",
        "getAccountStats",
        "period",
        "courier-verify",
        "for a period outside the enum",
    ),
];

/// (scenario, operation) of a request for something that does not exist.
const NOT_FOUND: [(&str, &str); 4] = [
    ("not-found-get", "getWorkflowDlq"),
    ("not-found-url-group", "getUrlGroup"),
    ("not-found-index", "getSearchIndex"),
    ("not-found-index-stats", "getSearchIndexStats"),
];

/// Runs the scenarios of errors and credentials.
pub(crate) async fn run(run: &mut Run<'_>, listing: &Walk) {
    for (name, op) in NOT_FOUND {
        scenario!(run, name, |scene| async {
            let call = absent_call(&scene, op);
            let why = "for something that does not exist";
            expect(&mut scene, call, Auth::Valid, &[404], why).await;
        });
    }
    scenario!(run, "bad-request-count", |scene| bad_count(&mut scene));
    scenario!(run, "bad-request-value-cap", |scene| bad_value_cap(
        &mut scene
    ));
    for (name, op, key, value, why) in BAD_REQUESTS {
        scenario!(run, name, |scene| async {
            let call = (op, vec![], vec![(key, value.to_owned())]);
            expect(&mut scene, call, Auth::Valid, &[400], why).await;
        });
    }
    scenario!(run, "credentials-before-parameters", |scene| async {
        let why = "without credentials, whatever the parameters";
        for (_, op, key, value, _) in [BAD_REQUESTS[1], BAD_REQUESTS[5]] {
            let call = (op, vec![], vec![(key, value.to_owned())]);
            expect(&mut scene, call, Auth::Missing, &[401], why).await;
        }
    });
    scenario!(run, "query-token", |scene| query_token(&mut scene, listing));
    scenario!(run, "query-token-not-for-management", |scene| async {
        let call = ("getAccountStats", vec![], vec![]);
        let why = "with the service token in the query and no Basic credentials";
        expect(&mut scene, call, Auth::QueryToken, &[400, 401], why).await;
    });
    for op in &crate::Contract::courier().operations {
        if reads(&op.method) {
            let name = unauthorized_scenario(&op.operation_id);
            scenario!(run, name, |scene| unauthorized(
                &mut scene,
                &op.operation_id
            ));
        }
    }
}
