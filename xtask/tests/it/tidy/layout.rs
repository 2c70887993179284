//! The test layout: one integration-test binary per package, its suites modules inside it, so
//! a fresh clone links each package's tests once; the few binaries that stand alone are named
//! here with the reason.

use super::{assert_none, tracked_files};
use std::collections::BTreeMap;

/// Test binaries allowed beside a package's one, each with why it needs a process of its own.
const OWN_PROCESS: [(&str, &str); 3] = [
    (
        "crates/cli/tests/crash/main.rs",
        "kills the service at timed points under a racing workload; neighbours would move them",
    ),
    (
        "crates/cli/tests/connection_limits.rs",
        "holds a thousand connections, most of the test process's own descriptors",
    ),
    (
        "crates/cli/tests/request_bodies.rs",
        "sends 1.5 GB of bodies from the test process at once",
    ),
];

/// The package a test binary belongs to, when `path` is one: `<package>/tests/<name>.rs` or
/// `<package>/tests/<name>/main.rs` (the root package's prefix is empty).
fn binary_of(path: &str) -> Option<&str> {
    let (package, rest) = match path.strip_prefix("tests/") {
        Some(rest) => ("", rest),
        None => {
            let at = path.find("/tests/")?;
            (&path[..at], &path[at + "/tests/".len()..])
        }
    };
    let is_binary = match rest.split_once('/') {
        None => rest.ends_with(".rs"),
        Some((_, inside)) => inside == "main.rs",
    };
    is_binary.then_some(package)
}

#[test]
fn each_package_links_one_integration_test_binary() {
    let mut by_package: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let files = tracked_files();
    for file in &files {
        if OWN_PROCESS.iter().any(|(path, _)| *path == file.path) {
            continue;
        }
        if let Some(package) = binary_of(&file.path) {
            by_package
                .entry(package)
                .or_default()
                .push(file.path.clone());
        }
    }
    let offenders = by_package
        .into_iter()
        .filter(|(_, binaries)| binaries.len() > 1)
        .map(|(package, binaries)| {
            format!(
                "{}: {} test binaries ({}); make them modules of one (tests/it/main.rs), or name the one that needs a process of its own in OWN_PROCESS with the reason",
                if package.is_empty() { "(root)" } else { package },
                binaries.len(),
                binaries.join(", ")
            )
        })
        .collect();
    assert_none(
        "packages with more than one integration-test binary",
        offenders,
    );
}

#[test]
fn a_test_binary_is_told_from_a_module() {
    assert_eq!(binary_of("crates/cli/tests/it/main.rs"), Some("crates/cli"));
    assert_eq!(binary_of("crates/cli/tests/verify.rs"), Some("crates/cli"));
    assert_eq!(binary_of("tests/it/main.rs"), Some(""));
    assert_eq!(binary_of("crates/cli/tests/it/cli/profiles.rs"), None);
    assert_eq!(binary_of("crates/cli/tests/common/mod.rs"), None);
    assert_eq!(
        binary_of("xtask/tests/spec-diff/enum-value-added.yaml"),
        None
    );
}
