//! courier-server's integration tests, one binary with a module per subject, so the suite
//! links once: the generated routers against the generated client on a real socket, and
//! hostile input to the parsers, the credential extraction and the socket.

mod hostile_input;
mod router;
