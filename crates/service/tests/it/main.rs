//! courier-service's integration tests, one binary with a module per subject, so the suite
//! links once: the admin API's credentials, hostile payloads, the spec's documentation of the
//! service, the store (one process and several), its migrations and its semantics.

mod admin_credentials;
mod hostile_payloads;
mod spec_docs;
mod store;
mod store_migrations;
mod store_semantics;
mod test_service;
