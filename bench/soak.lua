-- wrk script for bench/soak.sh: a mixed workload on courier whose every request should succeed.
-- Per 20 requests: 1 admin insert of 5 volatile entries, 1 filtered bulk delete of volatile
-- entries (so the DLQ stays bounded), 6 unfiltered lists, 4 two-filter lists, 8 get-ones of
-- stable entries (soak-00000 .. soak-04999, never deleted). Volatile entries take their run ids
-- from a pool of 1000: the store keeps every run that entered the DLQ (cancel finds it), so a new
-- run id per entry would grow the data without bound and RSS with it, whatever the service does.
local token = os.getenv("SOAK_TOKEN") or "soak-service-token"
local admin = os.getenv("SOAK_ADMIN") or "soak-admin-token-0"
local auth = { ["Authorization"] = "Bearer " .. token }
local admin_headers = { ["Authorization"] = "Bearer " .. admin, ["Content-Type"] = "application/json" }
local counter = 0

local function volatile_batch()
  local entries = {}
  for i = 1, 5 do
    entries[i] = string.format(
      '{"url":"https://soak.example/step","method":"POST","workflowRunId":"wfr_soak_%03d",' ..
      '"workflowUrl":"https://soak.example/wf","workflowCreatedAt":1,"maxRetries":3,' ..
      '"labels":["soak-volatile"],"body":"{\\"n\\":%d}"}', (counter * 5 + i) % 1000, i)
  end
  return "[" .. table.concat(entries, ",") .. "]"
end

request = function()
  counter = counter + 1
  local k = counter % 20
  if k == 0 then
    return wrk.format("POST", "/admin/v1/dlq", admin_headers, volatile_batch())
  elseif k == 1 then
    return wrk.format("DELETE", "/v2/workflows/dlq?label=soak-volatile&count=50", auth)
  elseif k < 8 then
    return wrk.format("GET", "/v2/workflows/dlq?count=100", auth)
  elseif k < 12 then
    return wrk.format("GET", "/v2/workflows/dlq?count=100&label=soak-stable&callerIp=10.0.0.1", auth)
  else
    return wrk.format("GET", string.format("/v2/workflows/dlq/soak-%05d", math.random(0, 4999)), auth)
  end
end
