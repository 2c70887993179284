//! The proxies of a place whose rules are looked up: its deserializer ([`Place`], what serde_json
//! passes through `visit_some` or `visit_newtype_struct`, and what `ctx::Checked` hands each
//! method on to), the visitor that checks every value there against them ([`Check`]), and the
//! visitor of an enum read as any value. Deserializer and visitor hand each other on, so they
//! live together.

use super::ANY;
use super::Rules;
use super::access::{CheckedMap, CheckedSeq};
use super::ctx::Ctx;
use super::numbers::{compare, is_integer};
use super::parsed::{ParsedMap, ParsedSeq};
use super::types;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StrDeserializer};
use serde::de::{self, Deserializer, IntoDeserializer as _, Visitor};
use serde_json::{Number, Value};
use std::cmp::Ordering;
use std::fmt;

/// A deserializer at a place whose rules are already looked up: `Check` seen through
/// `visit_some` / `visit_newtype_struct`, or `walk::Checked` once its node is resolved.
pub(crate) struct Place<'p, D> {
    pub de: D,
    pub null_ok: bool,
    pub rules: &'p Rules,
    pub cx: Ctx<'p>,
}

/// Every method of a proxy `Deserializer` that hands the typed visitor a value of its own
/// reading, each with the JSON types serde_json guarantees of a value that method reads
/// successfully (0: no type in particular; its readers of numbers accept any JSON number,
/// whatever the visitor then makes of it). `deserialize_ignored_any` and `deserialize_enum`,
/// which the proxies read as any value, are written by hand. One list for the two proxies of a
/// place ([`Place`] and `walk::Checked`): `$write` is the macro that writes each method.
macro_rules! deserialize_methods {
    ($write:ident) => {
        $write! {
            deserialize_any() => 0;
            deserialize_bool() => types::BOOLEAN;
            deserialize_i8() => types::NUMBER;
            deserialize_i16() => types::NUMBER;
            deserialize_i32() => types::NUMBER;
            deserialize_i64() => types::NUMBER;
            deserialize_i128() => types::NUMBER;
            deserialize_u8() => types::NUMBER;
            deserialize_u16() => types::NUMBER;
            deserialize_u32() => types::NUMBER;
            deserialize_u64() => types::NUMBER;
            deserialize_u128() => types::NUMBER;
            deserialize_f32() => types::NUMBER;
            deserialize_f64() => types::NUMBER;
            deserialize_char() => types::STRING;
            deserialize_str() => types::STRING;
            deserialize_string() => types::STRING;
            deserialize_bytes() => 0;
            deserialize_byte_buf() => 0;
            deserialize_option() => 0;
            deserialize_unit() => types::NULL;
            deserialize_seq() => 0;
            deserialize_map() => 0;
            deserialize_identifier() => types::STRING;
            deserialize_unit_struct(name: &'static str) => types::NULL;
            deserialize_newtype_struct(name: &'static str) => 0;
            deserialize_tuple(len: usize) => 0;
            deserialize_tuple_struct(name: &'static str, len: usize) => 0;
            deserialize_struct(name: &'static str, fields: &'static [&'static str]) => 0;
        }
    };
}
pub(crate) use deserialize_methods;

macro_rules! place_method {
    ($($method:ident($($arg:ident: $ty:ty),*) => $sure:expr;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            // Nothing to check when a finding was made, or when serde_json's guarantee is all
            // the schema asks.
            if self.cx.found() || ($sure != 0 && self.rules.passes_any($sure, self.null_ok)) {
                return self.de.$method($($arg,)* visitor);
            }
            let check = Check { visitor, null_ok: self.null_ok, rules: self.rules, cx: self.cx };
            self.de.$method($($arg,)* check)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Place<'_, D> {
    type Error = D::Error;

    deserialize_methods!(place_method);

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if self.cx.found() {
            return self.de.deserialize_ignored_any(visitor);
        }
        let check = Check {
            visitor,
            null_ok: self.null_ok,
            rules: self.rules,
            cx: self.cx,
        };
        self.de.deserialize_any(check)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        if self.cx.found() {
            return self.de.deserialize_enum(name, variants, visitor);
        }
        let check = Check {
            visitor,
            null_ok: self.null_ok,
            rules: self.rules,
            cx: self.cx,
        };
        self.de.deserialize_any(EnumCheck(check))
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// The visitor of an enum read as any value: a string is checked and handed over as the
/// enum's name, an object as `{name: value}`, the way serde_json's own enum access does.
pub(crate) struct EnumCheck<'p, V>(pub Check<'p, V>);

impl<'de, V: Visitor<'de>> Visitor<'de> for EnumCheck<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.check_str(v);
        let access: StrDeserializer<'_, E> = v.into_deserializer();
        self.0.visitor.visit_enum(access)
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.0.check_str(v);
        self.0.visitor.visit_enum(BorrowedStrDeserializer::new(v))
    }

    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.visit_str(&v)
    }

    #[inline]
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let check = self.0;
        check.check_container(types::OBJECT);
        let mut checked = CheckedMap::new(map, check.rules, check.cx);
        let value = check
            .visitor
            .visit_enum(MapAccessDeserializer::new(&mut checked))?;
        check.cx.check(checked.all_required_seen());
        Ok(value)
    }

    // Any other value is not an enum: checked, and refused by the typed visitor as serde_json
    // would refuse it.
    #[inline]
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.0.visit_bool(v)
    }

    #[inline]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.0.visit_i64(v)
    }

    #[inline]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.0.visit_u64(v)
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.0.visit_f64(v)
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    #[inline]
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(seq)
    }
}

