//! The proxy: a `Deserializer` around serde_json's that hands the typed `Deserialize` impl a
//! visitor checking every value it passes on against the schema of its place, in the spirit
//! of `serde_path_to_error`. The typed impl drives the walk, so the bytes are read once.
//!
//! A finding sets a flag and the walk goes on unchecked: the full validator, not this one,
//! writes the report, so the first finding is all it needs to know.
//!
//! Every deserializer the proxies wrap is serde_json's own (`fast::decode` starts the walk on
//! one, and its sequences and maps hand out the same), so what serde_json guarantees of the
//! value a method reads holds: `deserialize_string` succeeds only on a JSON string, whatever
//! the visitor. Where that is all the schema asks, the visitor goes unwrapped.

use super::access::{CheckedMap, CheckedSeq};
use super::numbers::{compare, is_integer};
use super::parsed::{Parsed, ParsedMap, ParsedSeq};
use super::place::{Place, deserialize_methods};
use super::{ANY, Node, NodeId, Plan, Rules, types};
use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use serde_json::{Number, Value};
use std::cell::Cell;
use std::cmp::Ordering;
use std::fmt;

/// What every proxy of one walk shares: the table and the finding flag.
pub(crate) struct Walk<'p> {
    pub plan: &'p Plan,
    pub found: Cell<bool>,
}

/// The walk, as each proxy holds it: one pointer, copied through every layer.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'p>(pub &'p Walk<'p>);

impl<'p> Ctx<'p> {
    /// Whether a finding was made.
    #[inline]
    pub fn found(&self) -> bool {
        self.0.found.get()
    }

    #[inline]
    pub fn flag(&self) {
        self.0.found.set(true);
    }

    /// Notes a finding unless `ok`.
    #[inline]
    pub fn check(&self, ok: bool) {
        if !ok {
            self.flag();
        }
    }

    /// The rules of a node, and whether `null` passes regardless; `None` when nothing is left
    /// to check there (a node every value passes, or a finding already made).
    #[inline]
    pub fn rules(&self, mut id: NodeId) -> Option<(bool, &'p Rules)> {
        let mut null_ok = false;
        // Alias chains are short; a cycle of them (a schema that is only a reference to
        // itself) is left to the full validator.
        for _ in 0..64 {
            if self.0.found.get() {
                return None;
            }
            match self.0.plan.node(id) {
                Node::Any => return None,
                Node::Rules(rules) => return Some((null_ok, rules)),
                Node::Alias(next) => id = *next,
                Node::Nullable(next) => {
                    null_ok = true;
                    id = *next;
                }
                Node::Never | Node::Defer => break,
            }
        }
        self.flag();
        None
    }

    /// The walk of one value's place.
    #[inline]
    pub fn at<D>(self, de: D, id: NodeId) -> Checked<'p, D> {
        Checked { de, id, cx: self }
    }
}

/// serde_json's deserializer at a place of node `id`.
pub(crate) struct Checked<'p, D> {
    de: D,
    id: NodeId,
    cx: Ctx<'p>,
}

/// A seed decoded at a place of node `id`.
pub(crate) struct CheckedSeed<'p, S> {
    pub seed: S,
    pub id: NodeId,
    pub cx: Ctx<'p>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for CheckedSeed<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(self.cx.at(de, self.id))
    }
}

macro_rules! checked_method {
    ($($method:ident($($arg:ident: $ty:ty),*) => $sure:expr;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            // A value serde_json guarantees to be of a type every value of which passes here:
            // nothing to check, and (a scalar) nothing below it to parse.
            if $sure != 0 && self.cx.0.plan.free(self.id) & $sure == $sure {
                return self.de.$method($($arg,)* visitor);
            }
            match self.cx.rules(self.id) {
                None => self.de.$method($($arg,)* Parsed { visitor, cx: self.cx }),
                Some((null_ok, rules)) => self.place(null_ok, rules).$method($($arg,)* visitor),
            }
        }
    )*};
}

impl<'p, D> Checked<'p, D> {
    /// The same place, its node resolved to `rules`.
    #[inline]
    fn place(self, null_ok: bool, rules: &'p Rules) -> Place<'p, D> {
        Place {
            de: self.de,
            null_ok,
            rules,
            cx: self.cx,
        }
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, D> {
    type Error = D::Error;

    deserialize_methods!(checked_method);

    /// A member the typed value ignores is still checked when its schema says anything.
    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        match self.cx.rules(self.id) {
            // Parsed, not skipped: serde_json's skipping lets bytes through that are not JSON.
            None => self.de.deserialize_any(Parsed {
                visitor,
                cx: self.cx,
            }),
            Some((null_ok, rules)) => self.place(null_ok, rules).deserialize_ignored_any(visitor),
        }
    }

    /// serde_json hands an enum's name over without saying whether it was a string or the key
    /// of an object; read as any value, the proxy sees which and passes the name on.
    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        match self.cx.rules(self.id) {
            None => self.de.deserialize_enum(name, variants, visitor),
            Some((null_ok, rules)) => self
                .place(null_ok, rules)
                .deserialize_enum(name, variants, visitor),
        }
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
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

    pub fn check_str(&self, text: &str) {
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
    pub fn check_container(&self, bit: u8) {
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
