//! Storage faults injected for real on the real `courier` binary: a second process on the same
//! data directory, a full disk, a data directory it cannot write, a file that is not a database,
//! a database from a newer courier. Where the machine cannot arrange a fault (no root for a
//! mount, no unprivileged user), the test says so on stderr and passes without it.

mod common;

use common::{Courier, courier_serve};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// Waits for a process that should exit by itself; kills it and fails after 20 s.
fn exits_by_itself(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().expect("output");
            panic!(
                "{what}: still running after 20 s; it should have refused to start. stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// `courier serve` on `data_dir` that is expected to refuse to start: its output.
fn refused_start(data_dir: &std::path::Path, what: &str) -> Output {
    let child = courier_serve(data_dir)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the courier binary starts");
    exits_by_itself(child, what)
}

async fn health(base: &str) -> (u16, serde_json::Value) {
    let response = reqwest::get(format!("{base}/health"))
        .await
        .expect("health");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

#[tokio::test]
async fn a_second_process_on_the_same_data_directory_refuses_to_start() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut first = Courier::spawn(courier_serve(data.path()).stderr(Stdio::null()));

    let second = refused_start(data.path(), "a second courier on the same data directory");
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        !second.status.success(),
        "non-zero exit: {:?}",
        second.status
    );
    assert!(
        stderr.contains(&data.path().display().to_string()),
        "the message names the directory: {stderr}"
    );
    assert!(
        stderr.contains(&format!("pid {}", first.child.id())),
        "the message names the process holding it: {stderr}"
    );

    // The lock dies with its holder, however it dies: after a SIGKILL the next start works.
    first.signal("-KILL");
    let _ = first.child.wait();
    let next = Courier::spawn(courier_serve(data.path()).stderr(Stdio::null()));
    assert_eq!(health(&next.base).await.0, 200);
}
