//! Wire-level tests: all ten operations of both clients against a recording wiremock server.
//! They check method, path, query and credentials exactly as sent, and that canned answers are
//! decoded (success bodies, documented errors, undocumented statuses).

use courier_client::models::{
    AccountState, FailureFunctionState, IndexRegion, IndexType, PlanType, ReservedPlanType,
    StatsPeriod,
};
use courier_client::{CourierError, Error, ResponseValue, RetryPolicy, management, messaging};
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::{Mock, MockServer, ResponseTemplate, matchers};

mod failures;
mod fixtures;
mod management_operations;
mod messaging_operations;
mod recorder;

use fixtures::*;
use recorder::*;

const TOKEN: &str = "svc-token-1";
const CUSTOMER_ID: &str = "ops@example.com";
const MANAGEMENT_KEY: &str = "mk-secret-1";
/// `Basic base64("ops@example.com:mk-secret-1")`, computed independently of the client.
const BASIC: &str = "Basic b3BzQGV4YW1wbGUuY29tOm1rLXNlY3JldC0x";
