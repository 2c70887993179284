//! The end-to-end tests, one binary with a module per subject, so the suite links once:
//! courier-client against the running service (the contract, over HTTPS, its ergonomics and
//! validation), every operation under every kind of credential, the official clients' aliases,
//! not implemented routes, rate limits, recorded statistics and slow clients.

mod auth_matrix;
mod client_validation;
mod common;
mod compat_aliases;
mod contract;
mod ergonomics;
mod https;
mod named_only;
mod not_implemented;
mod rate_limit;
mod recorded_statistics;
mod slow_clients;
