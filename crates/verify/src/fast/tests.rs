//! The table compiled from the contract: every keyword of its body schemas checked here, any
//! other left to the full validator.

use super::{DEFER, Node, NodeId, Plan};
use serde_json::Map;
use std::collections::HashMap;

/// Every node reachable from `id`, `id` included.
fn reachable(plan: &Plan, id: NodeId, seen: &mut Vec<NodeId>) {
    if seen.contains(&id) {
        return;
    }
    seen.push(id);
    match plan.node(id) {
        Node::Alias(next) | Node::Nullable(next) => reachable(plan, *next, seen),
        Node::Rules(rules) => {
            for member in &rules.members {
                reachable(plan, member.node, seen);
            }
            reachable(plan, rules.additional, seen);
            reachable(plan, rules.items, seen);
        }
        Node::Any | Node::Never | Node::Defer => {}
    }
}

/// A table with only the three fixed nodes, for compiling single schemas.
fn empty_plan() -> Plan {
    Plan {
        nodes: vec![Node::Any, Node::Never, Node::Defer],
        defs: HashMap::new(),
        bodies: HashMap::new(),
        free: Vec::new(),
    }
}

#[test]
fn every_body_schema_of_the_contract_is_checked_here_in_full() {
    let contract = crate::Contract::courier();
    let plan = Plan::new(contract);
    let mut seen = Vec::new();
    for &body in plan.bodies.values() {
        reachable(&plan, body, &mut seen);
    }
    assert!(
        !seen.contains(&DEFER),
        "a keyword of the contract is left to the full validator"
    );
    assert!(seen.len() > 20, "{} nodes", seen.len());
}

#[test]
fn keywords_the_table_does_not_check_are_deferred() {
    let defs = Map::new();
    let mut plan = empty_plan();
    for schema in [
        serde_json::json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        serde_json::json!({"type": "object", "patternProperties": {"^x": {}}}),
        serde_json::json!({"type": "number", "multipleOf": 3}),
        serde_json::json!({"$ref": "#/$defs/Missing"}),
        serde_json::json!({"allOf": [{"type": "string"}, {"minLength": 2}]}),
    ] {
        assert_eq!(plan.compile(&schema, &defs), DEFER, "{schema}");
    }
    let nullable = serde_json::json!({"anyOf": [{"type": "null"}, {"type": "string"}]});
    let id = plan.compile(&nullable, &defs);
    assert!(matches!(plan.node(id), Node::Nullable(_)));
}

/// The guessed member lookup answers what a plain search answers, whatever order the members
/// come in, whichever are absent, however long their names (every branch of the comparison),
/// and for names that are not members or differ from one in a single byte.
#[test]
fn members_are_found_in_any_order_whatever_was_guessed() {
    let names: Vec<String> = (1..=40)
        .map(|length| {
            (0..length)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect()
        })
        .chain(["x".into(), "xy".into(), "xyz".into(), "wxyz".into()])
        .collect();
    let properties: Map<String, serde_json::Value> = names
        .iter()
        .map(|name| (name.clone(), serde_json::json!({"type": "string"})))
        .collect();
    let schema = serde_json::json!({"type": "object", "properties": properties});
    let mut plan = empty_plan();
    let id = plan.compile(&schema, &Map::new());
    let Node::Rules(rules) = plan.node(id) else {
        panic!("an object schema compiles to rules")
    };
    let expected = |name: &str| rules.members.iter().position(|m| m.name.as_ref() == name);
    // Three orders in turn (forward, backward, every other one), so every guess is tried
    // right and wrong.
    let forward: Vec<&str> = names.iter().map(String::as_str).collect();
    let backward: Vec<&str> = forward.iter().rev().copied().collect();
    let sparse: Vec<&str> = forward.iter().step_by(2).copied().collect();
    for order in [&forward, &backward, &sparse, &forward, &sparse, &backward] {
        let mut last = rules.members.len();
        for name in order {
            let (index, member) = rules.member_after(last, name).expect("a member");
            assert_eq!(Some(index), expected(name), "{name}");
            assert_eq!(member.name.as_ref(), *name);
            last = index;
        }
    }
    for stranger in [
        "",
        "b",
        "abd",
        "abcdefghijklmnopqrstuvwxyzabcdeX",
        &"a".repeat(41),
    ] {
        for last in 0..=rules.members.len() {
            assert!(rules.member_after(last, stranger).is_none(), "{stranger}");
        }
    }
}
