//! Hand-written accessors over the generated types: bodies as bytes, the failure function's
//! state on both run shapes, and case-insensitive header lookup.

use crate::{FailedWorkflowRun, FailureFunctionState, Headers, WorkflowDlqMessage};
use base64::Engine as _;
use std::fmt;

/// A `*Base64` body field that is not valid standard base64.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidBase64 {
    /// The JSON name of the field, e.g. `bodyBase64`.
    pub field: &'static str,
    /// What the base64 decoder said was wrong.
    pub reason: String,
}

impl fmt::Display for InvalidBase64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not valid base64: {}", self.field, self.reason)
    }
}

impl std::error::Error for InvalidBase64 {}

/// The bytes of a body sent as two exclusive fields: text when UTF-8, base64 otherwise, neither
/// when empty (`WorkflowDLQMessage`).
fn bytes_of(
    text: &Option<String>,
    base64: &Option<String>,
    base64_field: &'static str,
) -> Result<Vec<u8>, InvalidBase64> {
    match (text, base64) {
        (Some(text), _) => Ok(text.clone().into_bytes()),
        (None, Some(encoded)) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| InvalidBase64 {
                field: base64_field,
                reason: e.to_string(),
            }),
        (None, None) => Ok(Vec::new()),
    }
}

macro_rules! body_accessors {
    ($shape:ty) => {
        impl $shape {
            /// The request body as bytes, whichever of `body` / `bodyBase64` carries it (empty
            /// when neither does).
            pub fn body_bytes(&self) -> Result<Vec<u8>, InvalidBase64> {
                bytes_of(&self.body, &self.body_base64, "bodyBase64")
            }

            /// The last response's body as bytes, whichever of `responseBody` /
            /// `responseBodyBase64` carries it (empty when neither does).
            pub fn response_body_bytes(&self) -> Result<Vec<u8>, InvalidBase64> {
                bytes_of(
                    &self.response_body,
                    &self.response_body_base64,
                    "responseBodyBase64",
                )
            }
        }
    };
}

body_accessors!(WorkflowDlqMessage);
body_accessors!(FailedWorkflowRun);

/// The list shape (2.1) of a failed run (2.2): every field the two share, the failure
/// callback's state as `failureFunctionState`, and the compatible additions of
/// `docs/decisions.md#d19-official-client-compatibility` (`messageId`, `notBefore`,
/// `failureCallbackInfo`). What 2.1 does not carry (`failureCallbackHeader`) is left out.
impl From<FailedWorkflowRun> for WorkflowDlqMessage {
    fn from(run: FailedWorkflowRun) -> WorkflowDlqMessage {
        WorkflowDlqMessage {
            failure_function_state: run.failure_callback_info.as_ref().map(|info| info.state),
            failure_callback_info: run.failure_callback_info,
            message_id: Some(run.message_id),
            not_before: run.not_before,
            body: run.body,
            body_base64: run.body_base64,
            caller_ip: run.caller_ip,
            created_at: run.created_at,
            dlq_id: run.dlq_id,
            failure_callback: run.failure_callback,
            flow_control_key: run.flow_control_key,
            header: run.header,
            label: run.label,
            labels: run.labels,
            max_retries: run.max_retries,
            method: run.method,
            response_body: run.response_body,
            response_body_base64: run.response_body_base64,
            response_header: run.response_header,
            response_status: run.response_status,
            url: run.url,
            workflow_created_at: run.workflow_created_at,
            workflow_run_id: run.workflow_run_id,
            workflow_url: run.workflow_url,
        }
    }
}

impl WorkflowDlqMessage {
    /// The failure function's state, `None` when the run has no failure function. The same
    /// accessor exists on [`FailedWorkflowRun`], where the wire keeps it in
    /// `failureCallbackInfo.state`.
    pub fn failure_function_state(&self) -> Option<FailureFunctionState> {
        self.failure_function_state
    }
}

impl FailedWorkflowRun {
    /// The failure function's state (`failureCallbackInfo.state`), `None` when the run has no
    /// failure function; the same accessor as on [`WorkflowDlqMessage`].
    pub fn failure_function_state(&self) -> Option<FailureFunctionState> {
        self.failure_callback_info.as_ref().map(|info| info.state)
    }
}

