//! Opaque pagination cursors: a keyset position (the last `dlqId` served), never an offset.
//!
//! Keyset positions are what make pages stable under concurrent inserts and deletes: the next
//! page starts strictly after the last id served, whatever happened before it
//! (`docs/decisions.md#d11-list-order-and-filters`). The encoding is `d1.` and the id's bytes in
//! lower-case hex, the spec's `DlqCursor` pattern, so every cursor a validator calls well-formed is
//! a position this service can continue from.

const VERSION: &str = "d1.";
const MALFORMED: &str =
    "`cursor` is malformed: pass back the cursor of the previous response unchanged";

/// The cursor that continues after `last_dlq_id`.
pub fn encode(last_dlq_id: &str) -> String {
    let mut cursor = String::with_capacity(VERSION.len() + 2 * last_dlq_id.len());
    cursor.push_str(VERSION);
    for byte in last_dlq_id.bytes() {
        cursor.push_str(&format!("{byte:02x}"));
    }
    cursor
}

/// The position a cursor continues after; a malformed cursor is the caller's mistake (400).
pub fn decode(cursor: &str) -> Result<String, String> {
    let hex = cursor
        .strip_prefix(VERSION)
        .filter(|hex| !hex.is_empty() && hex.len() % 2 == 0)
        .ok_or(MALFORMED)?;
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| {
            let pair = hex
                .get(i..i + 2)
                .filter(|pair| pair.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
            pair.and_then(|pair| u8::from_str_radix(pair, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or(MALFORMED)?;
    // A well-formed cursor whose bytes are not UTF-8 was not issued here, but it is still a
    // position in the key order: continue after its closest text.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_garbage_is_rejected() {
        for id in ["1752829295505-0", "custom/id with spaces", "ü"] {
            assert_eq!(decode(&encode(id)).as_deref(), Ok(id));
        }
        assert_eq!(encode("1-0"), "d1.312d30");
        for garbage in [
            "",
            "d1.",
            "d1.3",
            "d1.zz",
            "d1.3G",
            "D1.31",
            "x1.31",
            "1752829295505-0",
            "d1.31 ",
        ] {
            assert!(decode(garbage).is_err(), "{garbage}");
        }
        assert!(
            decode("d1.ff").is_ok(),
            "well-formed, not UTF-8: still a position"
        );
    }
}
