//! The credential cases of each interface: wrong schemes, wrong and swapped secrets, the token
//! from before a rotation, and the valid credentials, each with the answer it must get.

use super::operations::Interface;

#[derive(Clone, Debug)]
pub(crate) enum Auth {
    None,
    Bearer(String),
    Basic(String, String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// 401, the error body, a challenge for the interface's scheme.
    Unauthorized,
    /// 400 naming this query parameter (`docs/decisions.md#d4-query-parameter-token` and
    /// `docs/decisions.md#d15-unknown-query-parameters`).
    UnknownParameter(&'static str),
    /// The operation's documented 2xx.
    Success,
}

#[derive(Clone, Debug)]
pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) auth: Auth,
    pub(crate) query_token: Option<String>,
    pub(crate) expect: Expect,
}

/// The credentials in play at one point of the test.
pub(crate) struct Credentials {
    pub(crate) token: String,
    /// The token from before the rotation, once there was one.
    pub(crate) old_token: Option<String>,
    pub(crate) customer_id: String,
    pub(crate) management_key: String,
}

/// A token of the right shape and length that differs from the real one in its last character.
pub(crate) fn wrong_token(token: &str) -> String {
    let mut wrong = token.to_owned();
    let last = wrong.pop().unwrap_or('x');
    wrong.push(if last == 'A' { 'B' } else { 'A' });
    wrong
}

pub(crate) fn cases(interface: Interface, c: &Credentials) -> Vec<Case> {
    let case = |name, auth, query_token: Option<&str>, expect| Case {
        name,
        auth,
        query_token: query_token.map(str::to_owned),
        expect,
    };
    let bearer = |token: &str| Auth::Bearer(token.to_owned());
    let basic = |user: &str, password: &str| Auth::Basic(user.to_owned(), password.to_owned());
    let wrong = wrong_token(&c.token);
    let unauthorized = Expect::Unauthorized;
    let mut cases = match interface {
        Interface::Messaging => vec![
            case("no credentials", Auth::None, None, unauthorized),
            case(
                "wrong scheme: Basic with the management credentials",
                basic(&c.customer_id, &c.management_key),
                None,
                unauthorized,
            ),
            case(
                "wrong scheme: Basic with the service token as password",
                basic(&c.customer_id, &c.token),
                None,
                unauthorized,
            ),
            case("wrong token as Bearer", bearer(&wrong), None, unauthorized),
            case(
                "wrong token as service_token query",
                Auth::None,
                Some(&wrong),
                unauthorized,
            ),
            case(
                "management key as Bearer",
                bearer(&c.management_key),
                None,
                unauthorized,
            ),
            case(
                "wrong Bearer wins over a valid service_token query",
                bearer(&wrong),
                Some(&c.token),
                unauthorized,
            ),
            case("valid Bearer", bearer(&c.token), None, Expect::Success),
            case(
                "valid service_token query",
                Auth::None,
                Some(&c.token),
                Expect::Success,
            ),
            case(
                "valid Bearer wins over a wrong service_token query",
                bearer(&c.token),
                Some(&wrong),
                Expect::Success,
            ),
        ],
        Interface::Management => vec![
            case("no credentials", Auth::None, None, unauthorized),
            case(
                "wrong scheme: Bearer with the management key",
                bearer(&c.management_key),
                None,
                unauthorized,
            ),
            case(
                "wrong management key",
                basic(&c.customer_id, &wrong_token(&c.management_key)),
                None,
                unauthorized,
            ),
            case(
                "wrong customer id",
                basic("someone-else@example.com", &c.management_key),
                None,
                unauthorized,
            ),
            case(
                "messaging token as Bearer",
                bearer(&c.token),
                None,
                unauthorized,
            ),
            case(
                "messaging token as service_token query",
                Auth::None,
                Some(&c.token),
                unauthorized,
            ),
            case(
                "messaging token as Basic password",
                basic(&c.customer_id, &c.token),
                None,
                unauthorized,
            ),
            case(
                "service_token query with valid Basic",
                basic(&c.customer_id, &c.management_key),
                Some(&c.token),
                Expect::UnknownParameter("service_token"),
            ),
            case(
                "valid Basic",
                basic(&c.customer_id, &c.management_key),
                None,
                Expect::Success,
            ),
        ],
    };
    if let Some(old) = &c.old_token {
        cases.push(case(
            "token from before rotation as Bearer",
            bearer(old),
            None,
            unauthorized,
        ));
        cases.push(case(
            "token from before rotation as service_token query",
            Auth::None,
            Some(old),
            unauthorized,
        ));
    }
    cases
}
