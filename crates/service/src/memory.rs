//! The process's memory: glibc malloc's arena cap, set at start, and the figures the upkeep logs
//! every minute so that growth can be told apart: SQLite's own allocations, and the heap in use
//! and held free by malloc.

// The one module of the service that calls C: glibc's malloc tuning and statistics, SQLite's
// memory counter. Each call says why it is sound.
#![allow(unsafe_code)]

/// Caps glibc's malloc at two arenas; call before any thread starts. glibc gives threads that
/// allocate at the same time arenas of their own, up to eight per core; under a soak the heap
/// spreads over many arenas that keep growing while the data stays the same size
/// (BENCHMARKS.md, "Soak").
pub fn bound_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a tuning parameter; no thread exists yet to race with it.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// Where the process's memory is, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryReport {
    /// Allocated by SQLite (page caches, statements, schema), all connections.
    pub sqlite: u64,
    /// Allocated through malloc and not freed (SQLite's included); `None` off glibc.
    pub heap_in_use: Option<u64>,
    /// Freed, but kept by malloc in its arenas rather than returned to the system.
    pub heap_free: Option<u64>,
}

/// The figures now.
pub fn report() -> MemoryReport {
    // SAFETY: `sqlite3_memory_used` reads a counter under SQLite's own mutex.
    let sqlite = unsafe { rusqlite::ffi::sqlite3_memory_used() }.max(0) as u64;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallinfo2` (glibc 2.33+) only reads malloc's statistics.
        let info = unsafe { libc::mallinfo2() };
        MemoryReport {
            sqlite,
            heap_in_use: Some((info.uordblks + info.hblkhd) as u64),
            heap_free: Some(info.fordblks as u64),
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    MemoryReport {
        sqlite,
        heap_in_use: None,
        heap_free: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_memory_is_counted() {
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        connection
            .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (zeroblob(100000));")
            .unwrap();
        let with = report();
        assert!(with.sqlite > 0, "{with:?}");
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        assert!(with.heap_in_use.unwrap() >= with.sqlite, "{with:?}");
    }
}
