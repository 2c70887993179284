//! Asking before something that cannot be undone: a y/N question on a terminal, `--yes` for
//! scripts, and a refusal when nobody could answer.

use super::exit::{Exit, Failure};
use std::io::{BufRead, IsTerminal, Write};

/// Goes on when `yes` was given or the person at the terminal answers y; refuses (exit 2) when
/// stdin is not a terminal, so a script never deletes by accident of a missing flag.
pub(super) fn confirm(question: &str, yes: bool) -> Result<(), Failure> {
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(Failure::usage(format!(
            "{question} Not asking without a terminal: pass --yes"
        )));
    }
    let mut stderr = std::io::stderr();
    write!(stderr, "{question} [y/N] ")?;
    stderr.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(Failure::new(Exit::Failure, "aborted: nothing was changed"))
    }
}
