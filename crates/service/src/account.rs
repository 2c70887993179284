//! The one account of the reference service: its default plan, credentials and first start.

use crate::store::{Store, StoreError};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use courier_models::{AccountState, MessagingAccount, PlanType, ReservedPlanType};
use rand::{RngCore as _, TryRngCore as _};

/// The account with the management key that authenticates the management interface.
#[derive(Clone, Debug)]
pub struct AccountRecord {
    pub account: MessagingAccount,
    pub management_key: String,
}

/// Credentials fixed on the command line or in the environment; generated when absent.
#[derive(Clone, Debug, Default)]
pub struct InitialCredentials {
    pub customer_id: Option<String>,
    pub service_token: Option<String>,
    pub management_key: Option<String>,
}

/// `bytes` random bytes from the operating system's generator, base64url. Straight from the
/// system rather than through `rand`'s thread-local generator, which a fresh `courier serve`
/// would set up (its seeding and SIMD detection) for the three secrets of its first start.
pub fn random_secret(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    // Panics only if the system has no randomness to give, as the thread-local generator would.
    rand::rngs::OsRng.unwrap_err().fill_bytes(&mut buffer);
    URL_SAFE_NO_PAD.encode(buffer)
}

/// A JWT-style bearer token (three base64url parts), the shape the hosted service hands out.
/// courier does not verify it as a JWT: it is compared as an opaque secret.
pub fn service_token(customer_id: &str) -> String {
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","typ":"JWT"}"#);
    let claims =
        serde_json::json!({ "iss": "courier", "sub": customer_id, "jti": random_secret(12) });
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{header}.{payload}.{}", random_secret(32))
}

/// A fresh messaging token and password, for rotation
/// (`docs/decisions.md#d10-management-credentials`).
pub fn rotated_credentials(customer_id: &str) -> (String, String) {
    (service_token(customer_id), random_secret(24))
}

/// The default plan of a new account; every limit can be changed through the admin API
/// (`PATCH /admin/v1/account`). The README documents these values.
pub fn default_account(customer_id: &str, token: String, now_ms: i64) -> MessagingAccount {
    MessagingAccount {
        customer_id: customer_id.to_owned(),
        id: uuid::Uuid::new_v4(),
        password: random_secret(24),
        token,
        active: true,
        state: AccountState::Active,
        last_plan_upgrade_time: 0,
        max_message_size: 1_048_576,
        max_requests_per_day: 1_000_000,
        max_requests_per_day_hard: 2_000_000,
        max_endpoints_per_topic: 100,
        max_requests_per_second: 1000,
        max_dlq_size: 1_000_000,
        max_retries: 5,
        max_topics: 1000,
        max_schedules: 1000,
        max_events_size: 10_000,
        max_dlq_retention_time_milis: 30 * 24 * 3_600_000,
        max_delay: 7 * 24 * 3600,
        max_parallelism: 10,
        max_global_parallelism: 100,
        max_queues: 100,
        prod_pack_enabled: false,
        timeout: 900,
        type_: PlanType::Free,
        reserved_type: ReservedPlanType::NONE,
        reserved_price: 0.0,
        created_by: customer_id.to_owned(),
        creation_time: now_ms / 1000,
    }
}

/// Loads the account, or creates it on the first start. Credentials given at a later start are
/// ignored (with a warning) so that a rotation survives restarts that repeat the same flags.
pub fn load_or_create(
    store: &dyn Store,
    initial: &InitialCredentials,
    now_ms: i64,
) -> Result<AccountRecord, StoreError> {
    if let (Some(account), Some(management_key)) = (store.account()?, store.management_key()?) {
        let differs = initial
            .customer_id
            .as_ref()
            .is_some_and(|id| *id != account.customer_id)
            || initial
                .service_token
                .as_ref()
                .is_some_and(|token| *token != account.token)
            || initial
                .management_key
                .as_ref()
                .is_some_and(|key| *key != management_key);
        if differs {
            tracing::warn!(
                "the data directory already has an account; the credentials given at start are ignored \
                 (use a new --data-dir to start over)"
            );
        }
        return Ok(AccountRecord {
            account,
            management_key,
        });
    }
    let record = new_account(initial, now_ms);
    store.create_account(&record.account, &record.management_key)?;
    Ok(record)
}

/// The account a new store starts with: the credentials given at start, generated where absent.
pub fn new_account(initial: &InitialCredentials, now_ms: i64) -> AccountRecord {
    let customer_id = initial
        .customer_id
        .clone()
        .unwrap_or_else(|| "local@courier.dev".to_owned());
    let token = initial
        .service_token
        .clone()
        .unwrap_or_else(|| service_token(&customer_id));
    let management_key = initial
        .management_key
        .clone()
        .unwrap_or_else(|| random_secret(24));
    let account = default_account(&customer_id, token, now_ms);
    AccountRecord {
        account,
        management_key,
    }
}
