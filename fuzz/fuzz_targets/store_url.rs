//! Fuzz target: the PostgreSQL connection string of `courier serve --store`, which an operator
//! pastes from anywhere. Parsed by `PostgresUrl::from_str`, which everything courier prints about
//! the store goes through. Panics on a crash, and when what it shows (`Display`, `Debug`) depends
//! on the password: the same string with only its password changed (a later `password=` wins in
//! both forms) must show exactly the same. (A containment test would flag passwords that happen
//! to spell a piece of the host, which the fuzzer finds at once.)
#![no_main]

use courier_service::store::PostgresUrl;
use libfuzzer_sys::fuzz_target;

const OTHER: &str = "courier-fuzz-other-password";

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        // The command line and the environment only hand courier UTF-8 here (clap refuses the rest).
        return;
    };
    let Ok(url) = text.parse::<PostgresUrl>() else {
        return;
    };
    let shown = (url.to_string(), format!("{url:?}"));
    // The same string with another password: a query parameter of a URL, a pair of the
    // key=value form.
    let is_url = text.starts_with("postgres://") || text.starts_with("postgresql://");
    let other = match (is_url, text.contains('?')) {
        (true, true) => format!("{text}&password={OTHER}"),
        (true, false) => format!("{text}?password={OTHER}"),
        (false, _) => format!("{text} password={OTHER}"),
    };
    let (Ok(first), Ok(second)) = (
        text.parse::<postgres::Config>(),
        other.parse::<postgres::Config>(),
    ) else {
        return;
    };
    let same_but_password = second.get_password() == Some(OTHER.as_bytes())
        && first.get_user() == second.get_user()
        && first.get_dbname() == second.get_dbname()
        && first.get_hosts() == second.get_hosts()
        && first.get_ports() == second.get_ports();
    if !same_but_password {
        return;
    }
    let other_url: PostgresUrl = other.parse().expect("parses as the driver's parser did");
    assert_eq!(
        shown,
        (other_url.to_string(), format!("{other_url:?}")),
        "what courier shows of the store depends on its password"
    );
});
