//! courier-client's tests, one binary with a module per subject, so the suite links once:
//! every operation on the wire against recorded answers, and hostile servers (huge, endless
//! and trickled answers) against the client's cap and deadlines.

mod hostile_server;
mod wire;
