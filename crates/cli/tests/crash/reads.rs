//! Reading everything back after a crash: listing in parallel parts and getting each id.

use super::*;

/// Where the parallel listing splits the id space: a partition starts after one of these keys
/// (no base id, and no race id, which extends a base id, falls between `e0xx49~` and `e0xx50`).
pub(crate) const LIST_SPLITS: [&str; 3] = ["e0124~", "e0249~", "e0374~"];

/// Every entry of the DLQ by id: the whole id space in four partitions listed side by side (both
/// cores busy), each following the cursor from a keyset position until it passes the next
/// partition's start; asserts ascending, unrepeated ids.
pub(crate) async fn list_all(base: &str, token: &str) -> BTreeMap<String, Value> {
    let mut tasks = tokio::task::JoinSet::new();
    for part in 0..=LIST_SPLITS.len() {
        let start = part
            .checked_sub(1)
            .map(|i| courier_service::cursor::encode(LIST_SPLITS[i]));
        let end = LIST_SPLITS.get(part).map(|end| end.to_string());
        let (base, token) = (base.to_owned(), token.to_owned());
        tasks.spawn(async move { list_part(&base, &token, start, end).await });
    }
    let mut listed = BTreeMap::new();
    while let Some(part) = tasks.join_next().await {
        for (id, message) in part.expect("list task") {
            assert!(
                listed.insert(id.clone(), message).is_none(),
                "{id} listed twice"
            );
        }
    }
    listed
}

/// The entries after `cursor` up to `end` (inclusive), or to the last page.
pub(crate) async fn list_part(
    base: &str,
    token: &str,
    mut cursor: Option<String>,
    end: Option<String>,
) -> Vec<(String, Value)> {
    let client = client();
    let mut listed = Vec::new();
    let mut last: Option<String> = None;
    loop {
        let mut request = client
            .get(format!("{base}/v2/workflows/dlq"))
            .bearer_auth(token)
            .query(&[("count", "100")]);
        if let Some(cursor) = &cursor {
            request = request.query(&[("cursor", cursor)]);
        }
        let (status, page) = send_json(request).await;
        assert_eq!(status, 200, "list: {page}");
        for message in page["messages"].as_array().expect("messages") {
            let id = id_of(message).to_owned();
            assert!(
                last.as_ref().is_none_or(|last| *last < id),
                "ids ascend without repeats: {last:?} then {id}"
            );
            if end.as_ref().is_some_and(|end| id > *end) {
                return listed;
            }
            last = Some(id.clone());
            listed.push((id, message.clone()));
        }
        match page["cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return listed,
        }
    }
}

/// The listed shape of an entry equals what was sent.
pub(crate) fn assert_listed_whole(sent: &Value, listed: &Value) {
    let id = id_of(sent);
    for (key, value) in sent.as_object().expect("object") {
        if NOT_LISTED.contains(&key.as_str()) {
            continue;
        }
        assert_eq!(&listed[key], value, "{id}: listed `{key}` differs");
    }
    assert_eq!(
        listed["failureFunctionState"], sent["failureCallbackInfo"]["state"],
        "{id}: listed failureFunctionState differs"
    );
}

/// GETs each id: `Some(body)` on 200, `None` on 404 (anything else fails).
pub(crate) async fn get_all(
    base: &str,
    token: &str,
    ids: Vec<String>,
) -> BTreeMap<String, Option<Value>> {
    let mut tasks = tokio::task::JoinSet::new();
    let chunk = ids.len().div_ceil(4).max(1);
    for ids in ids.chunks(chunk) {
        let (base, token, ids) = (base.to_owned(), token.to_owned(), ids.to_vec());
        tasks.spawn(async move {
            let client = client();
            let mut found = Vec::new();
            for id in ids {
                let (status, body) = send_json(
                    client
                        .get(format!("{base}/v2/workflows/dlq/{id}"))
                        .bearer_auth(&token),
                )
                .await;
                match status {
                    200 => found.push((id, Some(body))),
                    404 => found.push((id, None)),
                    _ => panic!("GET {id}: {status} {body}"),
                }
            }
            found
        });
    }
    let mut all = BTreeMap::new();
    while let Some(found) = tasks.join_next().await {
        all.extend(found.expect("get task"));
    }
    all
}
