//! The published crates' READMEs against the repository: the client README's program is the one CI runs.

use std::path::Path;

fn read(relative: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    std::fs::read_to_string(root.join(relative)).unwrap()
}

/// The first ```rust block (any info string after `rust`) after `heading`.
fn rust_block<'a>(markdown: &'a str, heading: &str) -> &'a str {
    let after_heading = markdown.split_once(heading).expect("heading present").1;
    let start = after_heading.find("```rust").expect("a rust block");
    let code = after_heading[start..]
        .split_once('\n')
        .expect("fence line")
        .1;
    &code[..code.find("```").expect("closing fence")]
}

/// CI builds and runs the repository README's program against the real service over HTTPS
/// (`scripts/readme-client.sh`); the client crate's README shows it on crates.io, where its
/// doctest can only compile it. Holding the two identical makes what crates.io shows what CI ran.
#[test]
fn client_readme_program_is_the_one_ci_runs() {
    let crate_readme = read("crates/client/README.md");
    let repository_readme = read("README.md");
    let shown = rust_block(&crate_readme, "# courier-client");
    assert!(shown.contains("#[tokio::main]"), "a complete program");
    assert_eq!(shown, rust_block(&repository_readme, "## Using the client"));
}

/// Every published crate names its README in its manifest and includes it as a doctest, so
/// the example on crates.io is compiled (and, for models and server, run) by `cargo test`.
#[test]
fn published_crates_run_their_readme_as_doctest() {
    for krate in ["models", "client", "server", "verify"] {
        let manifest = read(&format!("crates/{krate}/Cargo.toml"));
        assert!(manifest.contains("readme = \"README.md\""), "{krate}");
        let lib = read(&format!("crates/{krate}/src/lib.rs"));
        assert!(
            lib.contains("#[cfg(doctest)]\n#[doc = include_str!(\"../README.md\")]"),
            "crates/{krate}/src/lib.rs includes its README as a doctest"
        );
    }
}
