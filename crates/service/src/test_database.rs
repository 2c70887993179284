//! `TestDatabase`: a throwaway PostgreSQL schema for a test, in the database the environment
//! names, so the PostgreSQL store runs the same suites as SQLite.
//!
//! `COURIER_TEST_POSTGRES` holds a `postgres://` URL of a database the tests may create schemas
//! in. Without it the PostgreSQL half of a suite is skipped, and said so once per test binary on
//! the terminal (past the test harness's capture); with `COURIER_REQUIRE_POSTGRES=1` (CI) a
//! missing database fails the test instead.

use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

/// The variable naming the database the PostgreSQL suites use.
pub const DATABASE_VARIABLE: &str = "COURIER_TEST_POSTGRES";
/// Set to `1` where the PostgreSQL suites must run (CI): then a missing database fails.
pub const REQUIRE_VARIABLE: &str = "COURIER_REQUIRE_POSTGRES";

/// A schema of its own in the test database, dropped with everything in it when this is dropped.
pub struct TestDatabase {
    base_url: String,
    schema: String,
    url: String,
}

impl TestDatabase {
    /// A fresh schema, or `None` when no test database is configured (and none is required).
    pub fn create() -> Option<TestDatabase> {
        let base_url = TestDatabase::configured()?;
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let schema = format!(
            "courier_test_{}_{}_{}",
            std::process::id(),
            crate::time::now_ms(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        execute(&base_url, &format!("CREATE SCHEMA {schema}"))
            .unwrap_or_else(|error| panic!("creating the test schema {schema}: {error}"));
        let separator = if base_url.contains('?') { '&' } else { '?' };
        let url = format!("{base_url}{separator}options=-csearch_path%3D{schema}");
        Some(TestDatabase {
            base_url,
            schema,
            url,
        })
    }

    /// The test database's connection string, or `None` (said once on the terminal) when none is
    /// configured; panics when one is required (`COURIER_REQUIRE_POSTGRES=1`). The rule every
    /// PostgreSQL test follows, also those that need no schema here.
    pub fn configured() -> Option<String> {
        if let Some(base_url) = std::env::var(DATABASE_VARIABLE)
            .ok()
            .filter(|v| !v.is_empty())
        {
            return Some(base_url);
        }
        if std::env::var(REQUIRE_VARIABLE).is_ok_and(|v| v == "1") {
            panic!(
                "{REQUIRE_VARIABLE}=1 but {DATABASE_VARIABLE} names no database: the PostgreSQL suite must run here"
            );
        }
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            // Straight to the terminal: the harness captures `eprintln!` of passing tests.
            let _ = writeln!(
                std::io::stderr(),
                "PostgreSQL suite skipped: set {DATABASE_VARIABLE}=postgres://… to run it (README, \"PostgreSQL\")"
            );
        });
        None
    }

    /// The connection string of the schema: give it to `PostgresStore::connect` or to
    /// `courier serve --store`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let dropped = execute(
            &self.base_url,
            &format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema),
        );
        if let Err(error) = dropped {
            let _ = writeln!(
                std::io::stderr(),
                "dropping the test schema {}: {error}",
                self.schema
            );
        }
    }
}

/// Runs `sql` on the database at `url`, on a thread of its own: the synchronous client runs
/// its own runtime, which cannot start on a thread that drives a test's async runtime.
fn execute(url: &str, sql: &str) -> Result<(), postgres::Error> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let mut client = postgres::Client::connect(url, postgres::NoTls)?;
                client.batch_execute(sql)
            })
            .join()
            .unwrap_or_else(|panicked| std::panic::resume_unwind(panicked))
    })
}
