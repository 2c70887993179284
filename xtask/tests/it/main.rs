//! xtask's tests, one binary with a module per subject, so the suite links once: codegen and
//! its freshness, the crate READMEs, the fuzz directory, spec-diff on compiled drills and its
//! corpus, the tidy rules of the whole tree, and version-check.

mod codegen;
mod crate_readmes;
mod fuzz_targets;
mod spec_diff_compile;
mod spec_diff_corpus;
mod support;
mod tidy;
mod version_check;
