//! Shared by the tests that run the real `courier` binary: a command with no `COURIER_*`
//! variables of the test runner's environment leaking in, and the addresses its banner names.
// Every test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// `courier serve --listen 127.0.0.1:0 --data-dir DATA_DIR`, stdout piped for the banner.
pub fn courier_serve(data_dir: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .stdout(Stdio::piped());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    command
}

/// The base URLs the banner of a started `courier serve` names.
pub struct Banner {
    pub messaging: String,
    pub management: String,
}

/// Reads the banner from the child's stdout, then keeps draining it on a thread, as a
/// supervisor would, so the process never blocks on a full pipe.
pub fn read_banner(child: &mut Child) -> Banner {
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let (mut messaging, mut management) = (None, None);
    for line in lines.by_ref() {
        let line = line.expect("banner line");
        let address = |rest: &str| rest.split_whitespace().next().map(str::to_owned);
        if let Some(rest) = line.trim().strip_prefix("messaging:") {
            messaging = address(rest);
        } else if let Some(rest) = line.trim().strip_prefix("management:") {
            management = address(rest);
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    Banner {
        messaging: messaging.expect("the banner names the messaging address"),
        management: management.expect("the banner names the management address"),
    }
}
