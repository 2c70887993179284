//! Where `courier serve`'s secrets come from (each from its flag, its variable or its file),
//! the warnings for those given on the command line, and the `--store` connection string.

use super::{ServeArgs, demo};
use std::path::PathBuf;

/// `--store`, parsed; its errors never repeat the password. Only PostgreSQL is named this way (SQLite is the default, in `--data-dir`).
pub(crate) fn parse_store(value: &str) -> Result<courier_service::store::PostgresUrl, String> {
    let is_url = ["postgres://", "postgresql://"]
        .iter()
        .any(|scheme| value.starts_with(scheme));
    if !is_url && !value.contains('=') {
        return Err(
            "expected a PostgreSQL connection string (postgres://user:password@host/db); \
             SQLite, the default, is chosen with --data-dir"
                .into(),
        );
    }
    value.parse()
}

/// The secrets of `courier serve`, each from its flag, its variable or its file.
pub(crate) struct Secrets {
    pub(crate) service_token: Option<String>,
    pub(crate) management_key: Option<String>,
    pub(crate) admin_token: Option<String>,
    /// The PostgreSQL connection string (it may hold a password), and the option it came from.
    pub(crate) store: Option<(String, &'static str)>,
}

/// Reads the secret files, applies the demo's defaults and refuses short secrets.
pub(crate) fn secrets(args: &ServeArgs) -> Result<Secrets, String> {
    use courier_service::secrets::{check_length, read_file};
    let resolve = |given: &Option<String>, file: &Option<PathBuf>, flag: &str, env: &str| {
        let from_file = match file {
            Some(file) => Some(read_file(&format!("{flag}-file"), file)?),
            None => None,
        };
        let secret = given.clone().or(from_file);
        if let Some(secret) = &secret {
            check_length(&format!("{flag} (or {env}, or {flag}-file)"), secret)?;
        }
        Ok::<_, String>(secret)
    };
    // `--demo` without credentials uses the documented demo ones, so the README works verbatim.
    let demo_default =
        |given: Option<String>, demo: &str| given.or_else(|| args.demo.then(|| demo.to_owned()));
    Ok(Secrets {
        service_token: demo_default(
            resolve(
                &args.service_token,
                &args.service_token_file,
                "--service-token",
                "COURIER_SERVICE_TOKEN",
            )?,
            demo::DEMO_SERVICE_TOKEN,
        ),
        management_key: demo_default(
            resolve(
                &args.management_key,
                &args.management_key_file,
                "--management-key",
                "COURIER_MANAGEMENT_KEY",
            )?,
            demo::DEMO_MANAGEMENT_KEY,
        ),
        admin_token: resolve(
            &args.admin_token,
            &args.admin_token_file,
            "--admin-token",
            "COURIER_ADMIN_TOKEN",
        )?,
        store: match (&args.store, &args.store_file) {
            (Some(store), _) => Some((store.clone(), "--store")),
            (None, Some(file)) => Some((read_file("--store-file", file)?, "--store-file")),
            (None, None) => None,
        },
    })
}

/// A warning for each secret given as a command-line flag rather than a file or the environment.
pub(crate) fn flag_warnings(matches: Option<&clap::ArgMatches>) -> Vec<String> {
    let Some(matches) = matches else {
        return Vec::new();
    };
    [
        ("service_token", "--service-token", "COURIER_SERVICE_TOKEN"),
        (
            "management_key",
            "--management-key",
            "COURIER_MANAGEMENT_KEY",
        ),
        ("admin_token", "--admin-token", "COURIER_ADMIN_TOKEN"),
    ]
    .into_iter()
    .filter(|(id, _, _)| on_command_line(matches, id))
    .map(|(_, flag, env)| courier_service::secrets::flag_warning(flag, env))
    .chain(
        store_with_password(matches)
            .then(|| courier_service::secrets::flag_warning("--store", "COURIER_STORE")),
    )
    .collect()
}

/// Whether the argument `id` was given on the command line (not by a variable or a default).
fn on_command_line(matches: &clap::ArgMatches, id: &str) -> bool {
    matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
}

/// Whether `--store` is on the command line with a password in it.
fn store_with_password(matches: &clap::ArgMatches) -> bool {
    on_command_line(matches, "store")
        && matches
            .get_one::<String>("store")
            .and_then(|store| parse_store(store).ok())
            .is_some_and(|url| url.has_password())
}
