//! `cargo xtask version-check` in a real git history: the default base on a clean clone of
//! `main` (HEAD~1, none on the first commit) and a breaking spec edit that must bump versions.

mod support;

use std::path::Path;
use std::process::Command;
use xtask::spec_diff::versions::default_base;

/// Runs git in `dir` and returns its stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    support::run(
        Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=test",
                "-c",
                "user.email=test@example.invalid",
            ])
            .args(args),
    )
}

#[test]
fn the_default_base_is_none_on_the_first_commit_then_the_previous_commit() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("a"), "1").unwrap();
    git(dir.path(), &["add", "a"]);
    git(dir.path(), &["commit", "-qm", "first"]);
    assert_eq!(default_base(dir.path()), None);

    std::fs::write(dir.path().join("a"), "2").unwrap();
    git(dir.path(), &["commit", "-qam", "second"]);
    let base = default_base(dir.path()).unwrap();
    assert_eq!(base.why, "the previous commit (HEAD~1)");

    // On a branch: the merge base with main, however many commits the branch has.
    git(dir.path(), &["checkout", "-qb", "feature"]);
    std::fs::write(dir.path().join("a"), "3").unwrap();
    git(dir.path(), &["commit", "-qam", "third"]);
    std::fs::write(dir.path().join("a"), "4").unwrap();
    git(dir.path(), &["commit", "-qam", "fourth"]);
    let on_branch = default_base(dir.path()).unwrap();
    assert_eq!(on_branch.rev, base_of_main(dir.path()));
    assert_eq!(on_branch.why, "merge base of HEAD and main");

    // A release tag on main before HEAD wins over HEAD~1.
    git(dir.path(), &["checkout", "-q", "main"]);
    git(dir.path(), &["tag", "v0.1.0", "HEAD~1"]);
    std::fs::write(dir.path().join("a"), "5").unwrap();
    git(dir.path(), &["commit", "-qam", "fifth"]);
    assert_eq!(default_base(dir.path()).unwrap().rev, "v0.1.0");
}

fn base_of_main(dir: &Path) -> String {
    git(dir, &["rev-parse", "main"]).trim().to_owned()
}
