"""Writes a schemathesis.toml that knows what exists in a running demo service.

Without it, schemathesis mostly invents ids, so get, delete, cancel and the URL group and
index operations end at 404 and never reach their success paths. This lists the service's
DLQ ids, run ids, URL groups and index ids, and binds each path parameter to them with a
probability below 1, so the 404 paths stay covered too.

Usage: schemathesis-config.py BASE_URL SERVICE_TOKEN > schemathesis.toml
"""

import json
import sys
import urllib.request

base, token = sys.argv[1], sys.argv[2]


def get(path):
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


dlq_ids, run_ids = [], set()
cursor = None
while True:
    page = get("/v2/workflows/dlq?count=100" + (f"&cursor={cursor}" if cursor else ""))
    for message in page["messages"]:
        dlq_ids.append(message["dlqId"])
        run_ids.add(message["workflowRunId"])
    cursor = page.get("cursor")
    if not cursor:
        break
if not dlq_ids:
    sys.exit("the service has no DLQ entries: start it with --demo")

# The demo's URL groups and index (crates/service/src/demo.rs).
dictionaries = {
    "dlq-ids": dlq_ids,
    "run-ids": sorted(run_ids),
    "url-groups": ["orders", "notifications"],
    "index-ids": ["6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10"],
}
bindings = [
    ("getWorkflowDlq", "path.dlqId", "dlq-ids"),
    ("deleteDlqMessage", "path.dlqId", "dlq-ids"),
    ("deleteWorkflowDlqMessage", "path.dlqId", "dlq-ids"),
    ("cancelWorkflowRun", "path.workflowRunId", "run-ids"),
    ("getUrlGroup", "path.urlGroupName", "url-groups"),
    ("getSearchIndex", "path.id", "index-ids"),
    ("getSearchIndexStats", "path.id", "index-ids"),
]

print("# Written by scripts/schemathesis-config.py for one run; not committed.")
for name, values in dictionaries.items():
    print(f"\n[dictionaries.{name}]\nvalues = {json.dumps(values)}")
# A bulk cancel needs `workflowRunIds` or at least one filter (every parameter is optional on
# its own; OpenAPI 3.0 cannot say "one of these"), so its request with none is a documented 400
# the positive-data check must accept (it would call it a rejected valid request).
print(
    '\n[[operations]]\ninclude-operation-id = "cancelWorkflowRuns"\n'
    "checks.positive_data_acceptance.expected-statuses = [\"2XX\", 400, 401, 404, 429]"
)
for operation, parameter, dictionary in bindings:
    print(
        f'\n[[operations]]\ninclude-operation-id = "{operation}"\n'
        f'parameters = {{ "{parameter}" = {{ dictionary = "{dictionary}", probability = 0.8 }} }}'
    )
