//! What more than one test crate of xtask needs.

pub(crate) mod edits;

use std::process::Command;

/// Runs `command`, asserts that it succeeds (naming it and quoting its stderr when not), and
/// returns its stdout.
pub(crate) fn run(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}
