//! What the resource-limit tests measure of a running `courier` from `/proc`: its resident
//! memory (`VmRSS`, and `RssAnon`, the heap's part without the mapped store and binary) and its
//! open descriptors, once or sampled for the peak while a test's clients misbehave.
// Every test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Resident memory of a process, in KiB.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Memory {
    pub rss_kib: u64,
    pub anon_kib: u64,
}

impl Memory {
    /// The larger of each figure.
    fn max(self, other: Memory) -> Memory {
        Memory {
            rss_kib: self.rss_kib.max(other.rss_kib),
            anon_kib: self.anon_kib.max(other.anon_kib),
        }
    }
}

impl std::fmt::Display for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "VmRSS {:.1} MiB, RssAnon {:.1} MiB",
            self.rss_kib as f64 / 1024.0,
            self.anon_kib as f64 / 1024.0
        )
    }
}

/// `VmRSS` and `RssAnon` of `/proc/PID/status`.
pub(crate) fn memory(pid: u32) -> Memory {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0)
    };
    Memory {
        rss_kib: field("VmRSS:"),
        anon_kib: field("RssAnon:"),
    }
}

/// How many descriptors the process has open.
pub(crate) fn open_descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

/// Samples a process's memory every 20 ms on a thread until [`Peak::stop`]: the highest figures.
pub(crate) struct Peak {
    stop: Arc<AtomicBool>,
    sampler: std::thread::JoinHandle<Memory>,
}

impl Peak {
    pub(crate) fn sample(pid: u32) -> Peak {
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut peak = memory(pid);
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                    peak = peak.max(memory(pid));
                }
                peak.max(memory(pid))
            })
        };
        Peak { stop, sampler }
    }

    pub(crate) fn stop(self) -> Memory {
        self.stop.store(true, Ordering::SeqCst);
        self.sampler.join().expect("the sampler thread")
    }
}

/// Growth from `before` to `after` in MiB: (`VmRSS`, `RssAnon`).
pub(crate) fn growth_mib(before: Memory, after: Memory) -> (f64, f64) {
    let mib = |after: u64, before: u64| (after as f64 - before as f64) / 1024.0;
    (
        mib(after.rss_kib, before.rss_kib),
        mib(after.anon_kib, before.anon_kib),
    )
}

/// Whether `answer` holds an HTTP response's head and its whole body: as much as its
/// `content-length` says, or a chunked body's last chunk.
pub(crate) fn answer_complete(answer: &[u8]) -> bool {
    let text = String::from_utf8_lossy(answer);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return body.ends_with("0\r\n\r\n");
    }
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .is_some_and(|length| body.len() >= length)
}

/// The soft limit of open descriptors of this (the test's) process.
pub(crate) fn own_descriptor_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .unwrap_or_default()
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .and_then(|line| line.split_whitespace().nth(3))
        .and_then(|soft| soft.parse().ok())
        .unwrap_or(1024)
}
