//! HTTPS for `courier serve --tls-cert PEM --tls-key PEM`: a rustls server configuration from
//! PEM files, so HTTPS-only client setups can be tried locally.

use std::path::Path;
use std::sync::Arc;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The TLS settings of a listener: what `--tls-cert` / `--tls-key` loaded.
pub type ServerTls = Arc<rustls::ServerConfig>;

/// Reads a certificate chain (leaf first) and its private key (PKCS#8, PKCS#1 or SEC1), both
/// PEM, into a server configuration offering HTTP/1.1.
pub fn load(cert_path: &Path, key_path: &Path) -> Result<ServerTls, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_path)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|e| format!("cannot read certificates from {}: {e}", cert_path.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no PEM certificate", cert_path.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key_path)
        .map_err(|e| format!("cannot read a private key from {}: {e}", key_path.display()))?;
    from_der(chain, key)
}

/// A server configuration from an already parsed chain and key (the PEM files' contents).
pub fn from_der(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<ServerTls, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("the certificate and key do not form a usable pair: {e}"))?;
    // The server speaks HTTP/1.1 only (see app::serve_listener).
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Parses PEM text of a certificate chain and a key, as [`load`] does with files.
pub fn from_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<ServerTls, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot read certificates: {e}"))?;
    let key =
        PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| format!("cannot read the key: {e}"))?;
    from_der(chain, key)
}

/// An HTTPS client configuration trusting `roots` alone (none: the client speaks plain HTTP),
/// with ring, like the server: reqwest's own provider would bring a second crypto library.
pub fn client_config(roots: &[CertificateDer<'static>]) -> Result<rustls::ClientConfig, String> {
    let mut store = rustls::RootCertStore::empty();
    for root in roots {
        store
            .add(root.clone())
            .map_err(|e| format!("not a usable CA certificate: {e}"))?;
    }
    Ok(rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("TLS setup failed: {e}"))?
    .with_root_certificates(store)
    .with_no_client_auth())
}
