//! The fuzz targets against what the repository says of them: each has seeds, a row in
//! `fuzz/README.md` saying what counts as its failure, and clean figures in `fuzz/RESULTS.md`.
//!
//! The fuzz directory is a workspace of its own that `cargo test` never builds, so without this
//! a target could be added, renamed or dropped while the documents kept describing the old set.

use courier_conformance::interface::{Table, tables};
use courier_conformance::paths::read;
use std::collections::BTreeSet;
use xtask::workspace_root;

/// The targets cargo-fuzz builds: the `[[bin]]` sections of the fuzz workspace's manifest.
fn fuzz_targets() -> BTreeSet<String> {
    let manifest: toml::Table = read(&workspace_root().join("fuzz/Cargo.toml"))
        .parse()
        .expect("fuzz/Cargo.toml is TOML");
    let bins = manifest["bin"].as_array().expect("[[bin]] sections");
    let targets: BTreeSet<String> = bins
        .iter()
        .map(|bin| bin["name"].as_str().expect("a bin has a name").to_owned())
        .collect();
    assert!(
        targets.len() >= 2,
        "fuzz/Cargo.toml read wrong: {targets:?}"
    );
    targets
}

/// The table of `document` (under `fuzz/`) with a `target` column, and that column's index,
/// after checking that it has one row for each target of `fuzz/Cargo.toml` and no other.
fn target_table(document: &str, how_to_add_a_row: &str) -> (Table, usize) {
    let text = read(&workspace_root().join("fuzz").join(document));
    let (table, column) = tables(&text)
        .into_iter()
        .find_map(|table| {
            let column = table.column(&["target"])?;
            Some((table, column))
        })
        .unwrap_or_else(|| panic!("fuzz/{document} has no table with a `target` column"));
    let mut named = BTreeSet::new();
    for row in &table.rows {
        assert!(
            named.insert(row[column].clone()),
            "fuzz/{document}: {} has two rows",
            row[column]
        );
    }
    assert_eq!(
        named,
        fuzz_targets(),
        "fuzz/{document} must have one row per target of fuzz/Cargo.toml ({how_to_add_a_row})"
    );
    (table, column)
}

/// The value of `row` in the column headed `name`, empty when the row is short of it.
fn cell<'a>(table: &Table, row: &'a [String], name: &str) -> &'a str {
    let column = table
        .column(&[name])
        .unwrap_or_else(|| panic!("no `{name}` column in {:?}", table.header));
    row.get(column).map_or("", String::as_str)
}

#[test]
fn every_fuzz_target_starts_from_committed_seeds() {
    let seeded: BTreeSet<String> = std::fs::read_dir(workspace_root().join("fuzz/seeds"))
        .expect("fuzz/seeds")
        .map(|entry| entry.unwrap())
        .filter(|entry| {
            std::fs::read_dir(entry.path()).is_ok_and(|mut seeds| seeds.next().is_some())
        })
        .map(|entry| entry.file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        seeded,
        fuzz_targets(),
        "fuzz/seeds/<target>/ must hold real inputs for each target of fuzz/Cargo.toml, and only for them"
    );
}

#[test]
fn the_fuzz_readme_says_what_fails_for_every_target() {
    let (table, column) = target_table("README.md", "what it feeds and what counts as its failure");
    for row in &table.rows {
        for name in ["what it feeds", "what counts as a failure"] {
            assert!(
                !cell(&table, row, name).is_empty(),
                "fuzz/README.md: the row of {} must say {name}: {row:?}",
                row[column]
            );
        }
    }
}

#[test]
fn the_recorded_fuzz_figures_cover_every_target_and_are_clean() {
    let (table, column) = target_table(
        "RESULTS.md",
        "bash scripts/fuzz.sh --seconds 3600 --record --target <new target>",
    );
    for row in &table.rows {
        let target = &row[column];
        let seconds: u64 = cell(&table, row, "seconds").parse().unwrap_or(0);
        let executions: u64 = cell(&table, row, "executions").parse().unwrap_or(0);
        assert!(
            seconds >= 60 && executions > 0,
            "fuzz/RESULTS.md: {target} has no figures of a run: {row:?}"
        );
        assert_eq!(
            cell(&table, row, "result"),
            "ok",
            "fuzz/RESULTS.md: the recorded run of {target} failed; fix it and record it again"
        );
    }
}
