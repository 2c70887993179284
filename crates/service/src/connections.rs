//! How the listeners hold connections: at most so many in total (below the process's limit of
//! open descriptors) and per client address, a new one beyond either closed at accept with a
//! log line; each served with hyper's HTTP/1.1 within the header deadline, and closed when a
//! write of its answers has made no progress for [`WRITE_STALL_TIMEOUT`] (a client that never
//! reads). Nothing a client sends before its credentials makes these grow.

use axum::Router;
use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How long a write to a client may make no progress before its connection is closed: a client
/// whose receive window stays shut this long reads nothing, and would hold its connection, task
/// and answer for ever.
pub const WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Most connections held at once, over every listener, when descriptors allow.
pub const MAX_CONNECTIONS: usize = 1024;

/// Descriptors kept for everything but connections (the store's files and connections, the
/// listeners, the runtime, the log) when the cap is derived from the descriptor limit.
pub const DESCRIPTORS_KEPT: usize = 128;

/// How many connections the listeners hold at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Over every listener and client.
    pub total: usize,
    /// From one client address (an IPv4 address, an IPv6 `/64`).
    pub per_client: usize,
}

impl ConnectionLimits {
    /// [`MAX_CONNECTIONS`], or the descriptor limit less [`DESCRIPTORS_KEPT`] when that is lower
    /// (at least 16); an eighth of that per client address (at least 4).
    pub fn for_descriptor_limit(limit: Option<u64>) -> ConnectionLimits {
        let total = match limit {
            Some(limit) => usize::try_from(limit)
                .unwrap_or(usize::MAX)
                .saturating_sub(DESCRIPTORS_KEPT)
                .clamp(16, MAX_CONNECTIONS),
            None => MAX_CONNECTIONS,
        };
        ConnectionLimits {
            total,
            per_client: (total / 8).max(4),
        }
    }

    /// The limits for this process's soft limit of open descriptors.
    pub fn for_this_process() -> ConnectionLimits {
        ConnectionLimits::for_descriptor_limit(descriptor_limit())
    }
}

/// The soft limit of open descriptors (`None` where it is unlimited).
fn descriptor_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// Whose connections count together: an IPv4 address (an IPv4-mapped IPv6 address as its IPv4
/// address), an IPv6 address by its `/64`, which one host usually holds whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Client {
    V4(std::net::Ipv4Addr),
    V6(u64),
}

