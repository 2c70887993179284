//! How the verifier creates the data its scenarios check: a [`Seed`] stores failed runs, a
//! search index and a URL group in the service under test, in the models' types (what courier's
//! admin API takes). [`AdminSeed`] does it through that API; an in-process fake implements
//! [`Seed`] over its own state.

use courier_models::{FailedWorkflowRun, SearchIndex, UrlGroup};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

/// The future a [`Seed`] method returns: boxed, so `Seed` can be a trait object.
pub type SeedFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// The account's DLQ limits a [`Seed`] may set: `None` leaves one as it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DlqLimits {
    /// `max_dlq_size`: adding an entry to a full DLQ evicts its oldest.
    pub max_dlq_size: Option<i64>,
    /// `max_dlq_retention_time_milis`: an older entry is gone on every path.
    pub max_dlq_retention_time_milis: Option<i64>,
}

/// A way to create data in the service under test.
///
/// Only [`insert_dlq`](Seed::insert_dlq) is required. The others answer `Ok(false)` by
/// default: the scenarios that need them are then *inconclusive* (the report says the seed
/// offers no index or URL group), never passed on nothing.
pub trait Seed: Send + Sync {
    /// Stores failed workflow runs as given (`dlqId`, `messageId` and `createdAt` included, so
    /// the verifier knows what it is looking for) and answers their `dlqId`s in the same order.
    /// An implementation that must choose its own ids answers those instead. Each entry also
    /// makes its run known, so cancelling the run removes the entry.
    fn insert_dlq(&self, entries: Vec<FailedWorkflowRun>) -> SeedFuture<'_, Vec<String>>;

    /// Stores a search index (its `throughput_vector` empty), so get-index and its statistics
    /// can be checked; `Ok(false)` when the implementation has no indexes to offer.
    fn insert_search_index(&self, index: SearchIndex) -> SeedFuture<'_, bool> {
        let _ = index;
        Box::pin(async { Ok(false) })
    }

    /// Stores a URL group (its times are the implementation's); `Ok(false)` when the
    /// implementation has no URL groups to offer.
    fn insert_url_group(&self, group: UrlGroup) -> SeedFuture<'_, bool> {
        let _ = group;
        Box::pin(async { Ok(false) })
    }

    /// Sets the account's DLQ limits and answers both as they were before, so the run can put
    /// them back; `Ok(None)` when the implementation offers no way to set them. Only the
    /// `retention` and `dlq-size` scenarios call it, and only when named.
    fn set_dlq_limits(&self, limits: DlqLimits) -> SeedFuture<'_, Option<DlqLimits>> {
        let _ = limits;
        Box::pin(async { Ok(None) })
    }
}

/// Seeds through courier's admin API (`courier serve --admin-token`): `POST /admin/v1/dlq`,
/// `PUT /admin/v1/search/{id}`, `PUT /admin/v1/topics/{name}` and `PATCH /admin/v1/account`.
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

    /// `/admin/v1/<segments>` under the base URL, each segment percent-encoded.
    fn url(&self, segments: &[&str]) -> Result<reqwest::Url, String> {
        let mut url = self.base_url.clone();
        url.path_segments_mut()
            .map_err(|()| format!("the base URL {} cannot take a path", self.base_url))?
            .pop_if_empty()
            .extend(["admin", "v1"])
            .extend(segments);
        Ok(url)
    }

    async fn send(
        &self,
        method: reqwest::Method,
        segments: &[&str],
        body: &Value,
    ) -> Result<Value, String> {
        let url = self.url(segments)?;
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
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(&text).map_err(|e| format!("admin API {url}: {e}"))
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| format!("the seed's data as JSON: {e}"))
}

impl Seed for AdminSeed {
    fn insert_dlq(&self, entries: Vec<FailedWorkflowRun>) -> SeedFuture<'_, Vec<String>> {
        Box::pin(async move {
            let answer = self
                .send(reqwest::Method::POST, &["dlq"], &to_json(&entries)?)
                .await?;
            serde_json::from_value(answer["dlqIds"].clone())
                .map_err(|e| format!("admin API: `dlqIds` of the answer: {e}"))
        })
    }

    fn insert_search_index(&self, index: SearchIndex) -> SeedFuture<'_, bool> {
        Box::pin(async move {
            let mut body = to_json(&index)?;
            if let Some(object) = body.as_object_mut() {
                object.remove("throughput_vector");
            }
            let id = index.id.to_string();
            self.send(reqwest::Method::PUT, &["search", &id], &body)
                .await?;
            Ok(true)
        })
    }

    fn set_dlq_limits(&self, limits: DlqLimits) -> SeedFuture<'_, Option<DlqLimits>> {
        Box::pin(async move {
            let limits_of = |account: &Value| DlqLimits {
                max_dlq_size: account["max_dlq_size"].as_i64(),
                max_dlq_retention_time_milis: account["max_dlq_retention_time_milis"].as_i64(),
            };
            // An empty change answers the account as it is.
            let before = self
                .send(reqwest::Method::PATCH, &["account"], &serde_json::json!({}))
                .await?;
            let mut change = serde_json::Map::new();
            if let Some(size) = limits.max_dlq_size {
                change.insert("max_dlq_size".into(), size.into());
            }
            if let Some(retention) = limits.max_dlq_retention_time_milis {
                change.insert("max_dlq_retention_time_milis".into(), retention.into());
            }
            self.send(reqwest::Method::PATCH, &["account"], &Value::Object(change))
                .await?;
            Ok(Some(limits_of(&before)))
        })
    }

    fn insert_url_group(&self, group: UrlGroup) -> SeedFuture<'_, bool> {
        Box::pin(async move {
            let body = serde_json::json!({ "endpoints": to_json(&group.endpoints)? });
            self.send(reqwest::Method::PUT, &["topics", &group.name], &body)
                .await?;
            Ok(true)
        })
    }
}

/// A random (version 4) UUID, lower-case.
pub(crate) fn random_uuid() -> String {
    uuid::Builder::from_random_bytes(rand::random())
        .into_uuid()
        .to_string()
}
