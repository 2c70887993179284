//! Fuzz target: the PostgreSQL connection string of `courier serve --store`, which an operator
//! pastes from anywhere. Parsed by `PostgresUrl::from_str`, which everything courier prints about
//! the store goes through. Panics on a crash, and when what it shows (`Display`, `Debug`) of a
//! string with a password contains that password, unless the password is also part of what may be
//! shown (user, host, port, database name).
#![no_main]

use courier_service::store::PostgresUrl;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        // The command line and the environment only hand courier UTF-8 here (clap refuses the rest).
        return;
    };
    let Ok(url) = text.parse::<PostgresUrl>() else {
        return;
    };
    let shown = [url.to_string(), format!("{url:?}")];
    let config: postgres::Config = text.parse().expect("courier parsed it with the same parser");
    let Some(password) = config.get_password().map(String::from_utf8_lossy) else {
        return;
    };
    let mut showable = String::new();
    showable.push_str(config.get_user().unwrap_or(""));
    showable.push_str(config.get_dbname().unwrap_or(""));
    for host in config.get_hosts() {
        showable.push_str(&format!("{host:?}"));
    }
    for port in config.get_ports() {
        showable.push_str(&port.to_string());
    }
    if password.is_empty() || showable.contains(password.as_ref()) || "PostgresUrl(postgres://@:/,)".contains(password.as_ref()) {
        return;
    }
    for text in shown {
        assert!(!text.contains(password.as_ref()), "the password is shown: {text}");
    }
});
