//! The courier reference service: both interfaces implemented on a durable store: SQLite
//! by default, PostgreSQL for several processes sharing one database.
//!
//! Start it with `courier serve` (see the README); embed it in tests with
//! [`testing::TestService`].

pub mod account;
pub mod admin;
pub mod admission;
pub mod api;
pub mod app;
pub mod body;
pub mod connections;
pub mod console;
pub mod cursor;
pub mod datadir;
pub mod delivery;
pub mod demo;
pub mod kept_pages;
pub mod memory;
pub mod metering;
pub mod ratelimit;
pub mod sample;
pub mod secrets;
pub mod signin;
pub mod spec_docs;
pub mod stats;
pub mod store;
#[cfg(feature = "testing")]
pub mod test_database;
#[cfg(feature = "testing")]
pub mod testing;
pub mod time;
pub mod tls;
pub mod wire;
