//! Property tests: the query parser, every accessor and every generated request parser take
//! anything.

use super::*;

proptest! {
    #![proptest_config(config(384))]

    #[test]
    fn the_query_parser_every_accessor_and_every_generated_request_parser_take_anything(
        raw in hostile_query()
    ) {
        every_accessor(&raw)?;
        every_request_parser(&raw)?;
    }
}

/// What a client must percent-encode inside one value of a multi-value parameter.
const IN_VALUE: &AsciiSet = &CONTROLS
    .add(b',')
    .add(b'&')
    .add(b'=')
    .add(b'%')
    .add(b'+')
    .add(b'#');

proptest! {
    #![proptest_config(config(256))]

    /// `docs/decisions.md#d12-multi-value-encoding`: repeated keys and the comma form mix freely;
    /// encoded separators stay inside their value; order is kept; any empty value is a 400 naming
    /// the key, never dropped.
    #[test]
    fn multi_values_round_trip_in_any_mix_of_forms(
        key in select(&["label", "workflowUrl", "dlqIds", "callerIp", "flowControlKey"][..]),
        values in vec((any::<String>(), any::<bool>(), any::<bool>()), 0..10),
        noise in any::<bool>(),
        encoded_key in any::<bool>(),
    ) {
        let spelled_key = if encoded_key { percent_bytes(key.as_bytes()) } else { key.to_owned() };
        let mut raw = String::new();
        for (index, (value, new_pair, plus_for_space)) in values.iter().enumerate() {
            let mut encoded = utf8_percent_encode(value, IN_VALUE).to_string();
            if *plus_for_space {
                encoded = encoded.replace(' ', "+");
            }
            if index == 0 || *new_pair {
                if index > 0 {
                    raw.push('&');
                }
                if noise {
                    raw.push_str("other=a,b&&");
                }
                raw.push_str(&spelled_key);
                raw.push('=');
            } else {
                raw.push(',');
            }
            raw.push_str(&encoded);
        }
        let parsed = Query::parse(&raw).strings(key);
        if values.iter().any(|(value, ..)| value.is_empty()) {
            let refused = parsed.expect_err("an empty value is refused");
            prop_assert!(refused.message().starts_with(&format!("`{key}` has an empty value")), "{}: {}", raw, refused.message());
        } else {
            let expected: Vec<&str> = values.iter().map(|(value, ..)| value.as_str()).collect();
            prop_assert_eq!(parsed.as_ref().map(|v| v.iter().map(String::as_str).collect::<Vec<_>>()), Ok(expected), "{}", raw);
        }
    }
}
