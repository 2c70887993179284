//! The second anchor of `bench/run.sh`: a minimal HTTP/1.1 server sending bytes it holds in
//! memory, the same bytes nginx sends from files. Every file under `--root` is served at its
//! path, and `GET /v2/workflows/dlq` with any query as `ROOT/list100.json`, as the nginx
//! configuration does; a `DELETE` of one entry as `ROOT/delete-one.answer`, and of several
//! (`DELETE /v2/workflows/dlq?…`) as `ROOT/delete-bulk.answer`, courier's answers saved by
//! `bench/run.sh` for `courier-latency`. No routing framework, no logging, no middleware: what is left is hyper
//! writing a body it already has, which is what a limit means.

use clap::Parser;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Parser)]
struct Args {
    /// The directory whose files are served (read into memory at start).
    #[arg(long)]
    root: PathBuf,
    #[arg(long)]
    listen: SocketAddr,
}

/// Every file under `dir`, keyed by its path from `root` with a leading `/`.
fn load(root: &Path, dir: &Path, files: &mut HashMap<String, Bytes>) -> std::io::Result<()> {
    for item in std::fs::read_dir(dir)? {
        let path = item?.path();
        if path.is_dir() {
            load(root, &path, files)?;
        } else if let Ok(relative) = path.strip_prefix(root) {
            let key = format!("/{}", relative.to_string_lossy());
            files.insert(key, Bytes::from(std::fs::read(&path)?));
        }
    }
    Ok(())
}

fn answer(files: &HashMap<String, Bytes>, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    let deleting = request.method() == hyper::Method::DELETE;
    let path = match request.uri().path() {
        "/v2/workflows/dlq" if deleting => "/delete-bulk.answer",
        "/v2/workflows/dlq" => "/list100.json",
        _ if deleting => "/delete-one.answer",
        other => other,
    };
    match files.get(path) {
        Some(body) => {
            let mut response = Response::new(Full::new(body.clone()));
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        None => {
            let mut response = Response::new(Full::new(Bytes::new()));
            *response.status_mut() = StatusCode::NOT_FOUND;
            response
        }
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut files = HashMap::new();
    load(&args.root, &args.root, &mut files)?;
    let files = Arc::new(files);
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let files = files.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let response = answer(&files, &request);
                async move { Ok::<_, Infallible>(response) }
            });
            // A client closing its connection mid-request is no error of the anchor's.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