impl Client {
    fn of(address: IpAddr) -> Client {
        match address {
            IpAddr::V4(v4) => Client::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Client::V4(v4),
                None => Client::V6((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

/// A log line at most once a second, saying how many were left out since the last.
#[derive(Default)]
struct Throttled {
    state: Mutex<(Option<Instant>, u64)>,
}

impl Throttled {
    /// `Some(left out since the last line)` when a line may be written now.
    fn may_log(&self) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (last, left_out) = &mut *state;
        if last.is_some_and(|last| last.elapsed() < Duration::from_secs(1)) {
            *left_out += 1;
            return None;
        }
        *last = Some(Instant::now());
        Some(std::mem::take(left_out))
    }
}

/// Counts the connections held and admits new ones within [`ConnectionLimits`].
pub struct Gate {
    limits: ConnectionLimits,
    open: Mutex<(usize, HashMap<Client, usize>)>,
    over_total: Throttled,
    over_client: Throttled,
    stalled: Arc<Throttled>,
}

/// One admitted connection; dropping it gives its place back.
pub struct Admitted {
    gate: Arc<Gate>,
    client: Client,
}

impl Gate {
    pub fn new(limits: ConnectionLimits) -> Arc<Gate> {
        Arc::new(Gate {
            limits,
            open: Mutex::new((0, HashMap::new())),
            over_total: Throttled::default(),
            over_client: Throttled::default(),
            stalled: Arc::default(),
        })
    }

    /// A place for a connection from `peer`, or `None` (logged, at most once a second per cap)
    /// when the service or that client address already holds its cap.
    pub fn admit(self: &Arc<Gate>, peer: SocketAddr) -> Option<Admitted> {
        let client = Client::of(peer.ip());
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let (total, per_client) = &mut *open;
        let held = per_client.get(&client).copied().unwrap_or(0);
        let ConnectionLimits {
            total: total_cap,
            per_client: client_cap,
        } = self.limits;
        if *total >= total_cap {
            drop(open);
            if let Some(left_out) = self.over_total.may_log() {
                tracing::warn!(client = %peer.ip(), cap = total_cap, also_closed = left_out, "connection closed at accept: the service holds {total_cap} connections, its cap in total");
            }
            return None;
        }
        if held >= client_cap {
            drop(open);
            if let Some(left_out) = self.over_client.may_log() {
                tracing::warn!(client = %peer.ip(), cap = client_cap, also_closed = left_out, "connection closed at accept: this client holds {client_cap} connections, the cap per client address");
            }
            return None;
        }
        *total += 1;
        per_client.insert(client, held + 1);
        Some(Admitted {
            gate: self.clone(),
            client,
        })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.gate.open.lock().unwrap_or_else(|e| e.into_inner());
        let (total, per_client) = &mut *open;
        *total = total.saturating_sub(1);
        if let Some(held) = per_client.get_mut(&self.client) {
            *held -= 1;
            if *held == 0 {
                per_client.remove(&self.client);
            }
        }
    }
}

/// A connection's socket whose writes fail with `TimedOut` once one has made no progress for
/// `timeout`; so hyper ends the connection instead of waiting for a client that never reads.
pub struct WriteStall<T> {
    io: T,
    timeout: Duration,
    since: Option<Pin<Box<tokio::time::Sleep>>>,
    peer: SocketAddr,
    log: Arc<Throttled>,
}

impl<T> WriteStall<T> {
    fn watch<R>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        if result.is_ready() {
            self.since = None;
            return result;
        }
        let timeout = self.timeout;
        let since = self
            .since
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        if since.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.since = None;
        if let Some(left_out) = self.log.may_log() {
            tracing::info!(client = %self.peer.ip(), also_closed = left_out, "connection closed: a write made no progress for {} s (the client reads nothing)", timeout.as_secs());
        }
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "a write to the client made no progress",
        )))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteStall<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteStall<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write(cx, buf);
        this.watch(cx, result)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.watch(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_flush(cx);
        this.watch(cx, result)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_shutdown(cx);
        this.watch(cx, result)
    }
}

/// The most of a request's head (request line and headers) hyper buffers: a longer head is
/// answered 431. Room for the longest request line the `http` crate takes (64 KiB, 414 beyond)
/// with headers; hyper's own default is about 400 KiB, which a connection could hold for the
/// whole header deadline without a credential.
pub const MAX_HEAD_BYTES: usize = 128 * 1024;

/// How long shutdown waits for open connections to finish before closing them.
const DRAIN_DEADLINE: Duration = Duration::from_secs(10);

/// Accepts connections on `listener` until `stop` turns true, then drains them. A connection
/// beyond `gate`'s caps is closed as soon as it is accepted, before a byte is read. `timeouts`
/// are how long a client may take to send a request's head, and how long a write to it may
/// make no progress.
pub async fn serve_listener(
    listener: tokio::net::TcpListener,
    router: Router,
    (header_read_timeout, write_stall_timeout): (Duration, Duration),
    tls: Option<tokio_rustls::TlsAcceptor>,
    gate: Arc<Gate>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    // HTTP/1.1 only: the auto (HTTP/1 + h2c) builder first waits, untimed, for bytes to sniff
    // the protocol, which a silent client never sends.
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .max_buf_size(MAX_HEAD_BYTES);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|stop| *stop) => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: back off instead of spinning or dying.
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(admitted) = gate.admit(peer) else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let stream = WriteStall {
            io: stream,
            timeout: write_stall_timeout,
            since: None,
            peer,
            log: gate.stalled.clone(),
        };
        // The peer's address, for the sign-in guard's tally per client.
        let service =
            hyper_util::service::TowerToHyperService::new(tower::ServiceExt::map_request(
                router.clone(),
                move |mut request: axum::http::Request<hyper::body::Incoming>| {
                    request
                        .extensions_mut()
                        .insert(axum::extract::ConnectInfo(peer));
                    request
                },
            ));
        let watcher = graceful.watcher();
        let builder = builder.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let _admitted = admitted;
            // Errors here are a client's broken connection or timeout: nothing to report upward.
            let result = match tls {
                None => {
                    let connection = builder.serve_connection(TokioIo::new(stream), service);
                    watcher.watch(connection).await
                }
                Some(acceptor) => {
                    // The handshake runs in the connection's task, bounded like the headers,
                    // so a silent client neither blocks accepting nor holds the task forever.
                    let handshake =
                        tokio::time::timeout(header_read_timeout, acceptor.accept(stream)).await;
                    let stream = match handshake {
                        Ok(Ok(stream)) => stream,
                        Ok(Err(error)) => {
                            tracing::debug!(%error, "TLS handshake failed");
                            return;
                        }
                        Err(_) => {
                            tracing::debug!("TLS handshake timed out");
                            return;
                        }
                    };
                    let connection = builder.serve_connection(TokioIo::new(stream), service);
                    watcher.watch(connection).await
                }
            };
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_DEADLINE) => tracing::warn!("connections still open after the drain deadline; closing them"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_descriptor_limit_is_the_one_the_kernel_reports() {
        let limits = std::fs::read_to_string("/proc/self/limits").expect("read /proc/self/limits");
        let soft = limits
            .lines()
            .find(|line| line.starts_with("Max open files"))
            .and_then(|line| line.split_whitespace().nth(3))
            .expect("a line for open files");
        // "unlimited" parses to nothing, as an unlimited descriptor_limit is.
        assert_eq!(descriptor_limit(), soft.parse().ok());
    }

    #[test]
    fn the_caps_follow_the_descriptor_limit() {
        let limits = ConnectionLimits::for_descriptor_limit;
        assert_eq!(
            limits(None),
            ConnectionLimits {
                total: 1024,
                per_client: 128
            }
        );
        assert_eq!(
            limits(Some(1 << 20)),
            ConnectionLimits {
                total: 1024,
                per_client: 128
            }
        );
        assert_eq!(
            limits(Some(1024)),
            ConnectionLimits {
                total: 896,
                per_client: 112
            }
        );
        assert_eq!(
            limits(Some(256)),
            ConnectionLimits {
                total: 128,
                per_client: 16
            }
        );
        assert_eq!(
            limits(Some(64)),
            ConnectionLimits {
                total: 16,
                per_client: 4
            }
        );
    }

    #[test]
    fn each_client_address_has_its_own_cap_within_the_total() {
        let gate = Gate::new(ConnectionLimits {
            total: 5,
            per_client: 2,
        });
        let from = |address: &str| gate.admit(SocketAddr::new(address.parse().expect("ip"), 1));
        let first = from("10.0.0.1").expect("first");
        let _second = from("::ffff:10.0.0.1").expect("the same client, IPv4-mapped");
        assert!(from("10.0.0.1").is_none(), "a third from one address");
        let _v6 = from("2001:db8::1").expect("an IPv6 client");
        let _v6_again = from("2001:db8::2").expect("its /64, second");
        assert!(from("2001:db8::3").is_none(), "a third from one /64");
        let _other = from("10.0.0.2").expect("another address");
        assert!(from("10.0.0.3").is_none(), "over the total");
        drop(first);
        assert!(from("10.0.0.1").is_some(), "a place given back");
    }
}
