//! The fast path of validation: the contract's schemas compiled into a table of rules that a
//! serde `Deserializer` proxy ([`walk`]) consults while the typed value is decoded, so a valid
//! answer is checked in the one pass that decodes it, with no `serde_json::Value` tree.
//!
//! The table comes from the same generated contract as the full validator. It covers the
//! keywords the contract uses (`type`, `enum`, `const`, lengths, bounds, `properties`,
//! `required`, `additionalProperties`, `items`, item counts, `$ref`, a one-member `allOf` and
//! the `anyOf` with `null` that `nullable` becomes); `format` and `pattern` are handed to the
//! `jsonschema` crate on the string alone, so they mean exactly what they mean to the full
//! validator. Any other keyword compiles to [`Node::Defer`]: a value that reaches it counts as
//! a finding, and the full validator decides. The fast path may therefore send a valid answer
//! to the full validator, never pass an invalid one.
//!
//! The verdicts agree on every answer but one kind: an object that repeats a member name. The
//! full validator's `serde_json::Value` keeps the last value, the fast path checks each, so a
//! bad earlier one sends the answer to the full validator, which passes it (the typed models
//! refuse a repeated field anyway).

pub(crate) mod access;
mod ctx;
mod members;
mod numbers;
mod parsed;
mod place;
pub(crate) mod walk;

use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use std::sync::atomic::AtomicU32;

/// A node of the table.
pub(crate) type NodeId = u32;

/// The schema every value passes.
pub(crate) const ANY: NodeId = 0;
/// The schema no value passes (`false`, or `additionalProperties: false` for a member).
pub(crate) const NEVER: NodeId = 1;
/// A node whose keywords the table does not check.
const DEFER: NodeId = 2;

/// The JSON types a `type` keyword admits, as bits.
pub(crate) mod types {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOLEAN: u8 = 2;
    pub(crate) const INTEGER: u8 = 4;
    /// Every number; `INTEGER` alone admits only numbers without a fraction.
    pub(crate) const NUMBER: u8 = 8;
    pub(crate) const STRING: u8 = 16;
    pub(crate) const ARRAY: u8 = 32;
    pub(crate) const OBJECT: u8 = 64;
    pub(crate) const ALL: u8 = 127;
}

/// Keywords that constrain nothing (annotations), skipped when compiling.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$defs",
    "contentMediaType",
    "contentEncoding",
];

pub(crate) enum Node {
    Any,
    Never,
    /// The full validator decides every value here.
    Defer,
    /// The same schema as another node (`$ref`, a one-member `allOf`).
    Alias(NodeId),
    /// `null`, or a value of the other node (`anyOf: [{"type": "null"}, X]`).
    Nullable(NodeId),
    Rules(Box<Rules>),
}

/// The checks of one schema, each for the JSON type it applies to.
#[derive(Default)]
pub(crate) struct Rules {
    pub types: u8,
    /// The types of which every value passes (no enum, length, format or bound applies);
    /// `INTEGER` here means every number without a fraction.
    pub free: u8,
    /// `enum` (or `const` as an enum of one).
    pub allowed: Option<Vec<Value>>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    /// `format` and `pattern`, checked by the `jsonschema` crate on the string alone.
    pub string_keywords: Option<jsonschema::Validator>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    /// Every member named in `properties` or `required`.
    pub members: Vec<Member>,
    /// An open-addressing table of `members` by [`slot_hash`] of the name: each slot holds a
    /// member's index plus one, or 0 when empty; its length is a power of two, at least twice
    /// the number of members (empty when there are none).
    pub slots: Vec<u16>,
    /// For each member index (and `members.len()`, the start of an object), the indexes of
    /// the two members that last followed it in the objects read, the newest in the low half:
    /// the guesses of [`Rules::member_after`].
    pub followers: Box<[AtomicU32]>,
    /// The bits of every required member.
    pub required: u64,
    /// The schema of members not in `properties`.
    pub additional: NodeId,
    pub items: NodeId,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
}

pub(crate) struct Member {
    pub name: Box<str>,
    /// Its schema: from `properties`, else `additionalProperties`.
    pub node: NodeId,
    /// Its bit in [`Rules::required`], when required.
    pub bit: u64,
}

impl Rules {
    /// Whether every value of the types `sure` passes, `null` counting as passing when the
    /// node is nullable.
    #[inline]
    pub(crate) fn passes_any(&self, sure: u8, null_ok: bool) -> bool {
        let free = if null_ok {
            self.free | types::NULL
        } else {
            self.free
        };
        free & sure == sure
    }

    /// Whether objects need no look at their members (every member passes).
    pub(crate) fn members_free(&self) -> bool {
        self.members.is_empty() && self.additional == ANY
    }
}

