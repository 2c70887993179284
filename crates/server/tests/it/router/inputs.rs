//! Query forms of every multi-value filter, JSON rejections, and credentials checked first.

use super::*;

/// A list request with this raw query and the right token.
async fn list(
    served: &Served,
    query: &str,
) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
    let target = format!("/v2/workflows/dlq?{query}");
    let bearer = format!("Bearer {TOKEN}");
    served
        .raw(reqwest::Method::GET, &target, Some(&bearer))
        .await
}

#[tokio::test]
async fn every_multi_value_filter_accepts_every_query_form() {
    let served = serve().await;
    let bearer = format!("Bearer {TOKEN}");
    // (query string form, values the router must parse out of it)
    let forms: [(&str, &[&str]); 5] = [
        ("{k}=a", &["a"]),
        ("{k}=a&{k}=b", &["a", "b"]),
        ("{k}=a,b", &["a", "b"]),
        ("{k}=a,b&{k}=c", &["a", "b", "c"]),
        ("{k}=a%2Cb&{k}=c+d", &["a,b", "c d"]),
    ];
    type Extract = fn(&ListWorkflowDlqRequest) -> Vec<String>;
    let filters: [(&str, Extract); 4] = [
        ("workflowUrl", |r| r.filter.workflow_url.clone()),
        ("label", |r| r.filter.label.clone()),
        ("callerIp", |r| r.filter.caller_ip.clone()),
        ("flowControlKey", |r| r.filter.flow_control_key.clone()),
    ];
    for (key, extract) in filters {
        for (form, expected) in forms {
            let query = form.replace("{k}", key);
            let (status, _, body) = list(&served, &query).await;
            assert_eq!(status, 200, "{query}: {body}");
            assert_eq!(extract(&served.last_list()), expected, "{query}");
        }
    }
    // The enum filter and bulk delete's dlqIds take the same forms.
    let query = "failureFunctionState=CALLBACK_FAIL,CALLBACK_SUCCESS&failureFunctionState=CALLBACK_CANCELED";
    let (status, _, _) = list(&served, query).await;
    assert_eq!(status, 200);
    assert_eq!(
        served.last_list().filter.failure_function_state,
        [
            FailureFunctionState::CallbackFail,
            FailureFunctionState::CallbackSuccess,
            FailureFunctionState::CallbackCanceled
        ]
    );
    // `docs/decisions.md#d12-multi-value-encoding`: an empty value or an empty item is a 400 naming
    // the key, on every multi-value parameter of both operations; the implementation never sees the
    // request.
    *served.api.last_bulk.lock().unwrap() = None;
    let multi_valued = [
        (reqwest::Method::GET, "workflowUrl"),
        (reqwest::Method::GET, "label"),
        (reqwest::Method::GET, "failureFunctionState"),
        (reqwest::Method::GET, "callerIp"),
        (reqwest::Method::GET, "flowControlKey"),
        (reqwest::Method::DELETE, "dlqIds"),
        (reqwest::Method::DELETE, "label"),
    ];
    for (method, key) in multi_valued {
        for form in [
            "{k}=",
            "{k}=,",
            "{k}=x,",
            "{k}=,x",
            "{k}=x,,y",
            "{k}=x&{k}=",
        ] {
            let query = form.replace("{k}", key);
            let (status, _, body) = served
                .raw(
                    method.clone(),
                    &format!("/v2/workflows/dlq?{query}"),
                    Some(&bearer),
                )
                .await;
            assert_eq!(status, 400, "{method} {query}: {body}");
            let message = body["error"].as_str().unwrap_or_default();
            assert!(
                message.contains(&format!("`{key}` has an empty value")),
                "{query}: {message}"
            );
        }
    }
    assert!(
        served.api.last_bulk.lock().unwrap().is_none(),
        "no refused bulk delete reached the implementation"
    );
    let (status, _, _) = served
        .raw(
            reqwest::Method::DELETE,
            "/v2/workflows/dlq?dlqIds=x,y&dlqIds=z",
            Some(&bearer),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        served
            .api
            .last_bulk
            .lock()
            .unwrap()
            .clone()
            .expect("parsed")
            .dlq_ids,
        ["x", "y", "z"]
    );
}