/// The visitor of the typed value, behind the checks of its place.
pub(crate) struct Check<'p, V> {
    pub visitor: V,
    pub null_ok: bool,
    pub rules: &'p Rules,
    pub cx: Ctx<'p>,
}

impl<'p, V> Check<'p, V> {
    fn is(&self, bit: u8) -> bool {
        self.rules.types & bit != 0
    }

    fn check_null(&self) {
        let ok = self.null_ok || (self.is(types::NULL) && self.allowed(&Value::Null));
        self.cx.check(ok);
    }

    fn check_bool(&self, value: bool) {
        self.cx
            .check(self.is(types::BOOLEAN) && self.allowed(&Value::Bool(value)));
    }

    fn check_number(&self, number: Number) {
        let rules = self.rules;
        let typed = self.is(types::NUMBER) || (self.is(types::INTEGER) && is_integer(&number));
        let bounded = rules
            .minimum
            .as_ref()
            .is_none_or(|limit| compare(&number, limit) != Some(Ordering::Less))
            && rules
                .maximum
                .as_ref()
                .is_none_or(|limit| compare(&number, limit) != Some(Ordering::Greater))
            && rules
                .exclusive_minimum
                .as_ref()
                .is_none_or(|limit| compare(&number, limit) == Some(Ordering::Greater))
            && rules
                .exclusive_maximum
                .as_ref()
                .is_none_or(|limit| compare(&number, limit) == Some(Ordering::Less));
        let listed = rules.allowed.as_ref().is_none_or(|allowed| {
            allowed.iter().any(|value| match value {
                Value::Number(other) => compare(&number, other) == Some(Ordering::Equal),
                _ => false,
            })
        });
        self.cx.check(typed && bounded && listed);
    }

    pub(super) fn check_str(&self, text: &str) {
        let rules = self.rules;
        if !self.is(types::STRING) {
            return self.cx.flag();
        }
        if let Some(allowed) = &rules.allowed
            && !allowed.iter().any(|value| value.as_str() == Some(text))
        {
            return self.cx.flag();
        }
        if rules.min_length.is_some() || rules.max_length.is_some() {
            let length = text.chars().count() as u64;
            if rules.min_length.is_some_and(|min| length < min)
                || rules.max_length.is_some_and(|max| length > max)
            {
                return self.cx.flag();
            }
        }
        if let Some(keywords) = &rules.string_keywords {
            self.cx
                .check(keywords.is_valid(&Value::String(text.to_owned())));
        }
    }

