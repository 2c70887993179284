//! Fuzz target: every admin payload parser of courier-service on arbitrary bytes. Panics on a
//! crash, on a refusal with an empty message, and when a limits patch touches the credentials.
#![no_main]

use courier_service::account::default_account;
use courier_service::admin::{
    parse_dlq_batch, parse_limits_patch, parse_run_batch, parse_search_index, parse_topic,
};
use libfuzzer_sys::fuzz_target;

const NOW: i64 = 1_752_829_295_505;

fn refused_with_a_message<T>(result: Result<T, String>) {
    if let Err(message) = result {
        assert!(!message.trim().is_empty());
    }
}

fuzz_target!(|data: &[u8]| {
    refused_with_a_message(parse_dlq_batch(data, NOW));
    refused_with_a_message(parse_run_batch(data));
    refused_with_a_message(parse_topic(data, 50));
    refused_with_a_message(parse_search_index(
        "6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10",
        data,
    ));
    let account = default_account("team@example.com", "token".into(), NOW);
    match parse_limits_patch(&account, data) {
        Ok(patched) => {
            assert_eq!(patched.token, account.token);
            assert_eq!(patched.customer_id, account.customer_id);
        }
        Err(message) => assert!(!message.trim().is_empty()),
    }
});
