//! List pages assembled from the entries' stored JSON: the envelope of a
//! `WorkflowDlqPage` written around bytes the store kept since insert, equal byte for
//! byte to what serde writes for the same page (the tests below hold it to that).

use courier_models::WorkflowDlqPage;

/// The JSON of a `WorkflowDlqPage` with this `cursor` whose `messages` are `messages`,
/// each already the JSON of a `WorkflowDlqMessage`.
pub fn page_json(cursor: Option<String>, messages: &[String]) -> Vec<u8> {
    // Every field of the page by name, no `..`: a field added to the spec's page is a compile
    // error here until it is written below.
    let WorkflowDlqPage {
        cursor,
        messages: _,
    } = WorkflowDlqPage {
        cursor,
        messages: Vec::new(),
    };
    let entries: usize = messages.iter().map(|message| message.len() + 1).sum();
    let mut out = Vec::with_capacity(entries + cursor.as_ref().map_or(0, String::len) + 32);
    out.push(b'{');
    if let Some(cursor) = &cursor {
        out.extend_from_slice(b"\"cursor\":");
        serde_json::to_writer(&mut out, cursor).expect("writing a string to a Vec cannot fail");
        out.push(b',');
    }
    out.extend_from_slice(b"\"messages\":[");
    for (index, message) in messages.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        out.extend_from_slice(message.as_bytes());
    }
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier_models::WorkflowDlqMessage;

    #[test]
    fn a_page_of_stored_entries_is_what_serde_writes_for_the_page() {
        let runs = crate::demo::failed_runs(1_800_000_000_000);
        let listed: Vec<WorkflowDlqMessage> = runs
            .into_iter()
            .take(100)
            .map(WorkflowDlqMessage::from)
            .collect();
        let stored: Vec<String> = listed
            .iter()
            .map(|message| serde_json::to_string(message).unwrap())
            .collect();
        for (cursor, count) in [
            (Some("MTc1Mi0w\"\\é".to_owned()), 100),
            (None, 100),
            (None, 1),
            (Some("c".to_owned()), 0),
            (None, 0),
        ] {
            let typed = WorkflowDlqPage {
                cursor: cursor.clone(),
                messages: listed[..count].to_vec(),
            };
            assert_eq!(
                String::from_utf8(page_json(cursor, &stored[..count])).unwrap(),
                serde_json::to_string(&typed).unwrap(),
                "{count} entries"
            );
        }
    }
}