    fn check_bytes(&self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.check_str(text),
            Err(_) => self.cx.flag(),
        }
    }

    fn allowed(&self, value: &Value) -> bool {
        self.rules
            .allowed
            .as_ref()
            .is_none_or(|allowed| allowed.contains(value))
    }

    /// The type and enum checks of an array or object; their members are checked on the way.
    pub(super) fn check_container(&self, bit: u8) {
        // An enum of arrays or objects is not compared here.
        self.cx.check(self.is(bit) && self.rules.allowed.is_none());
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Check<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    #[inline]
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.check_bool(v);
        self.visitor.visit_bool(v)
    }

    #[inline]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        if self.rules.free & types::INTEGER == 0 {
            self.check_number(Number::from(v));
        }
        self.visitor.visit_i64(v)
    }

    #[inline]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        if self.rules.free & types::INTEGER == 0 {
            self.check_number(Number::from(v));
        }
        self.visitor.visit_u64(v)
    }

    #[inline]
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<V::Value, E> {
        // serde_json reads numbers as i64, u64 or f64; a wider one is left to the full validator.
        self.cx.flag();
        self.visitor.visit_i128(v)
    }

    #[inline]
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<V::Value, E> {
        self.cx.flag();
        self.visitor.visit_u128(v)
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        match Number::from_f64(v) {
            Some(number) => self.check_number(number),
            None => self.cx.flag(),
        }
        self.visitor.visit_f64(v)
    }

    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.check_str(v);
        self.visitor.visit_str(v)
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.check_str(v);
        self.visitor.visit_borrowed_str(v)
    }

    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.check_str(&v);
        self.visitor.visit_string(v)
    }

    #[inline]
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.check_bytes(v);
        self.visitor.visit_bytes(v)
    }

    #[inline]
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.check_bytes(v);
        self.visitor.visit_borrowed_bytes(v)
    }

    #[inline]
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.check_bytes(&v);
        self.visitor.visit_byte_buf(v)
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.check_null();
        self.visitor.visit_none()
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.check_null();
        self.visitor.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        // serde_json calls this for any value but `null`: the same place, checked as it is read.
        let (null_ok, rules, cx) = (self.null_ok, self.rules, self.cx);
        self.visitor.visit_some(Place {
            de,
            null_ok,
            rules,
            cx,
        })
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        let (null_ok, rules, cx) = (self.null_ok, self.rules, self.cx);
        self.visitor.visit_newtype_struct(Place {
            de,
            null_ok,
            rules,
            cx,
        })
    }

    #[inline]
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.check_container(types::ARRAY);
        let rules = self.rules;
        if rules.items == ANY && rules.min_items.is_none() && rules.max_items.is_none() {
            return self.visitor.visit_seq(ParsedSeq { seq, cx: self.cx });
        }
        let mut checked = CheckedSeq::new(seq, rules.items, self.cx);
        let value = self.visitor.visit_seq(&mut checked)?;
        let count = checked.count();
        self.cx.check(
            rules.min_items.is_none_or(|min| count >= min)
                && rules.max_items.is_none_or(|max| count <= max),
        );
        Ok(value)
    }

    #[inline]
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.check_container(types::OBJECT);
        let rules = self.rules;
        if rules.members_free() {
            return self.visitor.visit_map(ParsedMap { map, cx: self.cx });
        }
        let mut checked = CheckedMap::new(map, rules, self.cx);
        let value = self.visitor.visit_map(&mut checked)?;
        self.cx.check(checked.all_required_seen());
        Ok(value)
    }

    #[inline]
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        // serde_json calls this only from `deserialize_enum`, which the proxy reads as any value.
        self.cx.flag();
        self.visitor.visit_enum(data)
    }
}
