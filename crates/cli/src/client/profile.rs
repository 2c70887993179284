//! Named profiles: several services in one file (`[staging]`, `[local]`, …), chosen with
//! `--profile NAME` or `COURIER_PROFILE`, as users of gh and aws expect. A profile fills in only
//! what neither a flag nor a variable gave.
//!
//! A refusal is its message alone (the caller makes it a usage failure), so this module needs
//! nothing of the command line: the fuzz target `profiles` compiles it by itself.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The profile used when none is named, if the file has it.
pub const DEFAULT_PROFILE: &str = "default";

/// One service's settings; every key optional, an unknown key refused (a typo must not
/// silently leave a setting out).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub base_url: Option<String>,
    pub management_url: Option<String>,
    pub service_token: Option<String>,
    pub customer_id: Option<String>,
    pub management_key: Option<String>,
    pub ca_cert: Option<PathBuf>,
}

/// Where the profiles live: `COURIER_CONFIG`, else `$XDG_CONFIG_HOME/courier/profiles.toml`,
/// else `~/.config/courier/profiles.toml`.
pub fn profiles_path() -> Option<PathBuf> {
    let set = |name| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(path) = set("COURIER_CONFIG") {
        return Some(PathBuf::from(path));
    }
    let config = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("courier").join("profiles.toml"))
}

impl Profile {
    /// The profile `name` (else `default`) of the profiles file. A named profile that is not
    /// there is an error; no file and no name is no profile.
    pub fn load(name: Option<&str>) -> Result<Option<Profile>, String> {
        let path = profiles_path();
        let text = match path.as_ref().map(std::fs::read_to_string) {
            Some(Ok(text)) => text,
            Some(Err(error)) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "cannot read the profiles file {}: {error}",
                    path.as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ));
            }
            _ => {
                return match name {
                    None => Ok(None),
                    Some(name) => Err(format!(
                        "no profile `{name}`: there is no profiles file (looked for {})",
                        path.map(|p| p.display().to_string()).unwrap_or_else(|| {
                            "COURIER_CONFIG or ~/.config/courier/profiles.toml".into()
                        })
                    )),
                };
            }
        };
        let path = path.unwrap_or_default();
        warn_if_others_can_read(&path);
        Profile::parse(&text, name, &path)
    }

    /// The profile `name` (else `default`) of a profiles file's `text` read from `path` (named
    /// in errors): `None` when no name was asked and the file has no `default`.
    pub fn parse(
        text: &str,
        name: Option<&str>,
        path: &std::path::Path,
    ) -> Result<Option<Profile>, String> {
        let mut profiles: BTreeMap<String, Profile> = toml::from_str(text).map_err(|error| {
            format!("the profiles file {} is not valid: {error}", path.display())
        })?;
        match name {
            None => Ok(profiles.remove(DEFAULT_PROFILE)),
            Some(name) => profiles.remove(name).map(Some).ok_or_else(|| {
                let known: Vec<&String> = profiles.keys().collect();
                format!(
                    "no profile `{name}` in {} (it has: {})",
                    path.display(),
                    known
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
        }
    }
}

/// The file holds secrets: say so when other users can read it (as ssh does for its keys).
fn warn_if_others_can_read(path: &std::path::Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(metadata) = std::fs::metadata(path)
            && metadata.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "warning: the profiles file {} can be read by other users; it holds secrets: chmod 600 it",
                path.display()
            );
        }
    }
}
