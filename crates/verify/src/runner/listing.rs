//! Walking the list: pages fetched by cursor, each checked for its size, and the entries the
//! scenarios compare with what they know is stored.

use super::Scene;
use super::http::{Auth, Exchange};
use serde_json::Value;

/// Why a scenario that needs entries has none to check.
pub(crate) const NO_DATA: &str = "the DLQ is empty and writing is off: there is nothing to check this rule on (run with writing on, `--write`, to seed data)";
pub(crate) const LIST: &str = "listWorkflowDlq";
/// How many pages of 100 a full walk reads at most, so a large DLQ stays cheap to verify.
pub(crate) const MAX_PAGES: usize = 20;
/// How many answer bytes one walk holds at most, so a server that answers every page with
/// the largest body the verifier reads cannot grow its memory page after page.
pub(crate) const WALK_BUDGET_BYTES: usize = 32 << 20;

/// The `dlqId` of an entry (empty when it has none).
pub(crate) fn dlq_id(entry: &Value) -> String {
    entry["dlqId"].as_str().unwrap_or_default().to_owned()
}

/// What a walk saw: every entry with the page it came from, the pages, and whether the walk
/// reached the end (a page without a cursor).
pub(crate) struct Walk {
    pub entries: Vec<(Value, usize, usize)>,
    pub pages: Vec<Exchange>,
    pub complete: bool,
    /// Why the walk stopped before the end with every page answered: its page limit or its
    /// byte budget. A scenario that needs the whole list is inconclusive for this reason.
    pub stopped_short: Option<String>,
}

impl Walk {
    pub(super) fn ids(&self) -> Vec<String> {
        self.entries.iter().map(|(e, _, _)| dlq_id(e)).collect()
    }

    /// The page an entry came from and its pointer there.
    pub(super) fn place(&self, index: usize) -> (&Exchange, String) {
        let (_, page, at) = &self.entries[index];
        (&self.pages[*page], format!("/messages/{at}"))
    }

    /// The last page read, for a violation about the whole walk.
    pub(super) fn last(&self) -> Option<&Exchange> {
        self.pages.last()
    }
}

/// The cursor of a page: `None` when absent or empty (both mean "no more").
pub(crate) fn cursor_of(page: &Exchange) -> Option<String> {
    page.at("/cursor")
        .as_str()
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
}

/// Walks `operation` (the list or its compatible path) with `query` and page size `count`, at
/// most `max_pages` pages. A page larger than `count` is a violation; nothing else is checked
/// here.
pub(crate) async fn walk_op(
    scene: &mut Scene<'_>,
    operation: &str,
    query: &[(&str, String)],
    count: usize,
    max_pages: usize,
) -> Walk {
    let mut walk = Walk {
        entries: Vec::new(),
        pages: Vec::new(),
        complete: false,
        stopped_short: None,
    };
    let mut held_bytes = 0usize;
    let mut cursor: Option<String> = None;
    for _ in 0..max_pages {
        let mut params: Vec<(&str, String)> = query.to_vec();
        params.push(("count", count.to_string()));
        if let Some(cursor) = &cursor {
            params.push(("cursor", cursor.clone()));
        }
        let Some(page) = scene.call(operation, &[], &params, Auth::Valid).await else {
            return walk;
        };
        if !scene.expect_status(&page, &[200], "for a list") {
            return walk;
        }
        let messages = page.at("/messages").as_array().cloned().unwrap_or_default();
        if messages.len() > count {
            scene.violate(
                &page,
                "/messages",
                "page-size",
                &Value::from(messages.len()),
                format!("{} entries on a page of count={count}", messages.len()),
            );
        }
        let page_index = walk.pages.len();
        for (at, message) in messages.into_iter().enumerate() {
            walk.entries.push((message, page_index, at));
        }
        cursor = cursor_of(&page);
        held_bytes += page.body.len();
        walk.pages.push(page);
        if cursor.is_none() {
            walk.complete = true;
            return walk;
        }
        if held_bytes > WALK_BUDGET_BYTES {
            walk.stopped_short = Some(format!(
                "the walk stopped after {} pages holding {held_bytes} bytes, over the verifier's budget of {WALK_BUDGET_BYTES} bytes for one walk",
                walk.pages.len()
            ));
            return walk;
        }
    }
    walk.stopped_short = Some(format!(
        "the walk stopped after {max_pages} pages of {count} without reaching the end of the list"
    ));
    walk
}

/// [`walk_op`] on the list.
pub(crate) async fn walk(
    scene: &mut Scene<'_>,
    query: &[(&str, String)],
    count: usize,
    max_pages: usize,
) -> Walk {
    walk_op(scene, LIST, query, count, max_pages).await
}

/// What the scenarios know is stored, in the listed shape: the fixture the run seeded, or
/// (writing off) what the list showed. Other entries may exist; only these are compared.
#[derive(Clone, Default)]
pub(crate) struct Known {
    pub entries: Vec<Value>,
    /// Whether the entries are a fixture the run seeded (their values are the run's own).
    pub seeded: bool,
    /// Why the fixture could not be seeded, when writing is on and it failed.
    pub seed_failure: Option<String>,
}

impl Known {
    pub(super) fn ids(&self) -> Vec<String> {
        self.entries.iter().map(dlq_id).collect()
    }

    /// Says why there is nothing to check: the seed failed (a failure of the scenario that
    /// needed it), or the DLQ is empty with writing off (inconclusive).
    pub(super) fn no_data(&self, scene: &mut Scene<'_>) {
        match &self.seed_failure {
            Some(why) => scene.fail(
                "seed",
                format!("this scenario checks the fixture, which could not be seeded: {why}"),
            ),
            None => scene.inconclusive(NO_DATA),
        }
    }
}
