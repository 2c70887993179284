//! How long `courier serve` on an empty data directory takes to its first answer: from spawning
//! the process to the end of a `GET /health` answered 200, each start on a new empty directory.
//! `bench/run.sh` writes the percentiles to BENCHMARKS.md.
//!
//! The client is a bare TCP connect, retried every 100 µs until the listener is there (a refused
//! connect on loopback costs microseconds), so the figure is the service's, not a poller's: a
//! `curl` loop would add a process start per probe.

use clap::Parser;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::DirBuilderExt as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    /// The `courier` binary.
    #[arg(long)]
    courier: PathBuf,
    /// Starts, one after another, each on a new empty data directory.
    #[arg(long, default_value_t = 50)]
    starts: usize,
    /// The port courier listens on (127.0.0.1).
    #[arg(long, default_value_t = 18650)]
    port: u16,
    /// Where the data directories are made (a new temporary directory when not given).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// One `GET /health` on a new connection: whether it was answered 200.
///
/// The client closes the connection once the whole answer is in, so that the side that closes
/// first, which keeps the connection in TIME_WAIT for a minute, is the client's port. With
/// `Connection: close` the server closed first and each start left a socket in TIME_WAIT on the
/// served port, which the next start's `bind` had to step over (770 of them after a few hundred
/// starts, `inet_bhash2_conflict` in the start's profile): a cost of the harness, not of courier.
fn health(address: SocketAddr) -> std::io::Result<bool> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    // An answer that never completes fails the start instead of holding the harness.
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let read = stream.read(&mut chunk)?;
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..read]);
        if answer_is_whole(&answer) {
            break;
        }
    }
    Ok(answer.starts_with(b"HTTP/1.1 200"))
}

/// Whether `answer` holds its head and the `Content-Length` bytes of body it declares.
fn answer_is_whole(answer: &[u8]) -> bool {
    let Some(head_end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&answer[..head_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok());
    length.is_some_and(|length| answer.len() >= head_end + 4 + length)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let work = match &args.work_dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("courier-serve-start-{}", std::process::id())),
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&work)?;
    let address = SocketAddr::from(([127, 0, 0, 1], args.port));
    let mut times = Vec::with_capacity(args.starts);
    for start in 0..args.starts {
        let data_dir = work.join(format!("d{start}"));
        std::fs::DirBuilder::new().mode(0o700).create(&data_dir)?;
        let started = Instant::now();
        let mut child = Command::new(&args.courier)
            .args(["serve", "--listen", &address.to_string()])
            .arg("--data-dir")
            .arg(&data_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let answered = loop {
            match health(address) {
                Ok(ok) => break ok,
                Err(error) if started.elapsed() > Duration::from_secs(10) => {
                    let _ = child.kill();
                    return Err(format!("courier did not answer within 10 s: {error}").into());
                }
                Err(_) => std::thread::sleep(Duration::from_micros(100)),
            }
        };
        let elapsed = started.elapsed();
        child.kill()?;
        child.wait()?;
        if !answered {
            return Err("courier's first /health was not a 200".into());
        }
        times.push(elapsed);
        std::fs::remove_dir_all(&data_dir)?;
    }
    if args.work_dir.is_none() {
        std::fs::remove_dir_all(&work)?;
    }
    times.sort();
    // One line for bench/run.sh: p50, p99 and max in microseconds.
    println!(
        "{:.0} {:.0} {:.0}",
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
        times[times.len() - 1].as_secs_f64() * 1e6,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::answer_is_whole;

    #[test]
    fn an_answer_is_whole_once_its_declared_body_is_in() {
        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 15\r\n\r\n{\"status\":\"ok\"}";
        assert!(answer_is_whole(answer));
        assert!(!answer_is_whole(&answer[..answer.len() - 1]));
        assert!(!answer_is_whole(
            b"HTTP/1.1 200 OK\r\ncontent-length: 15\r\n"
        ));
        assert!(
            !answer_is_whole(b"HTTP/1.1 200 OK\r\n\r\n{}"),
            "no length: not known whole"
        );
    }
}
