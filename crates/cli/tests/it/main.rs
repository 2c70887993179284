//! The `courier` binary's tests, one binary with a module per subject, so the suite links
//! once: the client commands and `verify` as a user runs them, the console (with a real
//! browser), hostile clients and answers, the data directory, faults, other users, secrets in
//! logs, and the PostgreSQL store's processes and outages. Three suites keep binaries of their
//! own: the crash test (50,000 entries and SIGKILL, timed), and the connection and body limits,
//! which load the test process's own descriptors and sockets to their bounds.

#[path = "../common/mod.rs"]
mod common;

mod binary;
mod cli;
mod console;
mod console_browser;
mod console_hostile;
mod data_dir_links;
mod faults;
mod hostile_answers;
mod hostile_clients;
mod local_users;
mod no_secrets_in_logs;
mod postgres_outage;
mod postgres_processes;
mod verify;
