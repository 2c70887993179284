//! Opaque pagination cursors: a keyset position (the last `dlqId` served), never an offset.
//!
//! Keyset positions are what make pages stable under concurrent inserts and deletes: the next
//! page starts strictly after the last id served, whatever happened before it (decision 11).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

const VERSION: &str = "d1.";

/// The cursor that continues after `last_dlq_id`.
pub fn encode(last_dlq_id: &str) -> String {
    format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(last_dlq_id))
}

/// The `dlqId` a cursor continues after; a malformed cursor is the caller's mistake (400).
pub fn decode(cursor: &str) -> Result<String, String> {
    cursor
        .strip_prefix(VERSION)
        .and_then(|encoded| URL_SAFE_NO_PAD.decode(encoded).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .filter(|id| !id.is_empty())
        .ok_or_else(|| {
            "`cursor` is malformed: pass back the cursor of the previous response unchanged"
                .to_owned()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_garbage_is_rejected() {
        for id in ["1752829295505-0", "custom/id with spaces", "ü"] {
            assert_eq!(decode(&encode(id)).as_deref(), Ok(id));
        }
        for garbage in ["", "d1.", "d1.!!!", "x1.MTIz", "1752829295505-0", "d1.gA"] {
            assert!(decode(garbage).is_err(), "{garbage}");
        }
    }
}
