//! The fuzz targets against what the repository says of them: each has seeds, a row in
//! `fuzz/README.md` saying what counts as its failure, and clean figures in `fuzz/RESULTS.md`.
//!
//! The fuzz directory is a workspace of its own that `cargo test` never builds, so without this
//! a target could be added, renamed or dropped while the documents kept describing the old set.

use std::collections::BTreeSet;
use xtask::workspace_root;

fn read(relative: &str) -> String {
    std::fs::read_to_string(workspace_root().join(relative))
        .unwrap_or_else(|error| panic!("{relative}: {error}"))
}

/// The targets cargo-fuzz builds: the `[[bin]]` sections of the fuzz workspace's manifest.
fn fuzz_targets() -> BTreeSet<String> {
    let manifest: toml::Table = read("fuzz/Cargo.toml")
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

/// The rows of a markdown table whose first cell is a target's name in backticks, by name.
fn rows_by_target(markdown: &str) -> Vec<(String, Vec<String>)> {
    markdown
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.strip_prefix("| `")?.split_once("` |")?;
            let cells = rest
                .trim_end_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect();
            Some((name.to_owned(), cells))
        })
        .collect()
}

fn names(rows: &[(String, Vec<String>)]) -> BTreeSet<String> {
    rows.iter().map(|(name, _)| name.clone()).collect()
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
    let rows = rows_by_target(&read("fuzz/README.md"));
    assert_eq!(
        names(&rows),
        fuzz_targets(),
        "fuzz/README.md's table must have one row per target of fuzz/Cargo.toml"
    );
    for (target, cells) in &rows {
        assert!(
            cells.len() == 2 && cells.iter().all(|cell| !cell.is_empty()),
            "fuzz/README.md: the row of {target} must say what it feeds and what counts as a failure: {cells:?}"
        );
    }
}

#[test]
fn the_recorded_fuzz_figures_cover_every_target_and_are_clean() {
    let rows = rows_by_target(&read("fuzz/RESULTS.md"));
    assert_eq!(
        names(&rows),
        fuzz_targets(),
        "fuzz/RESULTS.md must hold one recorded run per target of fuzz/Cargo.toml: \
         bash scripts/fuzz.sh --seconds 3600 --record --target <new target>"
    );
    for (target, cells) in &rows {
        // run on, seconds, executions, coverage, corpus, result: as scripts/fuzz.sh writes them.
        assert_eq!(
            cells.len(),
            6,
            "fuzz/RESULTS.md: the row of {target}: {cells:?}"
        );
        let seconds: u64 = cells[1].parse().unwrap_or(0);
        let executions: u64 = cells[2].parse().unwrap_or(0);
        assert!(
            seconds >= 60 && executions > 0 && cells[3].starts_with("cov: "),
            "fuzz/RESULTS.md: {target} has no figures of a run: {cells:?}"
        );
        assert_eq!(
            cells[5], "ok",
            "fuzz/RESULTS.md: the recorded run of {target} failed; fix it and record it again"
        );
    }
}
