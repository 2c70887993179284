//! The proxies of arrays and objects: each element is decoded at its items' place, each
//! member's name is read on its way to the typed key to find the member's place and mark it
//! seen, so required members can be counted when the object ends.

use super::ctx::{CheckedSeed, Ctx};
use super::{ANY, NodeId, Rules};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// The elements of an array, each at node `items`, counted.
pub(crate) struct CheckedSeq<'p, A> {
    seq: A,
    items: NodeId,
    cx: Ctx<'p>,
    count: u64,
}

impl<'p, A> CheckedSeq<'p, A> {
    pub(crate) fn new(seq: A, items: NodeId, cx: Ctx<'p>) -> Self {
        CheckedSeq {
            seq,
            items,
            cx,
            count: 0,
        }
    }

    /// How many elements the typed visitor took.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for CheckedSeq<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let seed = CheckedSeed {
            seed,
            id: self.items,
            cx: self.cx,
        };
        let element = self.seq.next_element_seed(seed)?;
        self.count += u64::from(element.is_some());
        Ok(element)
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// What reading one member's name found.
struct KeySlot {
    /// The node of the member whose name was just read; `None` until a name is seen.
    next: Option<NodeId>,
    /// The bits of the required members seen.
    seen: u64,
    /// The index in `Rules::members` of the last member found (`members.len()` before the
    /// first), from which the next one is guessed.
    last: usize,
}

impl KeySlot {
    #[inline]
    fn record(&mut self, rules: &Rules, name: &str) {
        match rules.member_after(self.last, name) {
            Some((index, member)) => {
                self.next = Some(member.node);
                self.seen |= member.bit;
                self.last = index;
            }
            None => self.next = Some(rules.additional),
        }
    }
}

/// The members of an object of `rules`.
pub(crate) struct CheckedMap<'p, A> {
    map: A,
    rules: &'p Rules,
    cx: Ctx<'p>,
    slot: KeySlot,
}

impl<'p, A> CheckedMap<'p, A> {
    pub(crate) fn new(map: A, rules: &'p Rules, cx: Ctx<'p>) -> Self {
        CheckedMap {
            map,
            rules,
            cx,
            slot: KeySlot {
                next: None,
                seen: 0,
                last: rules.members.len(),
            },
        }
    }

    /// Whether every required member was among those the typed visitor took.
    pub(crate) fn all_required_seen(&self) -> bool {
        self.slot.seen & self.rules.required == self.rules.required
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for CheckedMap<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.slot.next = None;
        let seed = KeySeed {
            seed,
            rules: self.rules,
            slot: &mut self.slot,
        };
        let key = self.map.next_key_seed(seed)?;
        // A name the typed key read without a string (a number key) is not matched to a
        // member here: the full validator decides.
        if key.is_some() && self.slot.next.is_none() {
            self.cx.flag();
        }
        Ok(key)
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let seed = CheckedSeed {
            seed,
            id: self.slot.next.take().unwrap_or(ANY),
            cx: self.cx,
        };
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// The typed key's seed, behind a proxy that reads the member's name.
struct KeySeed<'p, 'm, S> {
    seed: S,
    rules: &'p Rules,
    slot: &'m mut KeySlot,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, '_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(KeyDe {
            de,
            rules: self.rules,
            slot: self.slot,
        })
    }
}

struct KeyDe<'p, 'm, D> {
    de: D,
    rules: &'p Rules,
    slot: &'m mut KeySlot,
}

macro_rules! key_methods {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            let visitor = KeyVisitor { visitor, rules: self.rules, slot: self.slot };
            self.de.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDe<'_, '_, D> {
    type Error = D::Error;

    key_methods! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit(); deserialize_seq(); deserialize_map();
        deserialize_identifier(); deserialize_ignored_any();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// The typed key's visitor; a name read as a string is recorded on its way.
struct KeyVisitor<'p, 'm, V> {
    visitor: V,
    rules: &'p Rules,
    slot: &'m mut KeySlot,
}

macro_rules! key_forwards {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, $($arg: $ty),*) -> Result<V::Value, E> {
            self.visitor.$method($($arg),*)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.slot.record(self.rules, v);
        self.visitor.visit_str(v)
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.slot.record(self.rules, v);
        self.visitor.visit_borrowed_str(v)
    }

    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.slot.record(self.rules, &v);
        self.visitor.visit_string(v)
    }

    key_forwards! {
        visit_bool(v: bool); visit_i64(v: i64); visit_u64(v: u64); visit_i128(v: i128);
        visit_u128(v: u128); visit_f64(v: f64); visit_bytes(v: &[u8]);
        visit_borrowed_bytes(v: &'de [u8]); visit_byte_buf(v: Vec<u8>);
        visit_none(); visit_unit();
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        let de = KeyDe {
            de,
            rules: self.rules,
            slot: self.slot,
        };
        self.visitor.visit_some(de)
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        let de = KeyDe {
            de,
            rules: self.rules,
            slot: self.slot,
        };
        self.visitor.visit_newtype_struct(de)
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(seq)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(map)
    }

    #[inline]
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(data)
    }
}
