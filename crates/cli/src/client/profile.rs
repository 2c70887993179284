//! Named profiles: several services in one file (`[staging]`, `[local]`, …), chosen with
//! `--profile NAME` or `COURIER_PROFILE`, as users of gh and aws expect. A profile fills in only
//! what neither a flag nor a variable gave.
//!
//! A refusal is its message alone (the caller makes it a usage failure), so this module needs
//! nothing of the command line: the fuzz target `profiles` compiles it by itself.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The profile used when none is named, if the file has it.
pub const DEFAULT_PROFILE: &str = "default";

/// One service's settings; every key optional, an unknown key refused (a typo must not
/// silently leave a setting out).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub base_url: Option<String>,
    pub management_url: Option<String>,
    pub service_token: Option<String>,
    pub customer_id: Option<String>,
    pub management_key: Option<String>,
    pub ca_cert: Option<PathBuf>,
}

/// Where the profiles live: `COURIER_CONFIG`, else `$XDG_CONFIG_HOME/courier/profiles.toml`,
/// else `~/.config/courier/profiles.toml`.
pub fn profiles_path() -> Option<PathBuf> {
    let set = |name| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(path) = set("COURIER_CONFIG") {
        return Some(PathBuf::from(path));
    }
    let config = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("courier").join("profiles.toml"))
}