/// Every body schema of the contract, compiled.
pub(crate) struct Plan {
    nodes: Vec<Node>,
    /// Component schemas by name, as compiled so far.
    defs: HashMap<String, NodeId>,
    /// Body schemas by their JSON text.
    bodies: HashMap<String, NodeId>,
    /// For each node, the types of which every value passes it, its aliases followed and
    /// `null` included when it is nullable: what lets a place whose reader guarantees such a
    /// type hand the typed visitor on unwrapped, in one look.
    free: Vec<u8>,
}

impl Plan {
    /// The table of every JSON body schema of `contract`'s responses.
    pub(crate) fn new(contract: &crate::Contract) -> Plan {
        let mut plan = Plan {
            nodes: vec![Node::Any, Node::Never, Node::Defer],
            defs: HashMap::new(),
            bodies: HashMap::new(),
            free: Vec::new(),
        };
        for op in &contract.operations {
            for response in &op.responses {
                for schema in response.content.values() {
                    let key = schema.to_string();
                    if !plan.bodies.contains_key(&key) {
                        let node = plan.compile(schema, &contract.schemas);
                        plan.bodies.insert(key, node);
                    }
                }
            }
        }
        plan.free = (0..plan.nodes.len())
            .map(|id| plan.free_types_of(id as NodeId))
            .collect();
        plan
    }

    /// The types of which every value passes node `id` (see [`Plan::free`]).
    fn free_types_of(&self, mut id: NodeId) -> u8 {
        let mut null_ok = 0;
        // As `ctx::Ctx::rules` follows them: a cycle of aliases is left to the full validator.
        for _ in 0..64 {
            match self.node(id) {
                Node::Any => return types::ALL,
                Node::Rules(rules) => return rules.free | null_ok,
                Node::Alias(next) => id = *next,
                Node::Nullable(next) => {
                    null_ok = types::NULL;
                    id = *next;
                }
                Node::Never | Node::Defer => break,
            }
        }
        0
    }

    /// The types of which every value passes node `id`.
    #[inline]
    pub(crate) fn free(&self, id: NodeId) -> u8 {
        self.free.get(id as usize).copied().unwrap_or(0)
    }

    /// The node of a body schema of the contract.
    pub(crate) fn body(&self, schema: &Value) -> Option<NodeId> {
        self.bodies.get(&schema.to_string()).copied()
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        NodeId::try_from(self.nodes.len() - 1).expect("fewer than 2^32 schemas")
    }

    fn compile(&mut self, schema: &Value, defs: &Map<String, Value>) -> NodeId {
        let object = match schema {
            // A missing schema (`null` in the contract) constrains nothing.
            Value::Null | Value::Bool(true) => return ANY,
            Value::Bool(false) => return NEVER,
            Value::Object(object) => object,
            _ => return DEFER,
        };
        let keywords: Vec<(&str, &Value)> = object
            .iter()
            .map(|(key, value)| (key.as_str(), value))
            .filter(|(key, _)| !ANNOTATIONS.contains(key))
            .collect();
        match keywords.as_slice() {
            [] => return ANY,
            [("$ref", Value::String(reference))] => return self.reference(reference, defs),
            [("allOf", Value::Array(members))] if members.len() == 1 => {
                return self.compile(&members[0], defs);
            }
            [("anyOf", Value::Array(members))] if members.len() == 2 => {
                let null = serde_json::json!({"type": "null"});
                let other = match (&members[0], &members[1]) {
                    (first, other) if *first == null => other,
                    (other, second) if *second == null => other,
                    _ => return DEFER,
                };
                let inner = self.compile(other, defs);
                return self.push(Node::Nullable(inner));
            }
            _ => {}
        }
        match self.rules(&keywords, defs) {
            Some(rules) => self.push(Node::Rules(Box::new(rules))),
            None => DEFER,
        }
    }

    /// A `$ref` to a component schema, compiled once; a reference back to a schema being
    /// compiled finds its node already reserved.
    fn reference(&mut self, reference: &str, defs: &Map<String, Value>) -> NodeId {
        let Some(name) = reference.strip_prefix("#/$defs/") else {
            return DEFER;
        };
        if let Some(&node) = self.defs.get(name) {
            return node;
        }
        let Some(schema) = defs.get(name) else {
            return DEFER;
        };
        let slot = self.push(Node::Defer);
        self.defs.insert(name.to_owned(), slot);
        let compiled = self.compile(schema, defs);
        self.nodes[slot as usize] = Node::Alias(compiled);
        slot
    }

