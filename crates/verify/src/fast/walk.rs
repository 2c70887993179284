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

use super::ctx::Checked;
use super::parsed::Parsed;
use super::place::{Place, deserialize_methods};
use super::{Rules, types};
use serde::de::{Deserializer, Visitor};

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
