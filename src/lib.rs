//! Holds the end-to-end contract tests in `tests/`; the package itself has no code.