impl Profile {
    /// The profile `name` (else `default`) of the profiles file. A named profile that is not
    /// there is an error; no file and no name is no profile.
    pub fn load(name: Option<&str>) -> Result<Option<Profile>, String> {
        let path = profiles_path();
        let text = match path.as_ref().map(std::fs::read_to_string) {
            Some(Ok(text)) => text,
            Some(Err(error)) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "cannot read the profiles file {}: {error}",
                    path.as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ));
            }
            _ => {
                return match name {
                    None => Ok(None),
                    Some(name) => Err(format!(
                        "no profile `{name}`: there is no profiles file (looked for {})",
                        path.map(|p| p.display().to_string()).unwrap_or_else(|| {
                            "COURIER_CONFIG or ~/.config/courier/profiles.toml".into()
                        })
                    )),
                };
            }
        };
        let path = path.unwrap_or_default();
        warn_if_others_can_read(&path);
        Profile::parse(&text, name, &path)
    }

    /// The profile `name` (else `default`) of a profiles file's `text` read from `path` (named
    /// in errors): `None` when no name was asked and the file has no `default`.
    pub fn parse(
        text: &str,
        name: Option<&str>,
        path: &std::path::Path,
    ) -> Result<Option<Profile>, String> {
        let mut profiles: BTreeMap<String, Profile> =
            toml::from_str(text).map_err(|error| invalid_file(text, &error, path))?;
        match name {
            None => Ok(profiles.remove(DEFAULT_PROFILE)),
            Some(name) => profiles.remove(name).map(Some).ok_or_else(|| {
                let known: Vec<&String> = profiles.keys().collect();
                format!(
                    "no profile `{name}` in {} (it has: {})",
                    path.display(),
                    known
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
        }
    }
}

/// The keys a profile takes, for the message about one it does not.
const KEYS: &str = "base_url, management_url, service_token, customer_id, management_key, ca_cert";

/// Why the profiles file at `path` does not parse: the file, the line and the key, never the
/// value. The parser's own message shows the line (a secret's line, as likely as not) and, for
/// a value of the wrong type, the value; so the line is never shown, and a value the message
/// quotes is left out.
fn invalid_file(text: &str, error: &toml::de::Error, path: &std::path::Path) -> String {
    let message = error.message();
    let start = error.span().map(|span| span.start.min(text.len()));
    // The byte offset may fall inside a character when the parser points at a broken one.
    let start = start.map(|mut start| {
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        start
    });
    let line = start.map(|start| {
        let number = text[..start].matches('\n').count() + 1;
        let begins = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let ends = text[start..].find('\n').map_or(text.len(), |i| start + i);
        (number, &text[begins..ends])
    });
    let unknown = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(key, _)| key);
    let key = unknown
        .map(str::to_owned)
        .or_else(|| line.and_then(|(_, line)| key_of(line)));
    let mut place = match line {
        Some((number, _)) => format!(" at line {number}"),
        None => String::new(),
    };
    if let Some(key) = &key {
        place.push_str(&format!(" (key `{key}`)"));
    }
    let why = match unknown {
        Some(_) => format!("unknown key; a profile takes {KEYS}"),
        None => without_values(message),
    };
    format!(
        "the profiles file {} is not valid{place}: {why} (the line is not shown: it may hold a secret)",
        path.display()
    )
}

/// The key a line sets, when it is plainly `key = …` (a bare, quoted or dotted key) or a table
/// header `[name]`; `None` otherwise, since what stands before a stray `=` may be part of a
/// secret.
fn key_of(line: &str) -> Option<String> {
    let line = line.trim();
    if line.starts_with('[') {
        let header = &line[..=line.find(']')?];
        let name = header.trim_matches(['[', ']']).trim();
        return plain_key(name).then(|| name.to_owned());
    }
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    plain_key(key).then(|| key.to_owned())
}

/// Whether `key` reads as TOML key syntax: bare parts (`A-Za-z0-9_-`) or quoted parts without a
/// quote inside, joined by dots.
fn plain_key(key: &str) -> bool {
    !key.is_empty()
        && key.split('.').all(|part| {
            let part = part.trim();
            let bare = !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let quoted = |q: char| {
                part.len() >= 2
                    && part.starts_with(q)
                    && part.ends_with(q)
                    && !part[1..part.len() - 1].contains(q)
            };
            bare || quoted('"') || quoted('\'')
        })
}

/// The parser's `message` with every value it quotes left out: serde's `invalid type: string
/// "…", expected …` names the value, in backticks or quotes. What the grammar expects (a `=`, a
/// `"`) is one character and stays.
fn without_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = rest[open..].chars().next().unwrap_or('`');
        let after = &rest[open + 1..];
        // The closing quote; a quote inside serde's debug-escaped string is `\"`.
        let mut close = None;
        let mut escaped = false;
        for (i, c) in after.char_indices() {
            match c {
                '\\' if quote == '"' && !escaped => escaped = true,
                c if c == quote && !escaped => {
                    close = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        out.push_str(&rest[..open]);
        let Some(close) = close else {
            // An unbalanced quote: nothing after it is shown.
            out.push('…');
            return out;
        };
        let quoted = &after[..close];
        if quoted.chars().count() <= 2 {
            out.push(quote);
            out.push_str(quoted);
            out.push(quote);
        } else {
            out.push_str("(value not shown)");
        }
        rest = &after[close + quote.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// The file holds secrets: say so when other users can read it (as ssh does for its keys).
fn warn_if_others_can_read(path: &std::path::Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(metadata) = std::fs::metadata(path)
            && metadata.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "warning: the profiles file {} can be read by other users; it holds secrets: chmod 600 it",
                path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        Profile::parse(text, Some("prod"), std::path::Path::new("/p/profiles.toml"))
            .expect_err("not valid")
    }

    #[test]
    fn a_refusal_names_the_file_line_and_key_and_shows_no_value() {
        let typo = refusal("[prod]\nservce_token = \"secret-1\"\n");
        assert!(
            typo.contains("/p/profiles.toml")
                && typo.contains("line 2")
                && typo.contains("`servce_token`")
                && typo.contains("service_token"),
            "{typo}"
        );
        for (text, secret) in [
            ("[prod]\nservice_token = 987654321\n", "987654321"),
            ("prod = \"secret-2\"\n", "secret-2"),
            ("[prod]\nservice_token = [\"secret-3\"]\n", "secret-3"),
            (
                "[prod]\nservice_token = \"a\\\"secret-4\\\"\"\nx=1\n",
                "secret-4",
            ),
            ("[prod]\nsecret-5\n", "secret-5"),
        ] {
            let message = refusal(text);
            assert!(!message.contains(secret), "{text:?}: {message}");
            assert!(message.contains("/p/profiles.toml"), "{message}");
        }
    }

    #[test]
    fn only_plain_key_syntax_is_named_as_a_key() {
        assert_eq!(
            key_of("  service_token = \"x\"").as_deref(),
            Some("service_token")
        );
        assert_eq!(key_of("\"a b\".c = 1").as_deref(), Some("\"a b\".c"));
        assert_eq!(key_of("[prod.x] # comment").as_deref(), Some("prod.x"));
        assert_eq!(key_of("service_token \"abc=def\""), None);
        assert_eq!(key_of("pasted-secret"), None);
    }

    #[test]
    fn quoted_values_are_left_out_and_grammar_stays() {
        assert_eq!(
            without_values("invalid type: string \"s\\\"e\", expected a string"),
            "invalid type: string (value not shown), expected a string"
        );
        assert_eq!(
            without_values("invalid type: integer `12345`, expected a string"),
            "invalid type: integer (value not shown), expected a string"
        );
        assert_eq!(
            without_values("invalid basic string, expected `\"`"),
            "invalid basic string, expected `\"`"
        );
        assert_eq!(without_values("unbalanced `secret"), "unbalanced …");
    }
}
