//! One rule for every setter that takes the values of a multi-value parameter: one value, or any
//! collection of things that become values. The client's generated request builders and
//! [`DlqFilter`](crate::DlqFilter) both take `impl IntoValues<T>`, so the same call compiles in
//! both places.
//!
//! ```
//! use courier_models::{DlqFilter, FailureFunctionState, values::IntoValues};
//! let one = DlqFilter::new().label("billing");
//! let array = DlqFilter::new().label(["billing", "beta"]);
//! let vec = DlqFilter::new().label(vec!["billing", "beta"]);
//! let owned = DlqFilter::new().label(vec![String::from("billing"), String::from("beta")]);
//! let borrowed: &[&str] = &["billing", "beta"];
//! assert_eq!(one.label, ["billing"]);
//! assert_eq!(array, vec);
//! assert_eq!(array, owned);
//! assert_eq!(array, DlqFilter::new().label(borrowed));
//! assert_eq!(
//!     IntoValues::<FailureFunctionState>::into_values([FailureFunctionState::CallbackFail]),
//!     [FailureFunctionState::CallbackFail]
//! );
//! ```

use crate::FailureFunctionState;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet, VecDeque};

/// One value or several, as the values of one multi-value query parameter.
///
/// Single values: `&str`, `String`, `&String`, `Cow<str>`, and a [`FailureFunctionState`].
/// Collections: arrays, `Vec`s, slices, `VecDeque`s and sets of anything that converts into
/// the value type (`Vec<&str>`, `[String; 2]`, `&[FailureFunctionState]`, …).
pub trait IntoValues<T> {
    /// The values, in order.
    fn into_values(self) -> Vec<T>;
}

macro_rules! one_string {
    ($($single:ty),*) => {$(
        impl IntoValues<String> for $single {
            fn into_values(self) -> Vec<String> {
                vec![self.into()]
            }
        }
    )*};
}
one_string!(&str, String, &String, Cow<'_, str>, Box<str>);

impl IntoValues<FailureFunctionState> for FailureFunctionState {
    fn into_values(self) -> Vec<FailureFunctionState> {
        vec![self]
    }
}

impl IntoValues<FailureFunctionState> for &FailureFunctionState {
    fn into_values(self) -> Vec<FailureFunctionState> {
        vec![*self]
    }
}

impl<T, S: Into<T>> IntoValues<T> for Vec<S> {
    fn into_values(self) -> Vec<T> {
        self.into_iter().map(Into::into).collect()
    }
}

impl<T, S: Into<T>, const N: usize> IntoValues<T> for [S; N] {
    fn into_values(self) -> Vec<T> {
        self.into_iter().map(Into::into).collect()
    }
}

impl<T, S: Into<T> + Clone> IntoValues<T> for &[S] {
    fn into_values(self) -> Vec<T> {
        self.iter().cloned().map(Into::into).collect()
    }
}

impl<T, S: Into<T> + Clone> IntoValues<T> for &Vec<S> {
    fn into_values(self) -> Vec<T> {
        self.as_slice().into_values()
    }
}

impl<T, S: Into<T> + Clone, const N: usize> IntoValues<T> for &[S; N] {
    fn into_values(self) -> Vec<T> {
        self.as_slice().into_values()
    }
}

impl<T, S: Into<T>> IntoValues<T> for VecDeque<S> {
    fn into_values(self) -> Vec<T> {
        self.into_iter().map(Into::into).collect()
    }
}

impl<T, S: Into<T>> IntoValues<T> for BTreeSet<S> {
    fn into_values(self) -> Vec<T> {
        self.into_iter().map(Into::into).collect()
    }
}

impl<T, S: Into<T>, H> IntoValues<T> for HashSet<S, H> {
    fn into_values(self) -> Vec<T> {
        self.into_iter().map(Into::into).collect()
    }
}
