//! What every proxy of one walk shares: the table and the finding flag ([`Walk`], handed on
//! as [`Ctx`]), and the two wrappers that start the check of one value's place ([`Checked`],
//! [`CheckedSeed`]). It stands below every proxy, which each hand a place on through it.

use super::{Node, NodeId, Plan, Rules};
use serde::de::{DeserializeSeed, Deserializer};
use std::cell::Cell;

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
    pub(crate) fn found(&self) -> bool {
        self.0.found.get()
    }

    #[inline]
    pub(crate) fn flag(&self) {
        self.0.found.set(true);
    }

    /// Notes a finding unless `ok`.
    #[inline]
    pub(crate) fn check(&self, ok: bool) {
        if !ok {
            self.flag();
        }
    }

    /// The rules of a node, and whether `null` passes regardless; `None` when nothing is left
    /// to check there (a node every value passes, or a finding already made).
    #[inline]
    pub(crate) fn rules(&self, mut id: NodeId) -> Option<(bool, &'p Rules)> {
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
    pub(crate) fn at<D>(self, de: D, id: NodeId) -> Checked<'p, D> {
        Checked { de, id, cx: self }
    }
}

/// serde_json's deserializer at a place of node `id`.
pub(crate) struct Checked<'p, D> {
    pub de: D,
    pub id: NodeId,
    pub cx: Ctx<'p>,
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
