//! The documents' rules: every link to a heading of a Markdown file names one it has, and every
//! dependency line a README shows asks for the version its crate's manifest has.

use super::{assert_none, resolve_inside, tracked_files};
use std::collections::{BTreeMap, BTreeSet};
use xtask::workspace_root;

/// The files whose text shows these rules' failures on purpose: the tidy test itself.
fn is_tidy_test(path: &str) -> bool {
    path == "xtask/tests/it/tidy.rs" || path.starts_with("xtask/tests/it/tidy/")
}

/// The anchor GitHub gives a heading: its text lowercased, spaces turned into hyphens, and
/// everything but letters, digits, hyphens and underscores dropped (backticks, colons, `…`).
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown document: one per heading outside code blocks (a repeated heading
/// gets `-1`, `-2`, … as on GitHub), and every `<a id="…">` or `<a name="…">`.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut in_code = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && trimmed[level..].starts_with(' ') {
            let text = trimmed[level..].trim().trim_end_matches('#');
            let base = slug(text);
            let count = seen.entry(base.clone()).or_insert(0);
            anchors.insert(match *count {
                0 => base,
                n => format!("{base}-{n}"),
            });
            *count += 1;
        }
    }
    for attribute in ["<a id=\"", "<a name=\""] {
        for (at, open) in markdown.match_indices(attribute) {
            let rest = &markdown[at + open.len()..];
            if let Some(end) = rest.find('"') {
                anchors.insert(rest[..end].to_owned());
            }
        }
    }
    anchors
}

/// The Markdown links of `text` that name an anchor: `(path, anchor)`, the path empty for a
/// link into the same document. Links to other sites are not followed.
fn anchored_links(text: &str) -> Vec<(&str, &str)> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            let (path, anchor) = target.split_once('#')?;
            let external = path.contains("://") || path.starts_with("mailto:");
            (!external && !path.contains(' ') && !anchor.is_empty()).then_some((path, anchor))
        })
        .collect()
}

/// Mentions of a Markdown file's heading outside Markdown (`docs/client.md#errors` in a doc
/// comment, a script, the spec): `(path, anchor)`, the path as written.
fn anchored_mentions(text: &str) -> Vec<(&str, &str)> {
    let is_path = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let is_anchor = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(".md#")
        .filter_map(|(at, _)| {
            let start = text[..at]
                .char_indices()
                .rev()
                .take_while(|&(_, c)| is_path(c))
                .last()
                .map_or(at, |(index, _)| index);
            let rest = &text[at + ".md#".len()..];
            let end = rest.find(|c: char| !is_anchor(c)).unwrap_or(rest.len());
            (start < at && end > 0).then(|| (&text[start..at + ".md".len()], &rest[..end]))
        })
        .collect()
}

#[test]
fn every_link_to_a_heading_names_one_the_document_has() {
    let mut documents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut anchors_of = |path: &str| -> Option<BTreeSet<String>> {
        if !documents.contains_key(path) {
            let text = std::fs::read_to_string(workspace_root().join(path)).ok()?;
            documents.insert(path.to_owned(), anchors(&text));
        }
        documents.get(path).cloned()
    };
    let mut offenders = Vec::new();
    for file in tracked_files() {
        let Some(text) = &file.text else { continue };
        let path = file.path.as_str();
        if is_tidy_test(path) {
            continue;
        }
        let links: Vec<(String, &str)> = if path.ends_with(".md") {
            anchored_links(text)
                .into_iter()
                .filter_map(|(target, anchor)| {
                    let resolved = match target {
                        "" => path.to_owned(),
                        target => resolve_inside(path, target)?.to_str()?.to_owned(),
                    };
                    Some((resolved, anchor))
                })
                .collect()
        } else {
            // Outside Markdown a path is written from the repository's root.
            anchored_mentions(text)
                .into_iter()
                .map(|(target, anchor)| (target.to_owned(), anchor))
                .collect()
        };
        for (target, anchor) in links {
            if !target.ends_with(".md") {
                continue;
            }
            match anchors_of(&target) {
                None => offenders.push(format!("{path}: links `{target}#{anchor}`, no such file")),
                Some(anchors) if !anchors.contains(anchor) => offenders.push(format!(
                    "{path}: links `{target}#{anchor}`, a heading {target} does not have"
                )),
                Some(_) => {}
            }
        }
    }
    assert_none("links to headings that are not there", offenders);
}

