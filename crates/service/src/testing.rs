//! `TestService`: the real service in-process, on an ephemeral port and a temporary data dir.
//!
//! For contract tests: start it, fill it through the admin API, point any client at
//! [`TestService::base_url`], and [`TestService::restart`] it to prove durability.
//!
//! ```ignore
//! use courier_models::{FailedWorkflowRun, UrlGroupEndpoint};
//! use courier_service::testing::TestService;
//!
//! let service = TestService::start().await;
//! // Failed runs in the models' type (dlqId, messageId and createdAt left empty or 0 are
//! // chosen by the service), their ids in order.
//! let ids = service.insert_runs(&[run]).await;
//! // A URL group and a search index, as the getters answer them.
//! service.put_url_group("orders", &[UrlGroupEndpoint { name: "a".into(), url: "https://a.example".into() }]).await;
//! service.put_search_index(&index).await;
//! // The account's limits (`max_dlq_size`, `max_dlq_retention_time_milis`, rate limits, ...).
//! service.patch_account(serde_json::json!({"max_requests_per_second": 5})).await;
//! // Any client, pointed at the service.
//! let page = reqwest::Client::new()
//!     .get(format!("{}/v2/workflows/dlq", service.base_url()))
//!     .bearer_auth(&service.service_token)
//!     .send()
//!     .await?;
//! ```
//!
//! `crates/service/tests/it/test_service.rs` runs exactly these steps.
//!
//! Its store is SQLite in a temporary directory; with `COURIER_TEST_SERVICE_STORE=postgres` it is
//! a throwaway schema of the database `COURIER_TEST_POSTGRES` names instead
//! ([`crate::test_database`]), so the same contract and acceptance tests run on both stores.

use crate::account::{InitialCredentials, random_secret};
use crate::app::{Config, bind, open_service, serve};
use crate::store::Durability;
use std::net::SocketAddr;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::pki_types::pem::PemObject;

