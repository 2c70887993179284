//! Fuzz target: the console's DLQ filter query on its way from page to page, as a hostile browser
//! could send it. The bytes are the query of `GET /console/dlq` or `/console/bulk-delete` (when a
//! request could carry them); the checks are the property test's, compiled from its file: every
//! link the console writes is a valid `Location`, the pager keeps the filters, the delete link
//! counts what the list shows, the delete deletes what its confirmation counted, and the list it
//! returns to shows those filters again.
#![no_main]

#[path = "../../crates/service/tests/it/support/console_filters.rs"]
mod console_filters;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Some(raw) = console_filters::query_of_a_request(text) {
        console_filters::check_console_filters(&raw);
    }
});
