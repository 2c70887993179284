//! Request hooks: what the generated clients call before and for sending each request, and
//! to decode each answer.
//!
//! progenitor ignores `securitySchemes`, so each generated client carries an "inner" value
//! (configured with `with_inner_type` in the xtask); this module's `ClientHooks`
//! implementations apply its credentials to every request and send it with its retry policy.
//! The generated code decodes a body with `decode_response` (the xtask reroutes progenitor's
//! own decode there), so a validating client checks the body in the pass that decodes it, and
//! every body is read within the client's [`Limits`]: `exec` holds each attempt to its timeout
//! and the call to its deadline, `decode_response` reads no more than its cap.

use crate::limits::Limits;
use crate::retry::{self, RetryPolicy};
use crate::{management, messaging};
use base64::Engine as _;
use progenitor_client::{ClientHooks, ClientInfo, Error, OperationInfo, ResponseValue};
use reqwest::header::{AUTHORIZATION, HeaderValue};

/// How the messaging service token is sent.
#[derive(Clone)]
pub enum MessagingAuth {
    /// `Authorization: Bearer <token>` (the usual way).
    Bearer(String),
    /// The `service_token` query parameter, accepted on every messaging operation.
    QueryToken(String),
}

impl std::fmt::Debug for MessagingAuth {
    // Tokens are secrets: never print them, not even in a debug dump of a client.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MessagingAuth::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            MessagingAuth::QueryToken(_) => f.write_str("QueryToken(<redacted>)"),
        }
    }
}

/// State every messaging request needs: its credentials and retry policy.
#[derive(Clone, Debug)]
pub struct MessagingInner {
    /// The bearer or query token every request carries.
    pub auth: MessagingAuth,
    /// When and how often a failed request is sent again.
    pub retry: RetryPolicy,
    /// Validate every answer against the spec as it is decoded (needs the `validate`
    /// feature; without it this is ignored).
    pub validate_responses: bool,
    /// How long each attempt and the whole call may take, and how large an answer may be.
    pub limits: Limits,
}

/// Basic credentials of the management interface (`customer_id`, management key) and the
/// retry policy.
#[derive(Clone)]
pub struct ManagementInner {
    /// The Basic auth username.
    pub customer_id: String,
    /// The Basic auth password.
    pub management_key: String,
    /// When and how often a failed request is sent again.
    pub retry: RetryPolicy,
    /// Validate every answer against the spec as it is decoded (needs the `validate`
    /// feature; without it this is ignored).
    pub validate_responses: bool,
    /// How long each attempt and the whole call may take, and how large an answer may be.
    pub limits: Limits,
}

impl std::fmt::Debug for ManagementInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagementInner")
            .field("customer_id", &self.customer_id)
            .field("management_key", &"<redacted>")
            .field("retry", &self.retry)
            .field("validate_responses", &self.validate_responses)
            .field("limits", &self.limits)
            .finish()
    }
}

/// A header value marked sensitive, so reqwest and its users keep it out of debug output.
fn sensitive_header<E>(value: String) -> Result<HeaderValue, Box<Error<E>>> {
    let mut value = HeaderValue::from_str(&value).map_err(|_| {
        Box::new(Error::InvalidRequest(
            "credentials contain characters not allowed in a header".into(),
        ))
    })?;
    value.set_sensitive(true);
    Ok(value)
}

impl MessagingInner {
    /// Adds the service token to the request, as a header or in the query.
    fn authorize<E>(&self, request: &mut reqwest::Request) -> Result<(), Box<Error<E>>> {
        match &self.auth {
            MessagingAuth::Bearer(token) => {
                request
                    .headers_mut()
                    .insert(AUTHORIZATION, sensitive_header(format!("Bearer {token}"))?);
            }
            MessagingAuth::QueryToken(token) => {
                request
                    .url_mut()
                    .query_pairs_mut()
                    .append_pair("service_token", token);
            }
        }
        Ok(())
    }
}

impl ManagementInner {
    /// Adds the Basic `customer_id:management_key` header to the request.
    fn authorize<E>(&self, request: &mut reqwest::Request) -> Result<(), Box<Error<E>>> {
        let encoded = base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", self.customer_id, self.management_key));
        request
            .headers_mut()
            .insert(AUTHORIZATION, sensitive_header(format!("Basic {encoded}"))?);
        Ok(())
    }
}

/// The hooks of both clients are the same but for how the inner value authorizes a request,
/// and the trait is foreign to both client types, so one macro writes the two impls.
macro_rules! client_hooks {
    ($client:ty, $inner:ty) => {
        impl ClientHooks<$inner> for $client {
            async fn pre<E>(
                &self,
                request: &mut reqwest::Request,
                _info: &OperationInfo,
            ) -> Result<(), Error<E>> {
                self.inner().authorize(request).map_err(|e| *e)
            }

            async fn exec(
                &self,
                request: reqwest::Request,
                info: &OperationInfo,
            ) -> reqwest::Result<reqwest::Response> {
                let limits = &self.inner().limits;
                let response = retry::execute_within(
                    self.client(),
                    request,
                    info.operation_id,
                    &self.inner().retry,
                    limits,
                )
                .await?;
                #[cfg(feature = "validate")]
                if self.inner().validate_responses {
                    return crate::validation::validated(
                        info.operation_id,
                        response,
                        limits.max_response_bytes,
                    )
                    .await;
                }
                Ok(response)
            }

            /// A validated answer without a JSON body that broke the spec, or passed the cap,
            /// fails here.
            #[cfg_attr(not(feature = "validate"), allow(unused_variables))]
            async fn post<E>(
                &self,
                result: &reqwest::Result<reqwest::Response>,
                _info: &OperationInfo,
            ) -> Result<(), Error<E>> {
                #[cfg(feature = "validate")]
                if let Some(message) = result
                    .as_ref()
                    .ok()
                    .and_then(crate::validation::failure_message)
                {
                    return Err(Error::Custom(message));
                }
                Ok(())
            }
        }

        impl $client {
            /// The body of an answer, read up to the client's cap, decoded as `T`: what
            /// progenitor's generated code calls in place of `ResponseValue::from_response`. A
            /// validating client checks the body against the spec in the same pass.
            pub(crate) async fn decode_response<T: serde::de::DeserializeOwned, E>(
                &self,
                response: reqwest::Response,
                info: &OperationInfo,
            ) -> Result<ResponseValue<T>, Error<E>> {
                let max = self.inner().limits.max_response_bytes;
                #[cfg(feature = "validate")]
                if self.inner().validate_responses {
                    return crate::validation::decoded(info.operation_id, response, max).await;
                }
                let status = response.status();
                let headers = response.headers().clone();
                let body = crate::limits::read_body(response, max, info.operation_id)
                    .await
                    .map_err(crate::limits::BodyError::into_error)?;
                match serde_json::from_slice(&body) {
                    Ok(inner) => Ok(ResponseValue::new(inner, status, headers)),
                    Err(error) => Err(Error::InvalidResponsePayload(body, error)),
                }
            }
        }
    };
}

client_hooks!(messaging::Client, MessagingInner);
client_hooks!(management::Client, ManagementInner);