/// The admin API's HTTP client, trusting `roots` (the test CA of an HTTPS service).
fn admin_client(roots: &[CertificateDer<'static>]) -> reqwest::Client {
    let tls = crate::tls::client_config(roots).expect("the test CA makes a TLS configuration");
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .expect("an HTTP client for the admin API")
}

/// A running service with known credentials. Stops (and deletes its data) when dropped.
pub struct TestService {
    /// The messaging interface's bearer token (`Authorization: Bearer`, or `service_token` in a
    /// list's query).
    pub service_token: String,
    /// The management interface's Basic user name: the account's customer id.
    pub customer_id: String,
    /// The management interface's Basic password.
    pub management_key: String,
    /// The admin API's bearer token (`/admin/v1/...`, which the typed helpers below use).
    pub admin_token: String,
    address: SocketAddr,
    config: Config,
    admin_http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    // Held across restarts, like the binary holds it for its lifetime (dropped before the dir).
    _lock: crate::datadir::DataDirLock,
    _data_dir: tempfile::TempDir,
    /// The PostgreSQL schema holding the store, when the tests run on PostgreSQL.
    _database: Option<crate::test_database::TestDatabase>,
}

/// Set to `postgres` to run every `TestService` on PostgreSQL.
pub const STORE_VARIABLE: &str = "COURIER_TEST_SERVICE_STORE";

impl TestService {
    /// Starts a fresh service: new data dir, random credentials, admin API enabled.
    pub async fn start() -> TestService {
        TestService::start_with(None, admin_client(&[])).await
    }

    /// Like [`TestService::start`], serving HTTPS with `tls` (see [`crate::tls::from_pem`]);
    /// [`TestService::base_url`] then starts with `https://`, and [`TestService::admin`]
    /// trusts `root_pem`, the CA that signed the service's certificate.
    pub async fn start_https(tls: crate::tls::ServerTls, root_pem: &[u8]) -> TestService {
        let roots: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(root_pem)
            .collect::<Result<_, _>>()
            .expect("a PEM CA certificate");
        TestService::start_with(Some(tls), admin_client(&roots)).await
    }

    async fn start_with(
        tls: Option<crate::tls::ServerTls>,
        admin_http: reqwest::Client,
    ) -> TestService {
        let data_dir = tempfile::tempdir().expect("temporary data dir");
        let database = match std::env::var(STORE_VARIABLE).as_deref() {
            Ok("postgres") => Some(crate::test_database::TestDatabase::create().unwrap_or_else(
                || panic!("{STORE_VARIABLE}=postgres needs a database in COURIER_TEST_POSTGRES"),
            )),
            _ => None,
        };
        let config = Config {
            listen: "127.0.0.1:0".parse().expect("address"),
            management_listen: None,
            data_dir: data_dir.path().to_path_buf(),
            postgres: database.as_ref().map(|database| {
                database
                    .url()
                    .parse()
                    .expect("the test database's connection string parses")
            }),
            credentials: InitialCredentials {
                customer_id: Some(format!(
                    "team-{}@example.com",
                    random_secret(4).to_lowercase()
                )),
                service_token: Some(crate::account::service_token("test")),
                management_key: Some(random_secret(18)),
            },
            admin_token: Some(random_secret(18)),
            demo: false,
            // Short, so the slow-client test does not wait long.
            header_read_timeout: std::time::Duration::from_secs(2),
            body_read_timeout: std::time::Duration::from_secs(2),
            write_stall_timeout: std::time::Duration::from_secs(2),
            tls,
            console: true,
            // A test's store is thrown away: flushing each commit to disk was most of the time
            // to start one (BENCHMARKS.md). Restarts in the same process lose nothing.
            durability: Durability::TestOnly,
        };
        let mut service = TestService {
            service_token: String::new(),
            customer_id: String::new(),
            management_key: String::new(),
            admin_token: config.admin_token.clone().unwrap_or_default(),
            address: config.listen,
            config,
            admin_http,
            stop: None,
            task: None,
            _lock: crate::datadir::lock_data_dir(data_dir.path()).expect("data dir lock"),
            _data_dir: data_dir,
            _database: database,
        };
        service.launch().await;
        service
    }

    async fn launch(&mut self) {
        let service = open_service(&self.config).await.expect("service opens");
        let account = service.account();
        self.service_token = account.token;
        self.customer_id = account.customer_id;
        self.management_key = service.management_key();
        let listeners = bind(&self.config).await.expect("bind");
        self.address = listeners.main.local_addr().expect("address");
        // Keep the port across restarts, so clients built before a restart still reach it.
        self.config.listen = self.address;
        let (stop, stopped) = oneshot::channel();
        let config = self.config.clone();
        self.task = Some(tokio::spawn(async move {
            serve(service, &config, listeners, async {
                let _ = stopped.await;
            })
            .await
        }));
        self.stop = Some(stop);
    }

    /// `http://127.0.0.1:<port>` (`https://` when started with TLS): both interfaces and the
    /// admin API.
    pub fn base_url(&self) -> String {
        format!("{}://{}", self.config.scheme(), self.address)
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// Stops the service gracefully and waits until it has released the store.
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            // The serving task ends only by draining, so a join error is a panic in it.
            task.await.expect("service stopped cleanly");
        }
    }

    /// Stops the service and starts it again on the same data dir and port.
    pub async fn restart(&mut self) {
        self.stop().await;
        self.launch().await;
    }

    /// A `reqwest` request to the admin API with the admin token.
    pub fn admin(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.admin_http
            .request(method, format!("{}/admin/v1{path}", self.base_url()))
            .bearer_auth(&self.admin_token)
    }

    /// An admin request with a JSON body: the status and the JSON answer (`Null` when the
    /// answer is not JSON). Only a transport error fails here; the caller checks the status.
    pub async fn admin_call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: &(impl serde::Serialize + ?Sized),
    ) -> (u16, serde_json::Value) {
        let request = self.admin(method, path).json(body);
        let response = request.send().await.expect("the admin API answers");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or_default())
    }

    /// Changes the account through `PATCH /admin/v1/account`. Panics unless the service answers
    /// 200, like any failed test setup.
    pub async fn patch_account(&self, patch: serde_json::Value) {
        let (status, answer) = self
            .admin_call(reqwest::Method::PATCH, "/account", &patch)
            .await;
        assert_eq!(status, 200, "account change refused: {answer}");
    }

    /// Inserts failed runs (`FailedWorkflowRun`s as JSON; `dlqId`, `messageId`, `createdAt` and
    /// `header` optional) through `POST /admin/v1/dlq`; the `dlqId`s they were stored under, in
    /// order. Panics unless the service answers 201, like any failed test setup.
    /// [`TestService::insert_runs`] takes the models' type instead.
    pub async fn insert_dlq(&self, entries: &[serde_json::Value]) -> Vec<String> {
        let (status, body) = self
            .admin_call(reqwest::Method::POST, "/dlq", entries)
            .await;
        assert_eq!(status, 201, "admin insert refused: {body}");
        body["dlqIds"]
            .as_array()
            .expect("dlqIds")
            .iter()
            .map(|id| id.as_str().expect("a dlqId").to_owned())
            .collect()
    }

    /// Inserts failed runs in the models' type through `POST /admin/v1/dlq`: each kept as given,
    /// except an empty `dlqId` or `messageId` and a `createdAt` of 0, which the service chooses.
    /// The `dlqId`s they were stored under, in order. Panics unless the service answers 201.
    pub async fn insert_runs(&self, runs: &[courier_models::FailedWorkflowRun]) -> Vec<String> {
        let entries: Vec<serde_json::Value> = runs
            .iter()
            .map(|run| {
                let mut entry = serde_json::to_value(run).expect("a run serialises");
                if let Some(object) = entry.as_object_mut() {
                    object.retain(|key, value| match key.as_str() {
                        "dlqId" | "messageId" => value.as_str() != Some(""),
                        "createdAt" => value.as_i64() != Some(0),
                        _ => true,
                    });
                }
                entry
            })
            .collect();
        self.insert_dlq(&entries).await
    }

    /// Stores the URL group `name` with `endpoints` through `PUT /admin/v1/topics/{name}`, as
    /// `getUrlGroup` then answers it. Panics unless the service takes it.
    pub async fn put_url_group(&self, name: &str, endpoints: &[courier_models::UrlGroupEndpoint]) {
        let path = format!("/topics/{}", path_segment(name));
        let body = serde_json::json!({ "endpoints": endpoints });
        let (status, answer) = self.admin_call(reqwest::Method::PUT, &path, &body).await;
        assert!(
            (200..300).contains(&status),
            "URL group refused ({status}): {answer}"
        );
    }

    /// Stores a search index through `PUT /admin/v1/search/{id}` (its `throughput_vector` comes
    /// from recorded usage, so the one given is not sent). Panics unless the service takes it.
    pub async fn put_search_index(&self, index: &courier_models::SearchIndex) {
        let mut body = serde_json::to_value(index).expect("an index serialises");
        if let Some(object) = body.as_object_mut() {
            object.remove("throughput_vector");
        }
        let path = format!("/search/{}", index.id);
        let (status, answer) = self.admin_call(reqwest::Method::PUT, &path, &body).await;
        assert!(
            (200..300).contains(&status),
            "search index refused ({status}): {answer}"
        );
    }
}

impl Drop for TestService {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// `text` as one percent-encoded path segment.
fn path_segment(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}
