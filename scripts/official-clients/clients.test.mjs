// The official JavaScript clients, unchanged, against a running `courier serve --demo` (decision
// 19). Run by scripts/official-clients.sh with COURIER_BASE_URL, COURIER_ADMIN_URL and
// COURIER_ADMIN_TOKEN set; every call that touches the interface's operations or their aliases.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client as WorkflowClient } from "@upstash/workflow";
import {
  Client as QstashClient,
  QstashError,
  QstashRatelimitError,
  QstashDailyRatelimitError,
} from "@upstash/qstash";

const baseUrl = process.env.COURIER_BASE_URL;
const token = "demo-service-token";
const workflow = new WorkflowClient({ baseUrl, token });
const qstash = new QstashClient({ baseUrl, token, retry: false });

async function admin(method, path, body) {
  const response = await fetch(`${process.env.COURIER_ADMIN_URL}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${process.env.COURIER_ADMIN_TOKEN}`,
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function raw(path) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return response.json();
}

async function listAll(filter) {
  const seen = [];
  let cursor;
  do {
    const page = await workflow.dlq.list({ count: 37, cursor, filter });
    seen.push(...page.messages);
    cursor = page.cursor;
  } while (cursor);
  return seen;
}

async function seed(label, count, extra = {}) {
  const now = Date.now();
  const entries = Array.from({ length: count }, (_, i) => ({
    url: "https://app.example/api/wf/step",
    method: "POST",
    maxRetries: 3,
    createdAt: now + i,
    workflowRunId: `wfr_${label}_${i}`,
    workflowCreatedAt: now - 1000,
    workflowUrl: `https://app.example/api/${label}`,
    labels: [label],
    callerIP: "192.0.2.7",
    failureCallbackInfo: { state: "CALLBACK_FAIL", responseStatus: 500 },
    ...extra,
  }));
  return (await admin("POST", "/admin/v1/dlq", entries)).dlqIds;
}

test("workflow dlq.list pages through every entry, with and without filters", async () => {
  const all = await listAll();
  assert.equal(all.length, 300, "the demo's 300 failed runs");
  assert.equal(new Set(all.map((m) => m.dlqId)).size, 300, "no repeats across pages");
  const billing = await listAll({ label: "billing" });
  const expected = await raw("/v2/workflows/dlq?label=billing&count=100");
  assert.ok(billing.length > 0);
  assert.deepEqual(
    billing.slice(0, expected.messages.length).map((m) => m.dlqId),
    expected.messages.map((m) => m.dlqId),
  );
  const failing = await listAll({ failureFunctionState: "CALLBACK_FAIL", callerIp: ["192.0.2.44"] });
  for (const message of failing) {
    assert.equal(message.failureCallbackInfo.state, "CALLBACK_FAIL");
    assert.equal(message.callerIP, "192.0.2.44");
    assert.ok(message.messageId, "listed entries carry messageId");
  }
  const since = await listAll({ fromDate: new Date(Date.now() - 3600_000) });
  assert.ok(since.length <= 300);
});

test("workflow dlq.delete: one id, several ids, a filter", async () => {
  const ids = await seed("jsdelete", 5);
  assert.equal((await workflow.dlq.delete(ids[0])).deleted, 1);
  assert.equal((await workflow.dlq.delete([ids[1], ids[2]])).deleted, 2);
  const byFilter = await workflow.dlq.delete({ filter: { label: "jsdelete" } });
  assert.equal(byFilter.deleted, 2);
  assert.equal(byFilter.cursor, undefined);
  assert.equal((await listAll({ label: "jsdelete" })).length, 0);
});

test("workflow cancel: by ids, by URL prefix, and an unknown run", async () => {
  await seed("jscancel", 3);
  await seed("jscancelother", 2);
  const byIds = await workflow.cancel({ ids: ["wfr_jscancel_0", "wfr_jscancel_1"] });
  assert.equal(byIds.cancelled, 2);
  const byPrefix = await workflow.cancel({ urlStartingWith: "https://app.example/api/jscancel" });
  assert.equal(byPrefix.cancelled, 3, "jscancel_2 and both jscancelother runs");
  assert.equal((await listAll({ label: "jscancel" })).length, 0);
  assert.deepEqual(await workflow.cancel({ ids: "wfr_never" }), { cancelled: 0 });
});

test("workflow dlq resume, restart and retryFailureFunction answer a clear 501", async () => {
  const [id] = await seed("jsresume", 1);
  for (const call of [
    () => workflow.dlq.resume({ dlqId: id }),
    () => workflow.dlq.restart({ dlqId: id }),
    () => workflow.dlq.retryFailureFunction({ dlqId: id }),
  ]) {
    await assert.rejects(call, (error) => {
      assert.ok(error instanceof QstashError, String(error));
      assert.equal(error.status, 501);
      assert.match(error.message, /delivery engine/);
      return true;
    });
  }
});

test("qstash URL groups and DLQ delete one", async () => {
  const group = await qstash.urlGroups.get("orders");
  assert.equal(group.name, "orders");
  assert.ok(group.endpoints.length > 0);
  await assert.rejects(() => qstash.urlGroups.get("no-such-group"), (error) => error.status === 404);
  const [id] = await seed("jsqstash", 1);
  await qstash.dlq.delete(id);
  await assert.rejects(() => qstash.dlq.delete(id), (error) => error.status === 404);
});

test("bad input is a 400 the client reports", async () => {
  await assert.rejects(
    () => workflow.dlq.list({ filter: { responseStatus: 500 } }),
    (error) => error.status === 400 && /responseStatus/.test(error.message),
  );
});

test("the two 429 classes: per second and daily", async () => {
  await admin("PATCH", "/admin/v1/account", { max_requests_per_second: 1 });
  let perSecond;
  for (let i = 0; i < 10 && !perSecond; i++) {
    try {
      await qstash.urlGroups.get("orders");
    } catch (error) {
      perSecond = error;
    }
  }
  assert.ok(perSecond instanceof QstashRatelimitError, `per-second: ${perSecond}`);
  assert.ok(!(perSecond instanceof QstashDailyRatelimitError));
  await admin("PATCH", "/admin/v1/account", { max_requests_per_second: 1000, max_requests_per_day_hard: 1 });
  let daily;
  try {
    await qstash.urlGroups.get("orders");
  } catch (error) {
    daily = error;
  }
  assert.ok(daily instanceof QstashDailyRatelimitError, `daily: ${daily}`);
  await admin("PATCH", "/admin/v1/account", { max_requests_per_day_hard: 2000000 });
});
