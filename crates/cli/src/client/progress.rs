//! Long work (`dlq purge`, `dlq list --all`): a spinner on a terminal, and Ctrl-C that stops
//! between pages so the work can resume from the printed cursor.

use super::exit::{Exit, Failure};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set once Ctrl-C was pressed; the command checks it between pages. A second Ctrl-C exits at
/// once, for when a request hangs.
#[derive(Clone)]
pub(super) struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Takes over SIGINT for the rest of the process. On Unix the handler is registered before
    /// this returns, so a Ctrl-C right after the first page is never missed.
    pub(super) fn install() -> Interrupt {
        let requested = Arc::new(AtomicBool::new(false));
        let flag = requested.clone();
        #[cfg(unix)]
        let mut signals =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
        tokio::spawn(async move {
            loop {
                #[cfg(unix)]
                let received = match signals.as_mut() {
                    Some(signals) => signals.recv().await.is_some(),
                    None => tokio::signal::ctrl_c().await.is_ok(),
                };
                #[cfg(not(unix))]
                let received = tokio::signal::ctrl_c().await.is_ok();
                if !received {
                    return;
                }
                if flag.swap(true, Ordering::SeqCst) {
                    std::process::exit(Exit::Interrupted as i32);
                }
            }
        });
        Interrupt(requested)
    }

    pub(super) fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// The failure that reports where to resume.
    pub(super) fn stopped_at(cursor: &str) -> Failure {
        Failure::new(
            Exit::Interrupted,
            format!("interrupted; resume with --cursor {cursor}"),
        )
    }
}

/// A spinner with a running count on stderr when stderr is a terminal; nothing otherwise, so
/// pipes and logs stay clean.
pub(super) fn spinner() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}
