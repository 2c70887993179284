//! Fuzz target: `cursor::decode` on arbitrary text. Panics on a crash, when a cursor outside
//! the spec's `^d1\.([0-9a-f]{2})+$` shape is accepted or one inside it refused, and when the
//! cursor issued for a decoded position does not decode to that position again.
#![no_main]

use courier_service::cursor;
use libfuzzer_sys::fuzz_target;

fn is_cursor_shaped(text: &str) -> bool {
    text.strip_prefix("d1.").is_some_and(|hex| {
        !hex.is_empty()
            && hex.len() % 2 == 0
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match cursor::decode(&text) {
        Ok(position) => {
            assert!(is_cursor_shaped(&text), "{text:?} accepted");
            assert_eq!(cursor::decode(&cursor::encode(&position)), Ok(position));
        }
        Err(message) => {
            assert!(!is_cursor_shaped(&text), "{text:?} refused");
            assert!(message.contains("`cursor`"), "{message}");
        }
    }
});
