//! TLS through rustls with the *ring* provider: the configuration reqwest is handed, whole.
//!
//! reqwest's own `rustls` feature brings aws-lc-rs, a C library whose build was the largest part
//! of a cold build of a program using this crate (BENCHMARKS.md, "Cold build"). reqwest with
//! `rustls-no-provider` instead needs a process-wide provider, and a library must not install
//! one behind its user's back (a later `install_default` in their program would then fail). So
//! the client gets a finished configuration: ring, the platform's verifier (which on Linux reads
//! `SSL_CERT_FILE` / `SSL_CERT_DIR`) and the extra roots of `add_root_certificate_pem`, which is
//! what reqwest builds for itself with its default provider.

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls_platform_verifier::Verifier;
use std::sync::Arc;

/// Every certificate of each PEM text; an error names what was wrong with which one.
pub(crate) fn certificates(pems: &[Vec<u8>]) -> Result<Vec<CertificateDer<'static>>, String> {
    let mut all = Vec::new();
    for pem in pems {
        let before = all.len();
        for certificate in CertificateDer::pem_slice_iter(pem) {
            all.push(
                certificate
                    .map_err(|e| format!("the root certificate is not a PEM certificate: {e}"))?,
            );
        }
        if all.len() == before {
            return Err("the root certificate PEM holds no certificate".into());
        }
    }
    Ok(all)
}

/// The client configuration: ring, the platform's roots and `extra_roots`.
pub(crate) fn client_config(
    extra_roots: Vec<CertificateDer<'static>>,
) -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = if extra_roots.is_empty() {
        Verifier::new(provider.clone())?
    } else {
        Verifier::new_with_extra_roots(extra_roots, provider.clone())?
    };
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}
