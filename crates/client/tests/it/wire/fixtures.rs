//! Canned bodies, each valid for its operation.

use super::*;

pub(super) fn dlq_message_json() -> Value {
    json!({
        "dlqId": "dlq-0001",
        "workflowUrl": "https://app.example/api/workflow",
        "workflowRunId": "wfr_1",
        "workflowCreatedAt": 1_700_000_000_000_i64,
        "url": "https://app.example/api/workflow/step-2",
        "method": "POST",
        "header": {"Content-Type": ["application/json"], "X-Multi": ["a", "b"]},
        "body": "{\"order\":7}",
        "maxRetries": 3,
        "createdAt": 1_700_000_000_500_i64,
        "failureCallback": "https://app.example/api/failed",
        "callerIP": "10.0.0.1",
        "label": "billing",
        "labels": ["billing", "eu, west"],
        "flowControlKey": "fck",
        "failureFunctionState": "CALLBACK_FAIL",
        "responseStatus": 502,
        "responseHeader": {"Retry-After": ["5"]},
        "responseBody": "bad gateway"
    })
}

pub(super) fn failed_run_json() -> Value {
    json!({
        "messageId": "msg_9",
        "dlqId": "dlq 1/a",
        "url": "https://app.example/api/workflow/step-1",
        "method": "POST",
        "header": {"Upstash-Workflow-RunId": ["wfr_9"]},
        "maxRetries": 5,
        "notBefore": 1_700_000_000_100_i64,
        "createdAt": 1_700_000_000_000_i64,
        "failureCallback": "https://app.example/api/failed",
        "failureCallbackHeader": {"X-Callback": ["yes"]},
        "callerIP": "10.0.0.9",
        "workflowRunId": "wfr_9",
        "workflowCreatedAt": 1_699_999_999_000_i64,
        "workflowUrl": "https://app.example/api/workflow",
        "responseStatus": 500,
        "responseHeader": {"Content-Type": ["text/plain"]},
        "responseBodyBase64": "AAEC",
        "bodyBase64": "/w==",
        "labels": ["batch"],
        "failureCallbackInfo": {
            "state": "CALLBACK_SUCCESS",
            "responseStatus": 200,
            "responseBody": "ok",
            "responseHeaders": {"Content-Length": ["2"]}
        }
    })
}

pub(super) fn url_group_json() -> Value {
    json!({
        "createdAt": 1_700_000_000_000_i64,
        "updatedAt": 1_700_000_100_000_i64,
        "name": "my group/eu",
        "endpoints": [
            {"name": "primary", "url": "https://a.example/hook"},
            {"name": "backup", "url": "https://b.example/hook"}
        ]
    })
}

pub(super) fn search_index_json() -> Value {
    json!({
        "customer_id": CUSTOMER_ID,
        "id": "3f6c1b9e-8a4d-4c2e-9b7a-1d2e3f4a5b6c",
        "name": "products",
        "endpoint": "products-eu.search.example",
        "type": "payg",
        "region": "eu-west-1",
        "hosting_email": "",
        "token": "<INDEX_TOKEN>",
        "read_only_token": "<INDEX_READ_ONLY_TOKEN>",
        "max_vector_count": 200_000_000,
        "max_monthly_reranks": -1,
        "max_daily_updates": -1,
        "max_daily_queries": 1_000_000,
        "max_monthly_bandwidth": -1,
        "max_writes_per_second": 1000,
        "max_query_per_second": 1000,
        "max_reads_per_request": 1000,
        "max_writes_per_request": 1000,
        "creation_time": 1_700_000_000,
        "input_enrichment_enabled": true,
        "throughput_vector": [{"x": "2025-10-23 17:34:00.000 +0000 UTC", "y": 4.5}]
    })
}

pub(super) fn index_stats_json() -> Value {
    let mut stats = json!({
        "pending_index_count": 2,
        "current_vector_count": 1500,
        "daily_query_count": 40,
        "daily_update_count": 12,
        "monthly_query_count": 900,
        "monthly_update_count": 300,
        "monthly_bandwidth_usage": 1_048_576,
        "storage_usage": 52_428_800,
        "daily_rerank_count": 1,
        "monthly_rerank_count": 7,
        "monthly_cost": 12.5,
        "days": ["Mon", "Tue"]
    });
    let series = [
        "daily_update_requests",
        "daily_query_requests",
        "daily_bandwidths",
        "query_throughput",
        "update_throughput",
        "query_latency_mean",
        "query_latency_99",
        "update_latency_mean",
        "update_latency_99",
        "embeds_latency_mean",
        "embeds_latency_99",
        "vector_count",
        "data_size",
        "daily_rerank_requests",
        "rerank_latency_mean",
        "rerank_latency_99",
    ];
    for (i, name) in series.into_iter().enumerate() {
        stats[name] = json!([{"x": "2025-10-23 15:00:00.000 +0000 UTC", "y": i as f64 + 0.5}]);
    }
    stats
}

pub(super) fn account_stats_json() -> Value {
    let point = |y: f64| json!([{"x": "2025-10-01 11:33:05.585757103 +0000 UTC", "y": y}]);
    json!({
        "days": ["Wed", "Thu"],
        "daily_requests": [{
            "x": "2025-10-01 00:00:00.000 +0000 UTC", "y": 10.0,
            "workflow_message": 4.0, "workflow_run": 2.0
        }],
        "daily_billings": point(0.25),
        "daily_bandwidths": point(2048.0),
        "daily_used": point(10.0),
        "daily_used_workflow": point(6.0),
        "daily_svc_messages": [{"id": "delivered", "data_points": point(8.0)}],
        "daily_workflow_messages": [{"id": "run_failed", "data_points": point(1.0)}],
        "dlq_message_count": 3,
        "daily_bandwidth_used": point(512.0),
        "total_monthly_billing": 1.75
    })
}

pub(super) fn account_json() -> Value {
    json!({
        "customer_id": CUSTOMER_ID,
        "id": "0b9d4c1e-2f3a-4b5c-8d6e-7f8091a2b3c4",
        "password": "<PASSWORD>",
        "token": "new-service-token",
        "active": true,
        "state": "active",
        "last_plan_upgrade_time": 1_690_000_000,
        "max_message_size": 1_048_576,
        "max_requests_per_day": 500_000,
        "max_requests_per_day_hard": 1_000_000,
        "max_endpoints_per_topic": 100,
        "max_requests_per_second": 100,
        "max_dlq_size": 10_000,
        "max_retries": 5,
        "max_topics": 1000,
        "max_schedules": 1000,
        "max_events_size": 10_000,
        "max_dlq_retention_time_milis": 604_800_000_i64,
        "max_delay": 604_800,
        "max_parallelism": 10,
        "max_global_parallelism": 100,
        "max_queues": 100,
        "prod_pack_enabled": false,
        "timeout": 15,
        "type": "paid",
        "reserved_type": "",
        "reserved_price": 0.0,
        "created_by": "admin@example.com",
        "creation_time": 1_680_000_000
    })
}
