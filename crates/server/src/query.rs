//! Query-string parsing as the interface needs it (`docs/decisions.md#d12-multi-value-encoding`),
//! with errors that name the key.
//!
//! Neither `serde_urlencoded` nor `serde_html_form` splits the comma form, and both decode before
//! splitting, which would turn `%2C` into a separator. So the query is kept raw until a value is
//! read: multi-value parameters split on literal commas first and percent-decode each part.

use crate::runtime::Rejection;
use percent_encoding::percent_decode_str;
use std::str::FromStr;

/// A request's query string: decoded keys, raw (still percent-encoded) values, in order.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

/// Form decoding: `+` is a space, then percent-decoding; `None` when the bytes are not UTF-8.
fn decode(raw: &str) -> Option<String> {
    let spaced = raw.replace('+', " ");
    percent_decode_str(&spaced)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

/// A key as [`Query::parse`] reads it: form-decoded, or kept as sent when that is not UTF-8. For
/// code that passes a query on and must recognise its keys as the parsers will, however they are
/// spelled (`%63ursor` is `cursor`).
pub fn decode_key(raw: &str) -> String {
    decode(raw).unwrap_or_else(|| raw.to_owned())
}

/// One value as a parameter takes it: decoded, and neither undecodable nor empty; the 400 of
/// each case says what `not_utf8` and `empty` say.
fn decode_value(
    raw: &str,
    not_utf8: impl FnOnce() -> String,
    empty: impl FnOnce() -> String,
) -> Result<String, Rejection> {
    let value = decode(raw).ok_or_else(|| Rejection::bad_request(not_utf8()))?;
    if value.is_empty() {
        return Err(Rejection::bad_request(empty()));
    }
    Ok(value)
}

impl Query {
    /// Splits a raw query string. Never fails: malformed parts are reported when read.
    pub fn parse(raw: &str) -> Query {
        let pairs = raw
            .split('&')
            .filter(|part| !part.is_empty())
            .map(|part| {
                let (key, value) = part.split_once('=').unwrap_or((part, ""));
                (decode_key(key), value.to_owned())
            })
            .collect();
        Query { pairs }
    }

    fn raw_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.pairs
            .iter()
            .filter(move |(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// 400 naming the first key that is not in `allowed`: a typo in a filter must never widen
    /// a bulk delete to everything (`docs/decisions.md#d15-unknown-query-parameters`).
    pub fn reject_unknown(&self, allowed: &[&str]) -> Result<(), Rejection> {
        match self
            .pairs
            .iter()
            .find(|(key, _)| !allowed.contains(&key.as_str()))
        {
            None => Ok(()),
            Some((key, _)) if allowed.is_empty() => Err(Rejection::bad_request(format!(
                "unknown query parameter `{key}`: this operation takes no query parameters"
            ))),
            Some((key, _)) => Err(Rejection::bad_request(format!(
                "unknown query parameter `{key}`: this operation accepts {}",
                allowed.join(", ")
            ))),
        }
    }

    /// The first value of `name`, decoded, for credentials; `None` when absent or undecodable.
    pub fn credential(&self, name: &str) -> Option<String> {
        self.raw_values(name).next().and_then(decode)
    }

    /// A single-valued parameter: absent is `None`; repeated, empty or undecodable is a 400.
    pub fn string(&self, name: &str) -> Result<Option<String>, Rejection> {
        let mut values = self.raw_values(name);
        let Some(raw) = values.next() else {
            return Ok(None);
        };
        if values.next().is_some() {
            return Err(Rejection::bad_request(format!(
                "`{name}` is given more than once; it takes one value"
            )));
        }
        let value = decode_value(
            raw,
            || format!("`{name}` is not valid UTF-8 after percent-decoding"),
            || format!("`{name}` is empty; give a value or leave it out"),
        )?;
        Ok(Some(value))
    }

    /// A single integer, checked against its bounds.
    pub fn integer(
        &self,
        name: &str,
        minimum: Option<i64>,
        maximum: Option<i64>,
    ) -> Result<Option<i64>, Rejection> {
        let Some(text) = self.string(name)? else {
            return Ok(None);
        };
        let value: i64 = text.parse().map_err(|_| {
            Rejection::bad_request(format!("`{name}` must be an integer, got `{text}`"))
        })?;
        if let Some(minimum) = minimum.filter(|minimum| value < *minimum) {
            return Err(Rejection::bad_request(format!(
                "`{name}` must be at least {minimum}, got {value}"
            )));
        }
        if let Some(maximum) = maximum.filter(|maximum| value > *maximum) {
            return Err(Rejection::bad_request(format!(
                "`{name}` must be at most {maximum}, got {value}"
            )));
        }
        Ok(Some(value))
    }

    /// A single boolean: `true` or `false`.
    pub fn boolean(&self, name: &str) -> Result<Option<bool>, Rejection> {
        match self.string(name)?.as_deref() {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(Rejection::bad_request(format!(
                "`{name}` must be `true` or `false`, got `{other}`"
            ))),
        }
    }

    /// A single enum value; `values` lists the accepted spellings for the error message.
    pub fn enum_value<T: FromStr>(
        &self,
        name: &str,
        values: &[&str],
    ) -> Result<Option<T>, Rejection> {
        match self.string(name)? {
            Some(text) => parse_enum(name, &text, values).map(Some),
            None => Ok(None),
        }
    }

    /// A multi-value parameter: repeated keys and the comma form, mixed freely; a literal comma
    /// separates values, `%2C` is a comma inside one. An empty value (`key=`) or an empty item of
    /// the comma form (`a,,b`, `a,`) is a 400 naming the key
    /// (`docs/decisions.md#d12-multi-value-encoding`): were it skipped, an empty `dlqIds` would
    /// read as "no ids" and turn a delete by ids into a delete by filter. So a key that is present
    /// always yields at least one value.
    pub fn strings(&self, name: &str) -> Result<Vec<String>, Rejection> {
        let mut values = Vec::new();
        for raw in self.raw_values(name) {
            for part in raw.split(',') {
                values.push(decode_value(
                    part,
                    || format!("`{name}` has a value that is not valid UTF-8 after percent-decoding"),
                    || format!(
                        "`{name}` has an empty value (`{name}=`, or an empty item of the comma form such as `a,,b` or `a,`); give every value or leave `{name}` out"
                    ),
                )?);
            }
        }
        Ok(values)
    }

    /// A multi-value enum parameter.
    pub fn enum_values<T: FromStr>(
        &self,
        name: &str,
        values: &[&str],
    ) -> Result<Vec<T>, Rejection> {
        self.strings(name)?
            .iter()
            .map(|text| parse_enum(name, text, values))
            .collect()
    }
}

/// `values` of a multi-value parameter, or a 400 naming it (`names`: its spellings, quoted) and
/// its cap when there are more than `max_items`. Beyond a cap the store would build one
/// condition per value, and a few thousand make SQLite refuse the query.
pub fn at_most<T>(names: &str, max_items: usize, values: Vec<T>) -> Result<Vec<T>, Rejection> {
    if values.len() > max_items {
        return Err(Rejection::bad_request(format!(
            "{names} takes at most {max_items} values, got {}",
            values.len()
        )));
    }
    Ok(values)
}

fn parse_enum<T: FromStr>(name: &str, text: &str, values: &[&str]) -> Result<T, Rejection> {
    text.parse().map_err(|_| {
        Rejection::bad_request(format!(
            "`{name}` must be one of {}, got `{text}`",
            values.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(raw: &str, name: &str) -> Vec<String> {
        Query::parse(raw).strings(name).expect("valid")
    }

    #[test]
    fn repeated_comma_and_mixed_forms_agree() {
        assert_eq!(strings("label=a&label=b", "label"), ["a", "b"]);
        assert_eq!(strings("label=a,b", "label"), ["a", "b"]);
        assert_eq!(strings("label=a,b&label=c", "label"), ["a", "b", "c"]);
        assert_eq!(strings("label=a", "label"), ["a"]);
    }

    #[test]
    fn encoded_comma_stays_inside_a_value_and_plus_is_space() {
        assert_eq!(strings("label=a%2Cb,c", "label"), ["a,b", "c"]);
        assert_eq!(
            strings("label=hello+world&label=x%2By", "label"),
            ["hello world", "x+y"]
        );
    }

    #[test]
    fn every_empty_value_is_rejected_naming_the_key() {
        for raw in [
            "label=",
            "label=&label=a",
            "label=a,,b",
            "label=a,",
            "label=,a",
            "label=,",
            "label=a&label=",
        ] {
            let error = Query::parse(raw).strings("label").unwrap_err();
            assert!(
                error.message().starts_with("`label` has an empty value"),
                "{raw}: {}",
                error.message()
            );
        }
        let error = Query::parse("count=")
            .integer("count", Some(1), Some(100))
            .unwrap_err();
        assert!(
            error.message().contains("`count` is empty"),
            "{}",
            error.message()
        );
    }

    #[test]
    fn a_present_multi_value_key_always_yields_a_value() {
        // The property bulk delete relies on: `dlqIds` present means at least one id.
        for raw in [
            "dlqIds=a",
            "dlqIds=a%2C",
            "dlqIds=%2C",
            "dlqIds=+",
            "dlqIds=a&x=1",
        ] {
            let ids = Query::parse(raw).strings("dlqIds").expect(raw);
            assert!(!ids.is_empty(), "{raw}");
        }
        assert!(Query::parse("x=1").strings("dlqIds").unwrap().is_empty());
    }

    #[test]
    fn integers_are_checked_against_bounds_with_the_name_in_the_message() {
        let query = Query::parse("count=500&fromDate=abc&toDate=0");
        let too_big = query.integer("count", Some(1), Some(100)).unwrap_err();
        assert_eq!(too_big.message(), "`count` must be at most 100, got 500");
        let not_int = query.integer("fromDate", None, None).unwrap_err();
        assert_eq!(
            not_int.message(),
            "`fromDate` must be an integer, got `abc`"
        );
        assert_eq!(query.integer("toDate", None, None).unwrap(), Some(0));
        assert_eq!(query.integer("absent", None, None).unwrap(), None);
    }

    #[test]
    fn unknown_keys_are_named() {
        let error = Query::parse("labels=a&count=1")
            .reject_unknown(&["label", "count"])
            .unwrap_err();
        assert!(
            error
                .message()
                .starts_with("unknown query parameter `labels`"),
            "{}",
            error.message()
        );
        assert!(
            Query::parse("label=a&count=1")
                .reject_unknown(&["label", "count"])
                .is_ok()
        );
    }

    #[test]
    fn repeated_single_values_and_bad_utf8_are_rejected() {
        assert!(Query::parse("cursor=a&cursor=b").string("cursor").is_err());
        assert!(Query::parse("cursor=%FF").string("cursor").is_err());
        assert!(Query::parse("label=%FF").strings("label").is_err());
    }

    #[test]
    fn booleans_and_enums() {
        let query = Query::parse("cancel=true&period=2h&state=CALLBACK_FAIL,CALLBACK_SUCCESS");
        assert_eq!(query.boolean("cancel").unwrap(), Some(true));
        let period = query
            .enum_value::<courier_models::StatsPeriod>("period", &["1h", "3h"])
            .unwrap_err();
        assert_eq!(period.message(), "`period` must be one of 1h, 3h, got `2h`");
        let states = query
            .enum_values::<courier_models::FailureFunctionState>("state", &[])
            .unwrap();
        assert_eq!(
            states,
            [
                courier_models::FailureFunctionState::CallbackFail,
                courier_models::FailureFunctionState::CallbackSuccess
            ]
        );
    }
}