#[tokio::test]
async fn rejections_are_json_and_name_what_was_wrong() {
    let served = serve().await;
    let bearer = format!("Bearer {TOKEN}");
    let cases: [(&str, &str, u16, &str); 9] = [
        (
            "GET",
            "/v2/workflows/dlq?count=101",
            400,
            "`count` must be at most 100, got 101",
        ),
        ("GET", "/v2/workflows/dlq?count=", 400, "`count` is empty"),
        (
            "GET",
            "/v2/workflows/dlq?count=ten",
            400,
            "`count` must be an integer, got `ten`",
        ),
        (
            "DELETE",
            "/v2/workflows/dlq?dlqIds=a&count=1001",
            400,
            "`count` must be at most 1000, got 1001",
        ),
        (
            "DELETE",
            "/v2/workflows/dlq?lable=oops",
            400,
            "unknown query parameter `lable`",
        ),
        (
            "GET",
            "/v2/workflows/dlq?failureFunctionState=DONE",
            400,
            "`failureFunctionState` must be one of CALLBACK_INPROGRESS",
        ),
        (
            "DELETE",
            "/v2/workflows/runs/wfr_a?cancel=maybe",
            400,
            "`cancel` must be `true` or `false`",
        ),
        ("GET", "/v2/nope", 404, "no such path: /v2/nope"),
        (
            "PUT",
            "/v2/workflows/dlq",
            405,
            "PUT is not allowed on /v2/workflows/dlq",
        ),
    ];
    for (method, path, status, message) in cases {
        let method: reqwest::Method = method.parse().expect("method");
        let (got, headers, body) = served.raw(method, path, Some(&bearer)).await;
        assert_eq!(got, status, "{path}: {body}");
        let error = body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: no error body: {body}"));
        assert!(error.starts_with(message), "{path}: {error}");
        assert_eq!(headers["content-type"], "application/json", "{path}");
        if status == 405 {
            assert_eq!(headers["allow"], "DELETE,GET,HEAD", "{path}");
        }
    }
    // service_token is a messaging credential only (`docs/decisions.md#d4-query-parameter-token`):
    // on management it is unknown.
    let basic = format!("Basic {}", base64_of(&format!("{CUSTOMER}:{KEY}")));
    let management_cases = [
        (
            "/v2/svc/stats?period=2h".to_owned(),
            "`period` must be one of 1h, 3h, 12h, 1d, 3d, 7d, 30d, got `2h`",
        ),
        (
            format!("/v2/svc/stats?service_token={TOKEN}"),
            "unknown query parameter `service_token`: this operation accepts period",
        ),
    ];
    for (path, message) in management_cases {
        let (status, _, body) = served.raw(reqwest::Method::GET, &path, Some(&basic)).await;
        assert_eq!(
            (status, body["error"].as_str().unwrap_or_default()),
            (400, message),
            "{path}"
        );
    }
}

#[tokio::test]
async fn credentials_are_checked_before_anything_else_on_every_operation() {
    let served = serve().await;
    let messaging_ops = [
        ("GET", "/v2/workflows/dlq"),
        ("DELETE", "/v2/workflows/dlq"),
        ("GET", "/v2/workflows/dlq/1-0"),
        ("DELETE", "/v2/dlq/1-0"),
        ("GET", "/v2/topics/orders"),
        ("DELETE", "/v2/workflows/runs/wfr_a"),
    ];
    let management_ops = [
        ("GET", "/v2/search/idx-1"),
        ("GET", "/v2/search/idx-1/stats"),
        ("GET", "/v2/svc/stats"),
        ("POST", "/v2/svc/user/rotatetoken"),
    ];
    let basic = format!("Basic {}", base64_of(&format!("{CUSTOMER}:{KEY}")));
    for (method, path) in messaging_ops.iter().chain(&management_ops) {
        let is_messaging = path.starts_with("/v2/workflows")
            || path.starts_with("/v2/dlq")
            || path.starts_with("/v2/topics");
        let wrong_scheme = if is_messaging {
            basic.clone()
        } else {
            format!("Bearer {TOKEN}")
        };
        for auth in [
            None,
            Some(wrong_scheme.as_str()),
            Some("Bearer wrong"),
            Some("Basic d3Jvbmc6d3Jvbmc="),
        ] {
            let (status, headers, body) = served
                .raw(
                    method.parse().expect("method"),
                    &format!("{path}?count=oops"),
                    auth,
                )
                .await;
            assert_eq!(status, 401, "{method} {path} with {auth:?}: {body}");
            assert!(body["error"].is_string(), "{method} {path}: {body}");
            assert!(headers.contains_key("www-authenticate"), "{method} {path}");
        }
    }
    assert_eq!(
        served.api.entries.lock().unwrap().len(),
        2,
        "no unauthenticated request changed anything"
    );
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}
