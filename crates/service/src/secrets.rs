//! The secrets `courier serve` is given: read from a file, the environment or (with a warning) a
//! flag, and refused when shorter than [`MIN_SECRET_CHARS`].
//!
//! A flag's value is in `/proc/PID/cmdline`, which every local user can read; a file (mode
//! `0600`) or the environment (`/proc/PID/environ` is the owner's only) is not.

use std::path::Path;

/// The fewest characters a chosen service token, management key or admin token may have. The
/// secrets the service draws itself are far longer; this stops a guessable one like `adm`.
pub const MIN_SECRET_CHARS: usize = 16;

/// Refuses a chosen secret shorter than [`MIN_SECRET_CHARS`]; `option` names it in the message.
pub fn check_length(option: &str, secret: &str) -> Result<(), String> {
    let chars = secret.chars().count();
    if chars < MIN_SECRET_CHARS {
        return Err(format!(
            "{option} is {chars} characters long; a secret must have at least {MIN_SECRET_CHARS} \
             (leave it out and courier draws a random one)"
        ));
    }
    Ok(())
}

/// The secret in `file`: its first line, without the line end. `option` names it in messages.
pub fn read_file(option: &str, file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{option}: cannot read {}: {e}", file.display()))?;
    let secret = text.lines().next().unwrap_or("").trim_end_matches('\r');
    if secret.is_empty() {
        return Err(format!("{option}: {} is empty", file.display()));
    }
    Ok(secret.to_owned())
}

/// The warning printed when a secret arrives as a command-line flag.
pub fn flag_warning(flag: &str, env: &str) -> String {
    format!(
        "warning: {flag} is visible to every local user in the process list (/proc/PID/cmdline); \
         pass it with {flag}-file or the {env} environment variable instead"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_secrets_are_refused_by_name_and_long_ones_pass() {
        let refused = check_length("--admin-token", "adm").expect_err("too short");
        assert!(
            refused.contains("--admin-token") && refused.contains("16"),
            "{refused}"
        );
        check_length("--admin-token", "sixteen-chars-ok").expect("sixteen is enough");
    }

    #[test]
    fn a_secret_file_gives_its_first_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("token");
        std::fs::write(&file, "first-line-secret\r\nsecond\n").expect("write");
        assert_eq!(read_file("--x-file", &file).unwrap(), "first-line-secret");
        std::fs::write(&file, "").expect("write");
        assert!(read_file("--x-file", &file).is_err());
    }
}
