//! JSON numbers as the `jsonschema` crate compares them: integers exactly, an integer against
//! a float without rounding the integer.

use serde_json::Number;
use std::cmp::Ordering;

/// `type: integer` as the `jsonschema` crate reads it: an integer, or a float with no fraction.
pub(crate) fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Two JSON numbers compared by value, exactly when both are integers.
pub(crate) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
    match (int(a), int(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        (Some(a), None) => compare_int_float(a, b.as_f64()?),
        (None, Some(b)) => compare_int_float(b, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// An integer against a float, without rounding the integer to a float.
fn compare_int_float(int: i128, float: f64) -> Option<Ordering> {
    if float.is_nan() {
        return None;
    }
    // serde_json's integers are 64-bit: past 1e30 either way, the float decides the order.
    let floor = float.floor();
    if floor >= 1e30 {
        return Some(Ordering::Less);
    }
    if floor <= -1e30 {
        return Some(Ordering::Greater);
    }
    match int.cmp(&(floor as i128)) {
        Ordering::Equal if float > floor => Some(Ordering::Less),
        ordering => Some(ordering),
    }
}
