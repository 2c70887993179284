//! The load a crash interrupts: the entries, filling the store, the racing writers and bulk
//! deletes, and token rotation.

use super::*;

/// Entry `n` with id `id`: every kind of field set, varied; about half carry [`DELETE_LABEL`].
pub(crate) fn entry(id: &str, n: usize, created_at: i64) -> Value {
    let workflow = [
        "https://a.example/wf",
        "https://b.example/wf",
        "https://c.example/wf",
    ][n % 3];
    let state = [
        "CALLBACK_INPROGRESS",
        "CALLBACK_SUCCESS",
        "CALLBACK_FAIL",
        "CALLBACK_CANCELED",
    ][n % 4];
    let mut labels = vec![format!("team-{}", n % 7)];
    if n % 10 < 5 {
        labels.push(DELETE_LABEL.to_owned());
    }
    let mut value = json!({
        "dlqId": id,
        "messageId": format!("msg_{id}"),
        "url": format!("{workflow}/step-{}", n % 5),
        "method": "POST",
        "header": {"Content-Type": ["application/json"], "X-N": [n.to_string()]},
        "maxRetries": (n % 6) as i64,
        "createdAt": created_at + (n % 1000) as i64,
        "callerIP": format!("10.0.{}.{}", n % 3, n % 250),
        "workflowRunId": format!("wfr_{id}"),
        "workflowCreatedAt": created_at - 1000,
        "workflowUrl": workflow,
        "flowControlKey": format!("key-{}", n % 2),
        "labels": labels,
        "failureCallback": format!("{workflow}/failure"),
        "failureCallbackInfo": {"state": state, "responseStatus": 500 + (n % 4) as i64},
        "responseStatus": 500 + (n % 5) as i64,
        "responseHeader": {"Retry-After": [(n % 60).to_string()]},
    });
    let object = value.as_object_mut().expect("object");
    if n.is_multiple_of(6) {
        // Not UTF-8, so the admin API takes it as base64.
        let bytes = [0xff, 0xfe, (n % 256) as u8, 0x00];
        object.insert(
            "bodyBase64".into(),
            base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .into(),
        );
    } else {
        object.insert("body".into(), format!("{{\"n\":{n}}}").into());
        object.insert("responseBody".into(), format!("failed {n}").into());
    }
    value
}

pub(crate) fn base_id(n: usize) -> String {
    format!("e{n:06}")
}

pub(crate) fn matches_delete(entry: &Value) -> bool {
    entry["labels"]
        .as_array()
        .is_some_and(|labels| labels.iter().any(|l| l == DELETE_LABEL))
}

pub(crate) fn id_of(entry: &Value) -> &str {
    entry["dlqId"].as_str().expect("dlqId")
}

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client")
}

/// Posts one batch through the admin API: `Ok(status, body)` or `Err` when no response arrived.
pub(crate) async fn post_batch(
    client: &reqwest::Client,
    base: &str,
    batch: &[Value],
) -> Result<(u16, Value), reqwest::Error> {
    let response = client
        .post(format!("{base}/admin/v1/dlq"))
        .bearer_auth(ADMIN_TOKEN)
        .json(batch)
        .send()
        .await?;
    let status = response.status().as_u16();
    let body = response.json().await?;
    Ok((status, body))
}

