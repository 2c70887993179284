//! Serves an implementation's axum router on an ephemeral port, so the scenarios can run
//! against it over a real socket from `cargo test`.

/// Binds `127.0.0.1:0`, serves `router` on a background task and answers its base URL
/// (`http://127.0.0.1:<port>`). The task ends with the runtime (the end of the test).
pub async fn serve_router(router: axum::Router) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        // An accept error ends the server; the scenarios then report requests without answers.
        let _ = axum::serve(listener, router).await;
    });
    Ok(format!("http://{address}"))
}
