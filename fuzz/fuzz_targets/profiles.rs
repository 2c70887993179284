//! Fuzz target: the command line's profiles file (`~/.config/courier/profiles.toml`), which a
//! user writes by hand and may copy from anywhere. The bytes are the file, read by the command's
//! own `Profile::parse`, once for the default profile and once for a named one. Panics on a
//! crash, and on a refusal that does not name the file (a user must know which file to fix) or
//! a named profile that comes back absent without an error.
#![no_main]

// The command line's module itself, compiled here alone: depending on courier-cli would build
// its whole client stack (reqwest, TLS, clap; about a third of the fuzz build) for one parser.
#[path = "../../crates/cli/src/client/profile.rs"]
#[allow(dead_code)]
mod profile;

use libfuzzer_sys::fuzz_target;
use profile::Profile;
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        // The command reads the file with `read_to_string`, which refuses non-UTF-8 itself.
        return;
    };
    let path = Path::new("/home/user/.config/courier/profiles.toml");
    for name in [None, Some("staging")] {
        match Profile::parse(text, name, path) {
            Ok(Some(_)) => {}
            Ok(None) => assert!(name.is_none(), "the named profile came back absent without an error"),
            Err(message) => assert!(message.contains(path.to_str().unwrap()), "{message}"),
        }
    }
});
