//! `cargo xtask spec-diff`: what a change of the spec does to the users of each generated crate.
//!
//! Each change between two versions of the spec gets one class per crate, for that crate's users:
//!
//! - `courier-models` users hold the types: they build them with struct literals, read their
//!   fields and `match` their enums exhaustively;
//! - `courier-client` users make calls: they set parameters on the builders, build request
//!   bodies, read response types;
//! - `courier-server` users implement the traits: they read the request types and build the
//!   response enums and the types inside them.
//!
//! A change is `breaking` for a crate when a program of its users that compiled against the old
//! crate no longer compiles against the new one (Rust semver, RFC 1105), **or** compiles but does
//! something that worked and no longer works on the wire (HTTP compatibility: a call refused, a
//! response it cannot read). Where the two disagree the class takes the worse, because the
//! version number is the only warning a user gets and cargo adopts a compatible release on
//! `cargo update` without asking. So a new enum value is `breaking` (an exhaustive `match` stops
//! compiling, although no request changes on the wire), and a tightened `maximum` on a
//! parameter is `breaking` for the client (it compiles, but a call that was accepted is refused).
//! `additive` means everything that compiled still compiles and works, and there is something
//! new; `none` means the crate's users see nothing (documentation only, or the change does not
//! reach the crate). The rules, one per kind of change, are in [`compare`]; the corpus in
//! `xtask/tests/spec-diff/` holds each to an expected class and `xtask/tests/it/spec_diff_compile.rs`
//! proves one edit of each class with a user program compiled against old and new crates.

pub mod cli;
pub mod compare;
pub mod report;
pub mod versions;

use courier_spec::Spec;
use courier_spec::openapiv3::OpenAPI;

/// How a change affects one crate's users; ordered from harmless to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    None,
    Additive,
    Breaking,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::None => "none",
            Class::Additive => "additive",
            Class::Breaking => "breaking",
        }
    }

    pub fn parse(text: &str) -> Option<Class> {
        match text {
            "none" => Some(Class::None),
            "additive" => Some(Class::Additive),
            "breaking" => Some(Class::Breaking),
            _ => None,
        }
    }
}

/// The published crates built from the spec, in the order every output lists them: the three
/// generated ones, then courier-verify, whose contract holds every schema and response of the
/// spec, so a change reaches it as hard as it reaches the crate it reaches hardest.
pub const CRATES: [&str; 4] = [
    "courier-models",
    "courier-client",
    "courier-server",
    "courier-verify",
];

/// One class per crate, in the order of [`CRATES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Impact {
    pub models: Class,
    pub client: Class,
    pub server: Class,
}

impl Impact {
    pub const NONE: Impact = Impact {
        models: Class::None,
        client: Class::None,
        server: Class::None,
    };

    pub fn new(models: Class, client: Class, server: Class) -> Impact {
        Impact {
            models,
            client,
            server,
        }
    }

    pub fn by_crate(self) -> [(&'static str, Class); 4] {
        [
            (CRATES[0], self.models),
            (CRATES[1], self.client),
            (CRATES[2], self.server),
            (CRATES[3], self.worst()),
        ]
    }

    pub fn worst(self) -> Class {
        self.models.max(self.client).max(self.server)
    }

    /// The worse class of each crate.
    pub fn merge(self, other: Impact) -> Impact {
        Impact::new(
            self.models.max(other.models),
            self.client.max(other.client),
            self.server.max(other.server),
        )
    }
}

/// One change of the spec: where it is, what it is in words, and its class per crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// JSON pointer (RFC 6901) into the spec where the change is: the new spec's, or the old
    /// one's for something removed.
    pub pointer: String,
    pub what: String,
    pub impact: Impact,
}

/// Every change between two specs, worst first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub changes: Vec<Change>,
}

impl Report {
    /// The class of each crate: the worst of its changes, `none` without any.
    pub fn crates(&self) -> Impact {
        self.changes
            .iter()
            .fold(Impact::NONE, |acc, change| acc.merge(change.impact))
    }
}

/// Why two specs could not be compared.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DiffError(pub String);

impl From<courier_spec::SpecError> for DiffError {
    fn from(error: courier_spec::SpecError) -> DiffError {
        DiffError(error.to_string())
    }
}

/// Reads a spec's YAML (or JSON) text through `courier-spec`, the one reader: a text that is
/// not an OpenAPI 3.0 document is refused here.
pub fn parse_spec(text: &str) -> Result<Spec, DiffError> {
    Ok(Spec::parse(text)?)
}

/// The spec before there was one: no operations and no types, so everything is new.
pub fn empty_spec() -> Spec {
    Spec::from(OpenAPI::default())
}

/// Compares two specs.
pub fn diff(old: &Spec, new: &Spec) -> Result<Report, DiffError> {
    compare::diff(old, new)
}

/// Compares two spec texts.
pub fn diff_texts(old: &str, new: &str) -> Result<Report, DiffError> {
    diff(&parse_spec(old)?, &parse_spec(new)?)
}