#[test]
fn the_anchor_rule_reads_headings_as_github_does() {
    let document = "# courier\n\n## Using the client\n\n```sh\n# not a heading\n```\n\n\
                    ## The command line: `courier dlq …`, `courier stats …`\n\n## Faults\n\n\
                    ## Faults\n\n<a id=\"d1-names\"></a>\n";
    let found = anchors(document);
    for anchor in [
        "courier",
        "using-the-client",
        "the-command-line-courier-dlq--courier-stats-",
        "faults",
        "faults-1",
        "d1-names",
    ] {
        assert!(found.contains(anchor), "{anchor} in {found:?}");
    }
    assert!(!found.contains("not-a-heading"));
    assert_eq!(
        anchored_links("[a](#faults) [b](docs/client.md#errors) [c](https://x.dev/#y) [d](a.md)"),
        [("", "faults"), ("docs/client.md", "errors")]
    );
    assert_eq!(
        anchored_mentions("/// See `docs/client.md#errors`, and README.md#using-the-client."),
        [
            ("docs/client.md", "errors"),
            ("README.md", "using-the-client")
        ]
    );
}

/// The crate and the version a dependency line of a README asks for: `courier-x = "1.2.3"` or
/// `courier-x = { version = "1.2.3", … }`; `None` for any other line (a `path` dependency too).
fn dependency_version(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once('=')?;
    let name = name.trim();
    if !name.starts_with("courier-") || name.contains(char::is_whitespace) {
        return None;
    }
    let value = value.trim();
    let quoted = match value.strip_prefix('{') {
        Some(table) => table
            .split("version")
            .nth(1)?
            .trim_start()
            .strip_prefix('=')?,
        None => value,
    };
    let version = quoted.trim_start().strip_prefix('"')?;
    Some((name, &version[..version.find('"')?]))
}

/// Every package of the workspace by name: its manifest's path and version.
fn package_versions() -> BTreeMap<String, (String, String)> {
    tracked_files()
        .into_iter()
        .filter(|file| file.path.ends_with("Cargo.toml") && !file.path.starts_with("fuzz/"))
        .filter_map(|file| {
            let manifest: toml::Table = file.text?.parse().ok()?;
            let package = manifest.get("package")?.as_table()?;
            let name = package.get("name")?.as_str()?.to_owned();
            let version = package.get("version")?.as_str()?.to_owned();
            Some((name, (file.path, version)))
        })
        .collect()
}

#[test]
fn readme_dependency_lines_ask_for_the_manifests_versions() {
    let packages = package_versions();
    assert!(
        packages.contains_key("courier-models"),
        "the manifests are read: {packages:?}"
    );
    let mut offenders = Vec::new();
    for file in tracked_files() {
        // A changelog's old lines are history; everything else shows what to write today.
        if !file.path.ends_with(".md") || file.path.ends_with("CHANGELOG.md") {
            continue;
        }
        let Some(text) = &file.text else { continue };
        for (number, line) in text.lines().enumerate() {
            let Some((name, version)) = dependency_version(line) else {
                continue;
            };
            let at = format!("{}:{}: {}", file.path, number + 1, line.trim());
            match packages.get(name) {
                None => offenders.push(format!("{at}: no package of the workspace is {name}")),
                Some((manifest, current)) if current != version => {
                    offenders.push(format!("{at}: {manifest} says version = \"{current}\""))
                }
                Some(_) => {}
            }
        }
    }
    assert_none(
        "dependency lines whose version is not the crate's (write the manifest's version)",
        offenders,
    );
    assert_eq!(
        dependency_version(r#"courier-server = "0.4""#),
        Some(("courier-server", "0.4"))
    );
    assert_eq!(
        dependency_version(r#"courier-verify = { version = "0.1.0", default-features = false }"#),
        Some(("courier-verify", "0.1.0"))
    );
    assert_eq!(
        dependency_version(r#"courier-client = { path = "../courier/crates/client" }"#),
        None
    );
}