    /// The rules of a schema's keywords; `None` when one of them is not checked here.
    fn rules(&mut self, keywords: &[(&str, &Value)], defs: &Map<String, Value>) -> Option<Rules> {
        let mut rules = Rules {
            types: types::ALL,
            additional: ANY,
            items: ANY,
            ..Rules::default()
        };
        let mut properties = None;
        let mut required: &[Value] = &[];
        let mut string_keywords = Map::new();
        for &(keyword, value) in keywords {
            match keyword {
                "type" => rules.types = type_bits(value)?,
                "enum" => rules.allowed = Some(value.as_array()?.clone()),
                "const" => rules.allowed = Some(vec![value.clone()]),
                "minLength" => rules.min_length = Some(value.as_u64()?),
                "maxLength" => rules.max_length = Some(value.as_u64()?),
                "format" | "pattern" => {
                    string_keywords.insert(keyword.to_owned(), value.clone());
                }
                "minimum" => rules.minimum = Some(number(value)?),
                "maximum" => rules.maximum = Some(number(value)?),
                "exclusiveMinimum" => rules.exclusive_minimum = Some(number(value)?),
                "exclusiveMaximum" => rules.exclusive_maximum = Some(number(value)?),
                "properties" => properties = Some(value.as_object()?),
                "required" => required = value.as_array()?.as_slice(),
                "additionalProperties" => rules.additional = self.compile(value, defs),
                "items" => rules.items = self.compile(value, defs),
                "minItems" => rules.min_items = Some(value.as_u64()?),
                "maxItems" => rules.max_items = Some(value.as_u64()?),
                _ => return None,
            }
        }
        if !string_keywords.is_empty() {
            let compiled = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .build(&Value::Object(string_keywords))
                .ok()?;
            rules.string_keywords = Some(compiled);
        }
        // More required members than bits: left to the full validator.
        if required.len() > 64 {
            return None;
        }
        let mut members: Vec<Member> = Vec::new();
        for (name, schema) in properties.into_iter().flatten() {
            let node = self.compile(schema, defs);
            members.push(Member {
                name: name.as_str().into(),
                node,
                bit: 0,
            });
        }
        for (index, name) in required.iter().enumerate() {
            let name = name.as_str()?;
            let bit = 1u64 << index;
            rules.required |= bit;
            match members
                .iter_mut()
                .find(|member| member.name.as_ref() == name)
            {
                Some(member) => member.bit |= bit,
                None => members.push(Member {
                    name: name.into(),
                    node: rules.additional,
                    bit,
                }),
            }
        }
        rules.slots = members::slots(&members)?;
        rules.followers = (0..=members.len()).map(|_| AtomicU32::new(0)).collect();
        rules.members = members;
        rules.free = free_types(&rules);
        Some(rules)
    }
}

/// The types of which every value passes `rules`.
fn free_types(rules: &Rules) -> u8 {
    if rules.allowed.is_some() {
        return 0;
    }
    let mut free = rules.types & (types::NULL | types::BOOLEAN);
    let bounded = rules.minimum.is_some()
        || rules.maximum.is_some()
        || rules.exclusive_minimum.is_some()
        || rules.exclusive_maximum.is_some();
    if rules.types & types::NUMBER != 0 && !bounded {
        free |= types::NUMBER | types::INTEGER;
    }
    // An integer passes a schema of integers or numbers without bounds, whatever its value.
    if rules.types & types::INTEGER != 0 && !bounded {
        free |= types::INTEGER;
    }
    let measured =
        rules.min_length.is_some() || rules.max_length.is_some() || rules.string_keywords.is_some();
    if rules.types & types::STRING != 0 && !measured {
        free |= types::STRING;
    }
    free
}

/// The bits of a `type` keyword: one name or a list of names.
fn type_bits(value: &Value) -> Option<u8> {
    let bit = |name: &Value| -> Option<u8> {
        Some(match name.as_str()? {
            "null" => types::NULL,
            "boolean" => types::BOOLEAN,
            "integer" => types::INTEGER,
            "number" => types::NUMBER,
            "string" => types::STRING,
            "array" => types::ARRAY,
            "object" => types::OBJECT,
            _ => return None,
        })
    };
    match value {
        Value::Array(names) => names
            .iter()
            .try_fold(0, |bits, name| Some(bits | bit(name)?)),
        name => bit(name),
    }
}

fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Number(number) => Some(number.clone()),
        _ => None,
    }
}

/// `body` decoded as `T` at node `id` and checked on the way: the value (or serde_json's
/// error, as `serde_json::from_slice` gives it) and whether the checks found anything.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    plan: &Plan,
    id: NodeId,
    body: &[u8],
) -> (Result<T, serde_json::Error>, bool) {
    let walk = ctx::Walk {
        plan,
        found: std::cell::Cell::new(false),
    };
    let cx = ctx::Ctx(&walk);
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = T::deserialize(cx.at(&mut de, id)).and_then(|value| de.end().map(|()| value));
    (value, walk.found.get())
}

#[cfg(test)]
mod tests;
