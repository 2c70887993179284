//! The world the matrix runs in: a service, its fixtures (fresh ids per case) and the sending
//! of one case.

use super::cases::{Auth, Case, Credentials, Expect, cases, wrong_token};
use super::common;
use super::operations::{Operation, ROTATE, target};
use courier_service::testing::TestService;
use courier_service::time::now_ms;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// What came back for one request.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(crate) status: u16,
    pub(crate) challenge: Option<String>,
    pub(crate) content_type: Option<String>,
    /// `Burst-RateLimit-Reset`: Unix seconds of the end of the per-second window counted in.
    pub(crate) burst_reset: Option<String>,
    pub(crate) body: String,
}

pub(crate) struct World {
    pub(crate) service: TestService,
    pub(crate) http: reqwest::Client,
    pub(crate) credentials: Credentials,
    pub(crate) url_group: String,
    pub(crate) index_id: String,
    pub(crate) serial: usize,
    /// Problems found, reported together at the end.
    pub(crate) problems: Vec<String>,
    /// Which cases ran on which operation.
    pub(crate) coverage: BTreeMap<String, BTreeSet<&'static str>>,
    pub(crate) requests: usize,
}

impl World {
    pub(crate) async fn start() -> World {
        let service = TestService::start().await;
        // No idle connections kept: the restart must not meet a pooled connection it closed.
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("http client");
        let credentials = Credentials {
            token: service.service_token.clone(),
            old_token: None,
            customer_id: service.customer_id.clone(),
            management_key: service.management_key.clone(),
        };
        let mut world = World {
            service,
            http,
            credentials,
            url_group: "auth-matrix".to_owned(),
            index_id: "5b0f3f7e-2a44-4c1e-9d55-6f1f0a1c2b3d".to_owned(),
            serial: 0,
            problems: Vec::new(),
            coverage: BTreeMap::new(),
            requests: 0,
        };
        world.create_lasting_resources().await;
        world
    }

    /// The URL group and search index: no operation of the spec removes them.
    pub(crate) async fn create_lasting_resources(&mut self) {
        let lasting = [
            (
                format!("/topics/{}", self.url_group),
                json!({"endpoints": [{"name": "a", "url": "https://a.example"}]}),
            ),
            (
                format!("/search/{}", self.index_id),
                common::search_index_json(&self.service.customer_id),
            ),
        ];
        for (path, body) in lasting {
            let (status, answer) = self.service.admin_call(Method::PUT, &path, &body).await;
            assert_eq!(status, 200, "{path}: {answer}");
        }
    }

