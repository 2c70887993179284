//! The operations of the spec as the matrix needs them, read from the generated table of
//! operations, and the filling of their paths and required queries with fixtures.

use reqwest::Method;
use std::collections::{BTreeMap, BTreeSet};

/// The operation whose valid call is the rotation step rather than a matrix cell.
pub(crate) const ROTATE: &str = "rotateToken";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Interface {
    Messaging,
    Management,
}

impl Interface {
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Interface::Messaging => "messaging",
            Interface::Management => "management",
        }
    }

    /// The scheme a 401 of this interface must challenge with.
    pub(crate) fn challenge(self) -> &'static str {
        match self {
            Interface::Messaging => "bearer",
            Interface::Management => "basic",
        }
    }
}

/// One operation of the spec, as the matrix needs it.
#[derive(Debug)]
pub(crate) struct Operation {
    pub(crate) id: String,
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) interface: Interface,
    /// The one 2xx status the spec documents.
    pub(crate) success: u16,
    /// Every status the spec documents.
    pub(crate) documented: BTreeSet<u16>,
    /// Its query keys, for the ones a valid call must give.
    pub(crate) query: &'static [courier_models::QueryKey],
}

/// Every operation of the spec, from the generated table of operations (by `operationId`): its
/// interface is its tag, its success the one 2xx status it documents.
pub(crate) fn operations() -> Vec<Operation> {
    courier_models::OPERATIONS
        .iter()
        .map(|operation| {
            let interface = match operation.tag {
                "messaging" => Interface::Messaging,
                "management" => Interface::Management,
                other => panic!("{}: tag `{other}` names no interface", operation.id),
            };
            let documented: BTreeSet<u16> = operation.statuses.iter().copied().collect();
            let successes: Vec<u16> = documented
                .iter()
                .copied()
                .filter(|s| (200..300).contains(s))
                .collect();
            let [success] = successes[..] else {
                panic!(
                    "{}: expected exactly one 2xx response, found {successes:?}",
                    operation.id
                );
            };
            Operation {
                id: operation.id.to_owned(),
                method: Method::from_bytes(operation.method.as_bytes()).expect("an HTTP method"),
                path: operation.path.to_owned(),
                interface,
                success,
                documented,
                query: operation.query,
            }
        })
        .collect()
}

/// The path with its parameters filled, and the query a valid call needs: every required key
/// (an enum's first value) and, for a bulk cancel, the fixture's run as `workflowRunIds` (with
/// neither ids nor a filter, a bulk cancel is refused).
pub(crate) fn target(
    operation: &Operation,
    values: &BTreeMap<&str, String>,
) -> Result<String, String> {
    let mut target = fill(&operation.path, values)?;
    let mut pairs = Vec::new();
    for key in operation.query {
        if key.required {
            let value = key
                .values
                .first()
                .ok_or_else(|| format!("no fixture for required query parameter `{}`", key.name))?;
            pairs.push(format!("{}={value}", key.name));
        } else if key.name == "workflowRunIds" {
            pairs.push(format!("workflowRunIds={}", values["workflowRunId"]));
        }
    }
    if !pairs.is_empty() {
        target.push('?');
        target.push_str(&pairs.join("&"));
    }
    Ok(target)
}

/// Substitutes every `{name}` of a path template; an unknown name means the matrix cannot
/// exercise the operation, which is an error.
fn fill(template: &str, values: &BTreeMap<&str, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| format!("unbalanced braces in {template}"))?;
        let name = &rest[open + 1..close];
        let value = values.get(name).ok_or_else(|| {
            format!("no fixture for path parameter `{name}` of {template}: teach the auth matrix how to create one")
        })?;
        out.push_str(&rest[..open]);
        out.push_str(value);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
