//! Auth matrix generated from `spec/openapi.yaml`: every operation × every credential case gets
//! the expected status, the `{"error": "..."}` body and the `WWW-Authenticate` challenge.
//!
//! The operations, the interface each belongs to (its tag), its path parameters and its success
//! status come from the generated table of operations (`courier_models::OPERATIONS`), so an
//! operation added to the spec is exercised without touching this file, and the test fails
//! naming any operation it cannot exercise (a path parameter with no fixture).
//!
//! The matrix runs three times against one service: with the initial token, after a rotation
//! (`POST /v2/svc/user/rotatetoken`: the token from before it must be refused everywhere and the
//! new one accepted everywhere), and after a restart (the rotation is durable). Every valid call
//! gets fresh resources, so destructive operations (delete, cancel, bulk delete) never take away
//! what a later case needs; every rejected call is checked to have changed nothing.
//!
//! Here is the matrix itself. The operations and how to fill their paths are in `operations`,
//! the credential cases of each interface in `cases`, the service, its fixtures and the checking
//! of one outcome in `world`; `order_of_checks` holds the tests of which check answers first
//! (credentials, rate limit, parameters, resource).

mod cases;
use crate::common;
mod operations;
mod order_of_checks;
mod world;

use cases::cases;
use operations::operations;
use std::collections::BTreeSet;
use world::World;

#[tokio::test]
async fn every_operation_of_the_spec_refuses_every_wrong_credential_and_accepts_the_right_one() {
    let operations = operations();
    let interfaces: BTreeSet<&str> = operations.iter().map(|o| o.interface.tag()).collect();
    assert_eq!(
        interfaces,
        BTreeSet::from(["management", "messaging"]),
        "the spec has operations of both interfaces"
    );

    let mut world = World::start().await;
    world.stage("initial token", &operations).await;
    world.rotate(&operations).await;
    world.stage("after rotation", &operations).await;
    world.service.restart().await;
    assert_eq!(
        world.service.service_token, world.credentials.token,
        "the rotated token survives a restart"
    );
    assert_eq!(
        world.service.management_key, world.credentials.management_key,
        "rotation leaves the management key unchanged"
    );
    world.stage("after restart", &operations).await;

    // Coverage: every operation of the spec ran every case of its interface.
    let mut cells = 0;
    for operation in &operations {
        let expected: BTreeSet<&str> = cases(operation.interface, &world.credentials)
            .iter()
            .map(|c| c.name)
            .collect();
        let ran = world
            .coverage
            .get(&operation.id)
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            ran, expected,
            "{} ({} {}): cases run vs cases of its interface",
            operation.id, operation.method, operation.path
        );
        cells += expected.len();
    }
    eprintln!(
        "auth matrix: {} operations, {cells} operation × case cells, {} requests",
        operations.len(),
        world.requests
    );
    assert!(
        world.problems.is_empty(),
        "{} problem(s):\n{}",
        world.problems.len(),
        world.problems.join("\n")
    );
}
