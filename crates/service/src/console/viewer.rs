//! Who is looking at a page, and the names the pages, forms and routes share: the CSRF form
//! field and the assets' paths. Kept below the pages and the guard, which both use them.

/// The form field that carries a session's CSRF token.
pub const CSRF_FIELD: &str = "csrf";
/// Where the console's stylesheet is served.
pub(super) const STYLESHEET_PATH: &str = "/console/assets/console.css";
/// Where the console's script is served.
pub(super) const SCRIPT_PATH: &str = "/console/assets/console.js";

/// Who is looking at a page.
#[derive(Clone, Debug)]
pub(super) enum Viewer {
    /// Signed in with the login form.
    Session { id: String, csrf: String },
    /// Sent HTTP Basic management credentials with the request.
    Basic,
}

impl Viewer {
    /// The token forms must send back; Basic requests need none (a browser does not attach
    /// Basic credentials to a cross-site POST that passes the origin check).
    pub(super) fn csrf(&self) -> Option<&str> {
        match self {
            Viewer::Session { csrf, .. } => Some(csrf),
            Viewer::Basic => None,
        }
    }
}
