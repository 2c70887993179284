//! How writing scenarios create their own data: a [`Seed`] stores failed runs (and may name a
//! search index) in the service under test. [`AdminSeed`] does it through courier's admin API;
//! an in-process fake implements [`Seed`] itself.

use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;

/// The future a [`Seed`] method returns: boxed, so `Seed` can be a trait object.
pub type SeedFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// A way to create data in the service under test.
pub trait Seed: Send + Sync {
    /// Stores failed workflow runs, each in the shape of a single failed run (section 2.2)
    /// without `dlqId` (and possibly without `messageId` and `createdAt`, which the service
    /// chooses), and answers their new `dlqId`s in the same order. Each entry also makes its
    /// run known, so cancelling the run removes the entry.
    fn insert_dlq(&self, entries: Vec<Value>) -> SeedFuture<'_, Vec<String>>;

    /// The id of a search index the statistics scenarios may read, created if need be; `None`
    /// when the implementation has no search indexes to offer.
    fn search_index(&self) -> SeedFuture<'_, Option<String>> {
        Box::pin(async { Ok(None) })
    }
}

/// Seeds through courier's admin API (`courier serve --admin-token`): `POST /admin/v1/dlq`
/// and `PUT /admin/v1/search/{id}`.
pub struct AdminSeed {
    client: reqwest::Client,
    base_url: reqwest::Url,
    token: String,
}

impl AdminSeed {
    /// The admin API under `base_url` (the messaging listener), with its bearer token.
    pub fn new(
        client: reqwest::Client,
        base_url: reqwest::Url,
        token: impl Into<String>,
    ) -> AdminSeed {
        AdminSeed {
            client,
            base_url,
            token: token.into(),
        }
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: &Value,
    ) -> Result<Value, String> {
        let url = self
            .base_url
            .join(path.trim_start_matches('/'))
            .map_err(|e| format!("admin URL {path}: {e}"))?;
        let response = self
            .client
            .request(method, url.clone())
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .map_err(|e| format!("admin API {url}: {e}"))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|e| format!("admin API {url}: {e}"))?;
        if !status.is_success() {
            return Err(format!("admin API {url} answered {status}: {text}"));
        }
        serde_json::from_str(&text).map_err(|e| format!("admin API {url}: {e}"))
    }
}

impl Seed for AdminSeed {
    fn insert_dlq(&self, entries: Vec<Value>) -> SeedFuture<'_, Vec<String>> {
        Box::pin(async move {
            let answer = self
                .send(
                    reqwest::Method::POST,
                    "admin/v1/dlq",
                    &Value::Array(entries),
                )
                .await?;
            serde_json::from_value(answer["dlqIds"].clone())
                .map_err(|e| format!("admin API: `dlqIds` of the answer: {e}"))
        })
    }

    fn search_index(&self) -> SeedFuture<'_, Option<String>> {
        Box::pin(async move {
            let id = random_uuid();
            let index = json!({
                "customer_id": "courier-verify@example.invalid",
                "name": format!("courier-verify-{}", &id[..8]),
                "endpoint": "https://courier-verify.example.invalid",
                "type": "payg",
                "region": "eu-west-1",
                "hosting_email": "",
                "token": "courier-verify-index-token",
                "read_only_token": "courier-verify-index-read-token",
                "max_vector_count": 1000,
                "max_monthly_reranks": -1,
                "max_daily_updates": -1,
                "max_daily_queries": -1,
                "max_monthly_bandwidth": -1,
                "max_writes_per_second": 10,
                "max_query_per_second": 10,
                "max_reads_per_request": 10,
                "max_writes_per_request": 10,
                "creation_time": 1_700_000_000,
                "input_enrichment_enabled": false
            });
            self.send(
                reqwest::Method::PUT,
                &format!("admin/v1/search/{id}"),
                &index,
            )
            .await?;
            Ok(Some(id))
        })
    }
}

/// A random (version 4) UUID, lower-case.
pub(crate) fn random_uuid() -> String {
    uuid::Builder::from_random_bytes(rand::random())
        .into_uuid()
        .to_string()
}
