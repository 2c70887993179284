//! What a multi-value query setter of the generated request builders takes: one value, or any
//! collection of things that become values (arrays, `Vec`s, slices, sets), by the same rule as
//! [`DlqFilter`](courier_models::DlqFilter)'s setters, so `.label("billing")`,
//! `.label(["billing", "beta"])`, `.label(vec!["billing", "beta"])` and
//! `.failure_function_state(FailureFunctionState::CallbackFail)` all compile.
//!
//! ```
//! use courier_client::values::IntoValues;
//! use courier_client::models::FailureFunctionState;
//! assert_eq!(IntoValues::<String>::into_values("billing"), ["billing"]);
//! assert_eq!(IntoValues::<String>::into_values(["a", "b"]), ["a", "b"]);
//! assert_eq!(IntoValues::<String>::into_values(vec!["a", "b"]), ["a", "b"]);
//! let labels = vec![String::from("c")];
//! assert_eq!(IntoValues::<String>::into_values(&labels), ["c"]);
//! assert_eq!(
//!     IntoValues::into_values(FailureFunctionState::CallbackFail),
//!     [FailureFunctionState::CallbackFail]
//! );
//! ```

pub use courier_models::values::IntoValues;
