//! The scenarios of errors and credentials, which need no data: what does not exist is 404,
//! a bad parameter 400, a request without valid credentials 401 (before anything else), and
//! where the service token may travel.

use super::catalogue::{reads, unauthorized_scenario};
use super::http::{Auth, Exchange};
use super::listing::{LIST, Walk};
use super::read::{absent_call, bad_count, bad_value_cap, expect, query_token, unauthorized};
use super::{Run, Scene, scenario};
use serde_json::Value;

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
    scenario!(run, "method-not-allowed", |scene| method_not_allowed(
        &mut scene
    ));
    scenario!(run, "unknown-path", |scene| unknown_path(&mut scene));
}

/// An answer outside the operations, as an exchange of `op` (whose path it asked), so that a
/// failure names the request and what came.
async fn outside(
    scene: &mut Scene<'_>,
    op: &str,
    method: reqwest::Method,
    url: reqwest::Url,
) -> Option<Exchange> {
    scene.requests += 1;
    let contract = scene.op(op);
    let authorization = scene.caller.authorization(contract, Auth::Valid);
    match scene
        .caller
        .send(method, url, authorization.as_ref(), true)
        .await
    {
        Ok(answer) => Some(Exchange {
            op: contract,
            status: answer.status,
            json: serde_json::from_slice(&answer.body).ok(),
            headers: answer.headers,
            body: answer.body,
            curl: answer.curl,
            violations: Vec::new(),
        }),
        Err(unanswered) => {
            scene.fail(&unanswered.curl, unanswered.message);
            None
        }
    }
}

/// The error body every error answer carries.
fn expect_error_body(scene: &mut Scene<'_>, answer: &Exchange) {
    if !answer.at("/error").is_string() {
        let body = Value::String(String::from_utf8_lossy(&answer.body).into_owned());
        scene.violate(
            answer,
            "/error",
            "required",
            &body,
            "an error answer's body is {\"error\": string}",
        );
    }
}

/// A path of the spec that does not serve GET, asked with GET: 405, `Allow`, the error body.
async fn method_not_allowed(scene: &mut Scene<'_>) {
    let contract = crate::Contract::courier();
    let serves_get = |path: &str| {
        contract
            .operations
            .iter()
            .any(|op| op.path == path && reads(&op.method))
    };
    let Some(op) = contract.operations.iter().find(|op| !serves_get(&op.path)) else {
        scene.inconclusive("every path of the spec serves GET");
        return;
    };
    let (_, params, _) = absent_call(scene, &op.operation_id);
    let url = scene.caller.url(op, &params, &[]);
    let Some(answer) = outside(scene, &op.operation_id, reqwest::Method::GET, url).await else {
        return;
    };
    if scene.expect_status(
        &answer,
        &[405],
        &format!("for GET on {}, which serves {}", op.path, op.method),
    ) {
        let allow = answer
            .headers
            .get(http::header::ALLOW)
            .and_then(|v| v.to_str().ok());
        if !allow.is_some_and(|allow| allow.contains(op.method.as_str())) {
            let allow = Value::String(allow.unwrap_or_default().to_owned());
            scene.violate(
                &answer,
                "",
                "allow",
                &allow,
                format!(
                    "a 405 names the methods the path serves in `Allow`, {} among them",
                    op.method
                ),
            );
        }
        expect_error_body(scene, &answer);
    }
}

/// A path the spec does not have: 404 with the error body.
async fn unknown_path(scene: &mut Scene<'_>) {
    let op = scene.op(LIST);
    let mut url = scene.caller.url(op, &[], &[]);
    if let Ok(mut segments) = url.path_segments_mut() {
        segments.pop().push("courier-verify-unknown-path");
    }
    let Some(answer) = outside(scene, LIST, reqwest::Method::GET, url).await else {
        return;
    };
    if scene.expect_status(&answer, &[404], "for a path the spec does not have") {
        expect_error_body(scene, &answer);
    }
}
