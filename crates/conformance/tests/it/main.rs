//! courier-conformance's tests, one binary with a module per subject, so the suite links once:
//! the recorded fixtures against the models, the interface's facts against the spec, the
//! pinned schemas and instances, and the spec's schemas against the models.

mod fixtures;
mod interface;
mod snapshots;
mod spec_models;
