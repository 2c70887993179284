//! The `courier` command's client side as a library: the binary (`src/main.rs`) and the fuzz
//! targets share it, so the profiles file a fuzzer feeds is parsed by the command's own code.

pub mod client;
