//! A violation of the contract: what was wrong, where, and the offending value, shortened.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How many characters of an offending value a violation keeps.
pub const VALUE_LIMIT: usize = 80;

/// Where in an answer a violation is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "name")]
pub enum Place {
    /// The status code.
    Status,
    /// The `Content-Type` header.
    ContentType,
    /// A response header, by name.
    Header(String),
    /// The body; [`Violation::pointer`] says where in it.
    Body,
}

/// One way an answer breaks the contract or the interface's semantics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The operation whose answer it is.
    pub operation_id: String,
    /// The status of the answer.
    pub status: u16,
    pub place: Place,
    /// JSON pointer into the body (RFC 6901; empty for the whole body or outside the body).
    pub pointer: String,
    /// The rule broken: a JSON Schema keyword (`required`, `type`, `enum`, `minimum`,
    /// `additionalProperties`, ...), or `status`, `content-type`, `json`, `empty-body`,
    /// `header`, or a semantic rule of a scenario (`filter`, `order`, `page-size`, ...).
    pub rule: String,
    /// The offending value as JSON text, at most [`VALUE_LIMIT`] characters.
    pub value: String,
    /// The violation in words.
    pub message: String,
}

impl Violation {
    /// A violation in the body at `pointer`; `value` is shortened.
    pub fn body(
        operation_id: &str,
        status: u16,
        pointer: impl Into<String>,
        rule: &str,
        value: &str,
        message: impl Into<String>,
    ) -> Violation {
        Violation {
            operation_id: operation_id.to_owned(),
            status,
            place: Place::Body,
            pointer: pointer.into(),
            rule: rule.to_owned(),
            value: shorten(value),
            message: message.into(),
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Status => f.write_str("status"),
            Place::ContentType => f.write_str("content-type"),
            Place::Header(name) => write!(f, "header {name}"),
            Place::Body => f.write_str("body"),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.operation_id, self.status, self.place)?;
        if self.place == Place::Body {
            let pointer = if self.pointer.is_empty() {
                "/"
            } else {
                &self.pointer
            };
            write!(f, " {pointer}")?;
        }
        write!(f, " [{}] {}", self.rule, self.message)?;
        if !self.value.is_empty() {
            write!(f, " (value: {})", self.value)?;
        }
        Ok(())
    }
}

/// `text` cut to at most [`VALUE_LIMIT`] characters, on a character boundary, with `…` when cut,
/// and made [`printable`]: a server's bytes never reach a terminal or an XML report raw.
pub fn shorten(text: &str) -> String {
    let text = printable(text);
    if text.chars().count() <= VALUE_LIMIT {
        return text;
    }
    let mut short: String = text.chars().take(VALUE_LIMIT - 1).collect();
    short.push('…');
    short
}

/// `text` with every control character (escape sequences, NUL, ...) written as `\u{..}`.
pub fn printable(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A JSON pointer token for a property name (RFC 6901: `~` → `~0`, `/` → `~1`).
pub fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_shortened_on_character_boundaries() {
        assert_eq!(shorten("short"), "short");
        let long = "é".repeat(200);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), VALUE_LIMIT);
        assert!(short.ends_with('…'));
        assert_eq!(pointer_token("a/b~c"), "a~1b~0c");
        assert_eq!(shorten("a\u{1b}[2Jb\0"), "a\\u{1b}[2Jb\\u{0}");
    }
}