    /// A fresh DLQ entry of a fresh run, plus the lasting resources: every path parameter the
    /// spec uses, by name.
    pub(crate) async fn fixtures(&mut self) -> BTreeMap<&'static str, String> {
        self.serial += 1;
        let run_id = format!("wfr_auth_{:04}", self.serial);
        let created_at = now_ms();
        let dlq_id = self
            .service
            .insert_dlq(&[common::admin_entry(&run_id, created_at, "auth-matrix")])
            .await
            .remove(0);
        BTreeMap::from([
            ("dlqId", dlq_id),
            ("workflowRunId", run_id),
            ("urlGroupName", self.url_group.clone()),
            ("id", self.index_id.clone()),
        ])
    }

    /// Every DLQ id, with the current token; `None` (and a problem) when that fails.
    pub(crate) async fn dlq_ids(&mut self, context: &str) -> Option<BTreeSet<String>> {
        let mut ids = BTreeSet::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut request = self
                .http
                .get(format!("{}/v2/workflows/dlq", self.service.base_url()))
                .bearer_auth(&self.credentials.token)
                .query(&[("count", "100")]);
            if let Some(cursor) = &cursor {
                request = request.query(&[("cursor", cursor)]);
            }
            let response = request.send().await.expect("list");
            self.requests += 1;
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            if status != 200 {
                self.problems.push(format!(
                    "{context}: listing the DLQ with the current token answered {status} {body}"
                ));
                return None;
            }
            for message in body["messages"].as_array().into_iter().flatten() {
                ids.insert(message["dlqId"].as_str().unwrap_or_default().to_owned());
            }
            match body["cursor"].as_str() {
                Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
                _ => return Some(ids),
            }
        }
    }

    pub(crate) async fn send(&mut self, operation: &Operation, path: &str, case: &Case) -> Outcome {
        let mut request = self.http.request(
            operation.method.clone(),
            format!("{}{path}", self.service.base_url()),
        );
        request = match &case.auth {
            Auth::None => request,
            Auth::Bearer(token) => request.bearer_auth(token),
            Auth::Basic(user, password) => request.basic_auth(user, Some(password)),
        };
        if let Some(token) = &case.query_token {
            request = request.query(&[("service_token", token)]);
        }
        let response = request.send().await.unwrap_or_else(|e| {
            panic!(
                "{} {} ({}): request failed: {e}",
                operation.method, path, case.name
            )
        });
        self.requests += 1;
        let header = |name| {
            response
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap_or("<not text>").to_owned())
        };
        let challenge = header(reqwest::header::WWW_AUTHENTICATE);
        let content_type = header(reqwest::header::CONTENT_TYPE);
        let burst_reset = header(reqwest::header::HeaderName::from_static(
            "burst-ratelimit-reset",
        ));
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        Outcome {
            status,
            challenge,
            content_type,
            burst_reset,
            body,
        }
    }

    /// Every secret a body must never echo.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let c = &self.credentials;
        let mut secrets = vec![
            c.token.clone(),
            wrong_token(&c.token),
            c.management_key.clone(),
            wrong_token(&c.management_key),
            self.service.admin_token.clone(),
        ];
        secrets.extend(c.old_token.clone());
        secrets
    }

    /// Checks one outcome against the case's expectation; records problems, returns the body.
    pub(crate) fn check(
        &mut self,
        stage: &str,
        operation: &Operation,
        case: &Case,
        outcome: &Outcome,
    ) -> Value {
        let at = format!(
            "[{stage}] {} {} ({}) / {}",
            operation.method, operation.path, operation.id, case.name
        );
        let mut problems = Vec::new();
        let body: Value = serde_json::from_str(&outcome.body).unwrap_or(Value::Null);
        let expected = match case.expect {
            Expect::Unauthorized => 401,
            Expect::UnknownParameter(_) => 400,
            Expect::Success => operation.success,
        };
        if outcome.status != expected {
            problems.push(format!(
                "status {} (expected {expected}), body {}",
                outcome.status, outcome.body
            ));
        }
        if !operation.documented.contains(&expected) {
            problems.push(format!("the spec does not document {expected}"));
        }
        if case.expect != Expect::Success {
            let error = body["error"].as_str().unwrap_or_default();
            if error.trim().is_empty() {
                problems.push(format!(
                    "the error body has no non-empty `error` string: {:?}",
                    outcome.body
                ));
            }
            if !outcome
                .content_type
                .as_deref()
                .is_some_and(|t| t.starts_with("application/json"))
            {
                problems.push(format!("content-type {:?}, not JSON", outcome.content_type));
            }
            for secret in self.secrets() {
                if outcome.body.contains(&secret) {
                    problems.push(format!(
                        "the error body echoes a credential: {}",
                        outcome.body
                    ));
                }
            }
            if let Expect::UnknownParameter(name) = case.expect
                && !error.contains(name)
            {
                problems.push(format!("the 400 does not name `{name}`: {error:?}"));
            }
        }
        if case.expect == Expect::Unauthorized {
            let scheme = operation.interface.challenge();
            match &outcome.challenge {
                None => problems.push("no WWW-Authenticate header".to_owned()),
                Some(challenge) if !challenge.to_ascii_lowercase().starts_with(scheme) => problems
                    .push(format!(
                        "WWW-Authenticate {challenge:?} does not challenge for {scheme}"
                    )),
                Some(_) => {}
            }
        }
        self.problems
            .extend(problems.into_iter().map(|p| format!("{at}: {p}")));
        self.coverage
            .entry(operation.id.clone())
            .or_default()
            .insert(case.name);
        body
    }

    /// The whole matrix once, with the credentials as they are now.
    pub(crate) async fn stage(&mut self, stage: &str, operations: &[Operation]) {
        for operation in operations {
            let all = cases(operation.interface, &self.credentials);
            let (rejected, valid): (Vec<Case>, Vec<Case>) =
                all.into_iter().partition(|c| c.expect != Expect::Success);

            // Rejected calls target existing resources (so a 401 is not a 404 in disguise) and
            // must change nothing: no entry deleted, no run cancelled, no token rotated.
            let values = self.fixtures().await;
            let path = target(operation, &values)
                .unwrap_or_else(|e| panic!("{} is not covered: {e}", operation.id));
            let before = self.dlq_ids(stage).await;
            for case in &rejected {
                let outcome = self.send(operation, &path, case).await;
                self.check(stage, operation, case, &outcome);
            }
            let after = self.dlq_ids(stage).await;
            if before != after {
                self.problems.push(format!(
                    "[{stage}] {} ({}): rejected calls changed the DLQ: before {before:?}, after {after:?}",
                    operation.path, operation.id
                ));
            }

            if operation.id == ROTATE {
                continue; // Its valid call is the rotation step.
            }
            for case in &valid {
                let values = self.fixtures().await;
                let path = target(operation, &values).expect("filled above");
                let outcome = self.send(operation, &path, case).await;
                self.check(stage, operation, case, &outcome);
            }
        }
    }

    /// The valid call of the rotation operation: the old token is kept as "from before rotation".
    pub(crate) async fn rotate(&mut self, operations: &[Operation]) {
        let operation = operations
            .iter()
            .find(|o| o.id == ROTATE)
            .unwrap_or_else(|| panic!("the spec has no `{ROTATE}` operation"));
        let case = cases(operation.interface, &self.credentials)
            .into_iter()
            .find(|c| c.expect == Expect::Success)
            .expect("a valid case");
        let outcome = self.send(operation, &operation.path, &case).await;
        let body = self.check("rotation", operation, &case, &outcome);
        let new_token = body["token"].as_str().unwrap_or_default().to_owned();
        assert!(
            !new_token.is_empty() && new_token != self.credentials.token,
            "rotation must return a new token: {} {}",
            outcome.status,
            outcome.body
        );
        let old = std::mem::replace(&mut self.credentials.token, new_token);
        self.credentials.old_token = Some(old);
    }
}
