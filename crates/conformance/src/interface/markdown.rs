//! Reading the document's markdown: parts and sections, pipe tables, and the prose forms of
//! part 2's field lists (`name (type, remarks)` lists and lists grouped by type).

use super::{Field, FieldGroup, InterfaceType};

/// The body of a level-2 part (`## N. Title`), without its heading.
pub fn part(md: &str, number: u32) -> Option<String> {
    let prefix = format!("## {number}.");
    let mut lines = md.lines().skip_while(|l| !l.starts_with(&prefix));
    lines.next()?;
    let body: Vec<&str> = lines.take_while(|l| !l.starts_with("## ")).collect();
    Some(body.join("\n"))
}

/// The level-3 sections (`### N.M Title`) of a part: number, title and body.
pub fn sections(part: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in part.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            let (number, title) = heading.split_once(' ').unwrap_or((heading, ""));
            out.push((
                number.trim_end_matches('.').to_owned(),
                title.trim().to_owned(),
                String::new(),
            ));
        } else if let Some((_, _, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// A markdown table: header cells and data rows.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Header cells.
    pub header: Vec<String>,
    /// Data rows, each as wide as the header or narrower.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Index of the first header cell equal (case-insensitively) to one of `names`.
    pub fn column(&self, names: &[&str]) -> Option<usize> {
        self.header
            .iter()
            .position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)))
    }
}

pub(super) fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner
        .split('|')
        .map(|c| c.trim().replace('`', ""))
        .collect()
}

/// The markdown tables of a block of text.
pub fn tables(text: &str) -> Vec<Table> {
    let mut out = Vec::new();
    let mut current: Option<Table> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('|') {
            let row = cells(line);
            let is_rule = row
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':')));
            match current.as_mut() {
                None => {
                    current = Some(Table {
                        header: row,
                        rows: Vec::new(),
                    })
                }
                Some(_) if is_rule => {}
                Some(table) => table.rows.push(row),
            }
        } else if let Some(table) = current.take() {
            out.push(table);
        }
    }
    out.extend(current);
    out
}

/// The tables of `text` with a `Type` column and a `name` column, with the indexes of the two.
pub(super) fn typed_tables(text: &str, name: &str) -> Vec<(Table, usize, usize)> {
    tables(text)
        .into_iter()
        .filter_map(|table| {
            let name_col = table.column(&[name])?;
            let type_col = table.column(&["Type"])?;
            Some((table, name_col, type_col))
        })
        .collect()
}

/// Splits at `sep` where no parenthesis is open.
pub(super) fn split_top(text: &str, sep: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if depth == 0 && text[i..].starts_with(sep) => {
                parts.push(text[start..i].to_owned());
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(text[start..].to_owned());
    parts
}

/// Byte offset of the last ` with ` outside parentheses.
pub(super) fn last_top_with(text: &str) -> Option<usize> {
    let parts = split_top(text, " with ");
    (parts.len() > 1).then(|| text.len() - parts.last().map_or(0, String::len))
}

/// Sentences of a paragraph, split at `. ` outside parentheses, final period dropped.
pub(super) fn sentences(paragraph: &str) -> Vec<String> {
    split_top(paragraph.trim(), ". ")
        .into_iter()
        .map(|s| s.trim().trim_end_matches('.').trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

pub(super) fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `name (type, remarks)` pairs of a text: the identifier right before each top-level
/// parenthesis, and the parenthesis content up to its first top-level `,` or `;`.
pub fn named_fields(text: &str) -> Vec<Field> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut open = 0;
    for (i, ch) in text.char_indices() {
        match ch {
            '(' => {
                if depth == 0 {
                    open = i;
                }
                depth += 1;
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let before = text[..open].trim_end();
                    let name = before
                        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("");
                    if is_identifier(name) {
                        let inner = &text[open + 1..i];
                        let ty = split_top(inner, ";")[0].clone();
                        let ty = split_top(&ty, ",")[0].trim().to_owned();
                        out.push(Field {
                            name: name.to_owned(),
                            ty,
                            required: None,
                            items: Vec::new(),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The type a prose group label stands for ("Integers" → `integer`, "Arrays of data point" →
/// `array of data point`), if it is one.
pub(super) fn label_type(label: &str) -> Option<String> {
    let lower = label.trim().to_ascii_lowercase();
    let singular = if let Some(rest) = lower.strip_prefix("arrays of ") {
        format!("array of {rest}")
    } else if let Some(stem) = lower.strip_suffix('s').filter(|s| !s.contains(' ')) {
        stem.to_owned()
    } else {
        lower
    };
    InterfaceType::parse(&singular).ok().map(|_| singular)
}

pub(super) fn prose_groups(text: &str, groups: &mut Vec<FieldGroup>) {
    for paragraph in text.split("\n\n").map(|p| p.replace('\n', " ")) {
        for sentence in sentences(&paragraph) {
            let (label, rest) = match split_top(&sentence, ": ").as_slice() {
                [label, rest @ ..] if !rest.is_empty() => {
                    (Some(label.trim().to_owned()), rest.join(": "))
                }
                _ => (None, sentence.clone()),
            };
            if let Some(label) = &label {
                let lower = label.to_ascii_lowercase();
                if lower == "fields present" {
                    push_group(groups, None, named_fields(&rest));
                    continue;
                }
                if let Some(via) = lower
                    .strip_suffix(" fields")
                    .map(|_| label[..label.len() - " fields".len()].trim())
                    && is_identifier(via)
                {
                    push_group(groups, Some(via.to_owned()), named_fields(&rest));
                    continue;
                }
                if let Some(ty) = label_type(label) {
                    let fields = split_top(&rest, ",")
                        .into_iter()
                        .filter_map(|item| {
                            let name = item
                                .trim()
                                .split([' ', '('])
                                .next()
                                .unwrap_or("")
                                .to_owned();
                            is_identifier(&name).then(|| Field {
                                name,
                                ty: ty.clone(),
                                required: None,
                                items: Vec::new(),
                            })
                        })
                        .collect::<Vec<_>>();
                    // Typed groups add to the section's one shape.
                    match groups.last_mut() {
                        Some(group) if group.via.is_none() => group.fields.extend(fields),
                        _ => push_group(groups, None, fields),
                    }
                    continue;
                }
            }
            let tail = match last_top_with(&sentence) {
                Some(at) => &sentence[at..],
                None => sentence.as_str(),
            };
            let mut fields = named_fields(tail);
            if sentence.contains("required field") {
                for field in &mut fields {
                    field.required = Some(true);
                }
            }
            if fields.is_empty() {
                continue;
            }
            if sentence.contains(" also ")
                && let Some(previous) = groups.iter().rev().find(|g| g.via.is_none())
            {
                let mut all = previous.fields.clone();
                all.extend(fields);
                fields = all;
            }
            push_group(groups, None, fields);
        }
    }
}

pub(super) fn push_group(groups: &mut Vec<FieldGroup>, via: Option<String>, fields: Vec<Field>) {
    if !fields.is_empty() {
        groups.push(FieldGroup { via, fields });
    }
}
