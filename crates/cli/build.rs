//! Links the `courier` binary at a fixed address (no PIE) on Linux: see `docs/threat-model.md`,
//! "The binary's own address".

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-link-arg-bin=courier=-no-pie");
    }
}
