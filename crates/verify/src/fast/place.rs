//! The proxies a checked place hands on: the deserializer of a value serde_json passes through
//! `visit_some` or `visit_newtype_struct`, and the visitor of an enum read as any value.

use super::Rules;
use super::access::CheckedMap;
use super::types;
use super::walk::{Check, Ctx};
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StrDeserializer};
use serde::de::{self, Deserializer, IntoDeserializer as _, Visitor};
use std::fmt;

/// `Check` seen through `visit_some` / `visit_newtype_struct`: a deserializer whose rules are
/// already looked up.
pub(crate) struct Place<'p, D> {
    pub de: D,
    pub null_ok: bool,
    pub rules: &'p Rules,
    pub cx: Ctx<'p>,
}

macro_rules! place_methods {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            if self.cx.found.get() {
                return self.de.$method($($arg,)* visitor);
            }
            let check = Check { visitor, null_ok: self.null_ok, rules: self.rules, cx: self.cx };
            self.de.$method($($arg,)* check)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Place<'_, D> {
    type Error = D::Error;

    place_methods! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit(); deserialize_seq(); deserialize_map();
        deserialize_identifier();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if self.cx.found.get() {
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

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        if self.cx.found.get() {
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

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.check_str(v);
        let access: StrDeserializer<'_, E> = v.into_deserializer();
        self.0.visitor.visit_enum(access)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.0.check_str(v);
        self.0.visitor.visit_enum(BorrowedStrDeserializer::new(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.visit_str(&v)
    }

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
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.0.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.0.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.0.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.0.visit_f64(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(seq)
    }
}
