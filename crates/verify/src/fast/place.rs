//! The proxies a checked place hands on: the deserializer of a place whose rules are looked up
//! (what serde_json passes through `visit_some` or `visit_newtype_struct`, and what
//! `walk::Checked` hands each method on to), and the visitor of an enum read as any value.

use super::Rules;
use super::access::CheckedMap;
use super::types;
use super::walk::{Check, Ctx};
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StrDeserializer};
use serde::de::{self, Deserializer, IntoDeserializer as _, Visitor};
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
