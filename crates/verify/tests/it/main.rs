//! courier-verify's integration tests, one binary with a module per subject, so the suite links
//! once: the validator against hand-made answers, the fast path against the full validator,
//! and the scenario runner against the real service, seeded and generated.

mod courier_service;
mod endless_list;
mod fast_path;
mod no_false_alarm;
mod validator;