pub(crate) async fn send_json(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Fills a fresh data directory with the base entries and stops the service cleanly.
pub(crate) async fn fill(data_dir: &Path, entries: &[Value]) {
    let server = Server::start(data_dir).await;
    let client = client();
    // Lift the per-second limit: the race and the checks send far more than 1000 a second.
    let (status, body) = send_json(
        client
            .patch(format!("{}/admin/v1/account", server.base()))
            .bearer_auth(ADMIN_TOKEN)
            .json(&json!({"max_requests_per_second": 1_000_000})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (index, batch) in entries.chunks(FILL_BATCH).enumerate() {
        let (client, base, batch) = (client.clone(), server.base().to_owned(), batch.to_vec());
        tasks.spawn(async move {
            let (status, body) = post_batch(&client, &base, &batch).await.expect("fill");
            assert_eq!(status, 201, "fill batch {index}: {body}");
            let ids: Vec<&str> = batch.iter().map(id_of).collect();
            assert_eq!(body["dlqIds"], json!(ids), "fill batch {index}");
        });
        // Two requests in flight at a time.
        if tasks.len() >= 2 {
            tasks.join_next().await.expect("task").expect("fill task");
        }
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("fill task");
    }
    eprintln!(
        "crash: filled {BASE_ENTRIES} entries in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    server.stop();
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    for file in std::fs::read_dir(from).expect("read data dir") {
        let file = file.expect("dir entry");
        std::fs::copy(file.path(), to.join(file.file_name())).expect("copy");
    }
}

/// What became of one admin request of the race.
pub(crate) enum Outcome {
    /// No response arrived (in flight at the kill, or refused after it).
    Unknown,
    Created,
    Failed(u16, String),
}

pub(crate) struct Batch {
    pub(crate) entries: Vec<Value>,
    pub(crate) outcome: Outcome,
}

#[derive(Default)]
pub(crate) struct DeleteLog {
    /// The last id deleted by each acknowledged page (from its cursor).
    pub(crate) acknowledged: Vec<String>,
    /// The loop reached the end (a page without a cursor) before the kill.
    pub(crate) finished: bool,
    pub(crate) deleted: u64,
    pub(crate) failures: Vec<String>,
}

/// Everything the race did, as the clients saw it.
#[derive(Default)]
pub(crate) struct Race {
    pub(crate) batches: Mutex<Vec<Batch>>,
    pub(crate) deletes: Mutex<DeleteLog>,
}

/// Deletes matching entries page by page until the end or the first missing response; `pages`
/// counts the acknowledged pages (and closes when the loop ends).
pub(crate) async fn delete_loop(
    base: String,
    token: String,
    race: Arc<Race>,
    pages: tokio::sync::watch::Sender<usize>,
) {
    let client = client();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{base}/v2/workflows/dlq?label={DELETE_LABEL}&count=1000");
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let Ok(response) = client.delete(url).bearer_auth(&token).send().await else {
            return;
        };
        let status = response.status().as_u16();
        let Ok(body) = response.json::<Value>().await else {
            return;
        };
        let mut log = race.deletes.lock().expect("log");
        if status != 200 {
            log.failures.push(format!("{status}: {body}"));
            return;
        }
        log.deleted += body["deleted"].as_u64().expect("deleted");
        match body["cursor"].as_str() {
            Some(next) => {
                let last = courier_service::cursor::decode(next).expect("a cursor we issued");
                log.acknowledged.push(last);
                pages.send_replace(log.acknowledged.len());
                cursor = Some(next.to_owned());
            }
            None => {
                log.finished = true;
                return;
            }
        }
    }
}

pub(crate) async fn writer(
    base: String,
    scenario: usize,
    writer: usize,
    created_at: i64,
    race: Arc<Race>,
) {
    let client = client();
    for batch_number in 0..200 {
        let entries: Vec<Value> = (0..RACE_BATCH)
            .map(|j| {
                let k = batch_number * RACE_BATCH + j;
                // Spread over the base ids, so the delete's keyset scan meets them anywhere.
                let position = (k * 7919 + writer * 104_729) % BASE_ENTRIES;
                let id = format!("e{position:06}-s{scenario}w{writer}b{batch_number:03}i{j:03}");
                entry(&id, BASE_ENTRIES + k + writer, created_at)
            })
            .collect();
        assert!(
            entries.iter().any(|e| !matches_delete(e)),
            "every race batch has entries the delete leaves alone, to see all-or-nothing"
        );
        let index = {
            let mut batches = race.batches.lock().expect("batches");
            batches.push(Batch {
                entries: entries.clone(),
                outcome: Outcome::Unknown,
            });
            batches.len() - 1
        };
        let outcome = match post_batch(&client, &base, &entries).await {
            Ok((201, body)) => {
                let ids: Vec<&str> = entries.iter().map(id_of).collect();
                if body["dlqIds"] == json!(ids) {
                    Outcome::Created
                } else {
                    Outcome::Failed(201, format!("unexpected ids: {body}"))
                }
            }
            Ok((status, body)) => Outcome::Failed(status, body.to_string()),
            Err(_) => return,
        };
        race.batches.lock().expect("batches")[index].outcome = outcome;
    }
}

/// Rotates the service token; returns the new one.
pub(crate) async fn rotate(base: &str) -> String {
    let (status, body) = send_json(
        client()
            .post(format!("{base}/v2/svc/user/rotatetoken"))
            .basic_auth(CUSTOMER_ID, Some(MANAGEMENT_KEY)),
    )
    .await;
    assert_eq!(status, 200, "rotation: {body}");
    body["token"].as_str().expect("token").to_owned()
}
