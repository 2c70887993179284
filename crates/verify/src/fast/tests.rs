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
    let mut plan = Plan {
        nodes: vec![Node::Any, Node::Never, Node::Defer],
        defs: HashMap::new(),
        bodies: HashMap::new(),
    };
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
