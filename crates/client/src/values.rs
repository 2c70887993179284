//! What a multi-value query setter of the generated request builders takes: one value, an
//! array, a `Vec` or a slice, so `.label("billing")`, `.label(["billing", "beta"])` and
//! `.failure_function_state(FailureFunctionState::CallbackFail)` all compile.
//!
//! ```
//! use courier_client::values::IntoValues;
//! use courier_client::models::FailureFunctionState;
//! assert_eq!(IntoValues::<String>::into_values("billing"), ["billing"]);
//! assert_eq!(IntoValues::<String>::into_values(["a", "b"]), ["a", "b"]);
//! let labels = vec![String::from("c")];
//! assert_eq!(IntoValues::<String>::into_values(&labels), ["c"]);
//! assert_eq!(
//!     IntoValues::into_values(FailureFunctionState::CallbackFail),
//!     [FailureFunctionState::CallbackFail]
//! );
//! ```

/// One value or several, as the values of one multi-value query parameter. (No impl for
/// `Vec<&str>`: it would make the common `vec!["a".into()]` ambiguous; arrays of `&str` work.)
pub trait IntoValues<T> {
    /// The values, in order.
    fn into_values(self) -> Vec<T>;
}

impl<T> IntoValues<T> for T {
    fn into_values(self) -> Vec<T> {
        vec![self]
    }
}

impl<T> IntoValues<T> for Vec<T> {
    fn into_values(self) -> Vec<T> {
        self
    }
}

impl<T: Clone> IntoValues<T> for &Vec<T> {
    fn into_values(self) -> Vec<T> {
        self.clone()
    }
}

impl<T, const N: usize> IntoValues<T> for [T; N] {
    fn into_values(self) -> Vec<T> {
        self.into()
    }
}

impl<T: Clone> IntoValues<T> for &[T] {
    fn into_values(self) -> Vec<T> {
        self.to_vec()
    }
}

impl IntoValues<String> for &str {
    fn into_values(self) -> Vec<String> {
        vec![self.to_owned()]
    }
}

impl<const N: usize> IntoValues<String> for [&str; N] {
    fn into_values(self) -> Vec<String> {
        self.into_iter().map(str::to_owned).collect()
    }
}

impl IntoValues<String> for &[&str] {
    fn into_values(self) -> Vec<String> {
        self.iter().map(|value| (*value).to_owned()).collect()
    }
}