impl Headers {
    /// The values of header `name`, compared case-insensitively as HTTP requires (the map's own
    /// `get`, through `Deref`, compares exactly). Empty when absent; values of names that differ
    /// only in case are joined in the map's (sorted) order.
    pub fn header_values(&self, name: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(key, _)| key.eq_ignore_ascii_case(name))
            .flat_map(|(_, values)| values.iter().map(String::as_str))
            .collect()
    }

    /// The first value of header `name`, compared case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.header_values(name).into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(json: serde_json::Value) -> WorkflowDlqMessage {
        let mut base = serde_json::json!({
            "dlqId": "d", "createdAt": 1, "header": {"Content-Type": ["text/plain"], "X-Trace": ["a", "b"]},
            "maxRetries": 3, "method": "POST", "url": "https://x.example", "workflowCreatedAt": 1,
            "workflowRunId": "wfr_1", "workflowUrl": "https://x.example/wf"
        });
        base.as_object_mut()
            .unwrap()
            .extend(json.as_object().unwrap().clone());
        serde_json::from_value(base).unwrap()
    }

    #[test]
    fn bodies_come_out_as_bytes_from_either_field() {
        let text = listed(serde_json::json!({"body": "héllo", "responseBody": "nope"}));
        assert_eq!(text.body_bytes().unwrap(), "héllo".as_bytes());
        assert_eq!(text.response_body_bytes().unwrap(), b"nope");
        let binary =
            listed(serde_json::json!({"bodyBase64": "AP8=", "responseBodyBase64": "//4="}));
        assert_eq!(binary.body_bytes().unwrap(), [0x00, 0xff]);
        assert_eq!(binary.response_body_bytes().unwrap(), [0xff, 0xfe]);
        assert!(
            listed(serde_json::json!({}))
                .body_bytes()
                .unwrap()
                .is_empty()
        );
        let broken = listed(serde_json::json!({"bodyBase64": "not base64!"}));
        let error = broken.body_bytes().unwrap_err();
        assert_eq!(error.field, "bodyBase64");
        assert!(
            error
                .to_string()
                .starts_with("`bodyBase64` is not valid base64"),
            "{error}"
        );
    }

    #[test]
    fn both_shapes_answer_failure_function_state() {
        let listed = listed(serde_json::json!({"failureFunctionState": "CALLBACK_FAIL"}));
        assert_eq!(
            listed.failure_function_state(),
            Some(FailureFunctionState::CallbackFail)
        );
        let mut full: FailedWorkflowRun = serde_json::from_value(serde_json::json!({
            "dlqId": "d", "createdAt": 1, "header": {}, "maxRetries": 3, "messageId": "m",
            "method": "POST", "url": "https://x.example", "workflowCreatedAt": 1,
            "workflowRunId": "wfr_1", "workflowUrl": "https://x.example/wf",
            "failureCallbackInfo": {"state": "CALLBACK_SUCCESS"}, "bodyBase64": "AP8="
        }))
        .unwrap();
        assert_eq!(
            full.failure_function_state(),
            Some(FailureFunctionState::CallbackSuccess)
        );
        assert_eq!(full.body_bytes().unwrap(), [0x00, 0xff]);
        full.failure_callback_info = None;
        assert_eq!(full.failure_function_state(), None);
    }

    #[test]
    fn header_lookup_ignores_case() {
        let run = listed(serde_json::json!({}));
        assert_eq!(run.header.header("content-type"), Some("text/plain"));
        assert_eq!(run.header.header("CONTENT-TYPE"), Some("text/plain"));
        assert_eq!(run.header.header_values("x-trace"), ["a", "b"]);
        assert_eq!(run.header.header("accept"), None);
        // The map's own lookup stays exact, which is why the helpers exist.
        assert!(run.header.get("content-type").is_none());
    }

    #[test]
    fn periods_have_readable_names_and_keep_their_wire_form() {
        assert_eq!(crate::StatsPeriod::OneDay.to_string(), "1d");
        assert_eq!(
            "30d".parse::<crate::StatsPeriod>().unwrap(),
            crate::StatsPeriod::ThirtyDays
        );
        assert_eq!(crate::ReservedPlanType::Unreserved.to_string(), "");
    }
}
