//! `ManagementApi`, the management interface: search indexes, statistics and the rotation of
//! the messaging credentials, for the holder of the customer id and management key.

use super::{Service, found_or_404, internal, store_failure, write_failure};
use crate::account::rotated_credentials;
use crate::stats;
use crate::store::StoreError;
use crate::time::now_ms;
use courier_server::auth::constant_time_eq;
use courier_server::runtime::error_body;
use courier_server::{
    GetAccountStatsRequest, GetAccountStatsResponse, GetSearchIndexRequest, GetSearchIndexResponse,
    GetSearchIndexStatsRequest, GetSearchIndexStatsResponse, ManagementApi, ManagementCredentials,
    RotateTokenRequest, RotateTokenResponse, Unauthorized,
};

impl ManagementApi for Service {
    type Principal = ();

    async fn authenticate(&self, credentials: ManagementCredentials) -> Result<(), Unauthorized> {
        self.refresh_account().await;
        let account = self.record();
        // Both comparisons always run, so timing does not tell which half was wrong.
        let user_ok = constant_time_eq(&credentials.username, &account.account.customer_id);
        let key_ok = constant_time_eq(&credentials.password, &account.management_key);
        if user_ok & key_ok {
            Ok(())
        } else {
            Err(Unauthorized::basic(
                "the customer id or management key is not valid",
            ))
        }
    }

    async fn get_search_index(
        &self,
        _: (),
        GetSearchIndexRequest { id: index_id }: GetSearchIndexRequest,
    ) -> GetSearchIndexResponse {
        let id = index_id.clone();
        let now = now_ms();
        let result = self
            .blocking(move |store| {
                let Some(mut index) = store.index(&id)? else {
                    return Ok(None);
                };
                index.throughput_vector = stats::index_throughput(store, &id, now)?;
                Ok(Some(index))
            })
            .await;
        found_or_404!(
            GetSearchIndexResponse,
            result,
            "reading a search index",
            format!("no search index with id `{}`", index_id)
        )
    }

    async fn get_search_index_stats(
        &self,
        _: (),
        GetSearchIndexStatsRequest {
            id: index_id,
            period,
        }: GetSearchIndexStatsRequest,
    ) -> GetSearchIndexStatsResponse {
        let id = index_id.clone();
        let now = now_ms();
        let result = self
            .blocking(move |store| match store.index(&id)? {
                Some(_) => stats::index_stats(store, &id, period, now).map(Some),
                None => Ok(None),
            })
            .await;
        found_or_404!(
            GetSearchIndexStatsResponse,
            result,
            "computing index statistics",
            format!("no search index with id `{}`", index_id)
        )
    }

    async fn get_account_stats(
        &self,
        _: (),
        GetAccountStatsRequest { period }: GetAccountStatsRequest,
    ) -> GetAccountStatsResponse {
        if let Err(error) = self.flush_usage().await {
            tracing::warn!(%error, "usage flush before statistics failed; the figures may lag");
        }
        let floor = self.retention_floor();
        let now = now_ms();
        let result = self
            .blocking(move |store| {
                let count = store.dlq_count(floor)?;
                stats::account_stats(store, period, now, count)
            })
            .await;
        match result {
            Ok(stats) => GetAccountStatsResponse::Ok(stats),
            Err(error) => store_failure!(
                GetAccountStatsResponse,
                "computing account statistics",
                error
            ),
        }
    }

    async fn rotate_token(
        &self,
        _: (),
        RotateTokenRequest {}: RotateTokenRequest,
    ) -> RotateTokenResponse {
        let customer_id = self.account().customer_id;
        let (token, password) = rotated_credentials(&customer_id);
        match self
            .blocking(move |store| store.rotate_credentials(&token, &password))
            .await
        {
            Ok(account) => {
                // The store committed first: a crash between the two leaves the new token durable.
                self.set_account(account.clone());
                tracing::info!("messaging credentials rotated");
                RotateTokenResponse::Ok(account)
            }
            Err(error) => write_failure!(RotateTokenResponse, "rotating credentials", error),
        }
    }
}
