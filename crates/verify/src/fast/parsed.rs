//! Values no schema constrains, read whole all the same. serde_json skips a value a visitor
//! ignores without checking that its strings are UTF-8 or its escapes whole, where the full
//! validator's parse refuses such a body as not JSON; so below a place with nothing to check,
//! every value is still parsed, through `deserialize_any`, never skipped.

use super::ANY;
use super::ctx::{CheckedSeed, Ctx};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A visitor whose arrays and objects hand their members to the proxy again.
pub(crate) struct Parsed<'p, V> {
    pub visitor: V,
    pub cx: Ctx<'p>,
}

macro_rules! forwards {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, $($arg: $ty),*) -> Result<V::Value, E> {
            self.visitor.$method($($arg),*)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Parsed<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    forwards! {
        visit_bool(v: bool); visit_i64(v: i64); visit_u64(v: u64); visit_i128(v: i128);
        visit_u128(v: u128); visit_f64(v: f64); visit_str(v: &str);
        visit_borrowed_str(v: &'de str); visit_string(v: String); visit_bytes(v: &[u8]);
        visit_borrowed_bytes(v: &'de [u8]); visit_byte_buf(v: Vec<u8>);
        visit_none(); visit_unit();
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(self.cx.at(de, ANY))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(self.cx.at(de, ANY))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(ParsedSeq { seq, cx: self.cx })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(ParsedMap { map, cx: self.cx })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(data)
    }
}

/// The elements of an array no schema constrains, each parsed whole.
pub(crate) struct ParsedSeq<'p, A> {
    pub seq: A,
    pub cx: Ctx<'p>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for ParsedSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let cx = self.cx;
        self.seq
            .next_element_seed(CheckedSeed { seed, id: ANY, cx })
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// The members of an object no schema constrains, each value parsed whole (serde_json reads
/// every name as a string, checked, whatever the key's visitor).
pub(crate) struct ParsedMap<'p, A> {
    pub map: A,
    pub cx: Ctx<'p>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for ParsedMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(seed)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let cx = self.cx;
        self.map.next_value_seed(CheckedSeed { seed, id: ANY, cx })
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}
