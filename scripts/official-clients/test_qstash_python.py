"""The official Python client (`qstash`), unchanged, against a running `courier serve --demo`.

Run by scripts/official-clients.sh with COURIER_BASE_URL, COURIER_ADMIN_URL and
COURIER_ADMIN_TOKEN set. The Python client reaches two of the interface's operations (URL group
get, DLQ delete one) and reports the two 429 classes of `docs/decisions.md#d18-rate-limit-headers`.
"""

import json
import os
import time
import urllib.request

import pytest
from qstash import QStash
from qstash.errors import DailyMessageLimitExceededError, QStashError, RateLimitExceededError

BASE = os.environ["COURIER_BASE_URL"]
client = QStash("demo-service-token", base_url=BASE, retry=False)


def admin(method, path, body):
    request = urllib.request.Request(
        os.environ["COURIER_ADMIN_URL"] + path,
        data=json.dumps(body).encode(),
        method=method,
        headers={
            "authorization": "Bearer " + os.environ["COURIER_ADMIN_TOKEN"],
            "content-type": "application/json",
        },
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def test_url_group_get_and_unknown_group():
    group = client.url_group.get("orders")
    assert group.name == "orders"
    assert group.endpoints
    with pytest.raises(QStashError, match="404"):
        client.url_group.get("no-such-group")


def test_dlq_delete_one():
    now = int(time.time() * 1000)
    [dlq_id] = admin(
        "POST",
        "/admin/v1/dlq",
        [{
            "url": "https://app.example/wf/step", "method": "POST", "maxRetries": 1,
            "createdAt": now, "workflowRunId": "wfr_py_1", "workflowCreatedAt": now,
            "workflowUrl": "https://app.example/wf",
        }],
    )["dlqIds"]
    client.dlq.delete(dlq_id)
    with pytest.raises(QStashError, match="404"):
        client.dlq.delete(dlq_id)


def test_the_two_rate_limit_errors():
    admin("PATCH", "/admin/v1/account", {"max_requests_per_second": 1})
    with pytest.raises(RateLimitExceededError) as per_second:
        for _ in range(10):
            client.url_group.get("orders")
    assert not isinstance(per_second.value, DailyMessageLimitExceededError)
    admin("PATCH", "/admin/v1/account", {"max_requests_per_second": 1000, "max_requests_per_day_hard": 1})
    try:
        with pytest.raises(DailyMessageLimitExceededError):
            client.url_group.get("orders")
    finally:
        admin("PATCH", "/admin/v1/account", {"max_requests_per_day_hard": 2000000})
