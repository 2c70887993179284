-- wrk script for bench/run.sh: GET /v2/workflows/dlq/{dlqId} with ids drawn at random from
-- the file named by BENCH_IDS (one dlqId a line, written by `courier-fill --ids-file`).
local ids = {}
local file = assert(io.open(os.getenv("BENCH_IDS"), "r"))
for line in file:lines() do
  if #line > 0 then ids[#ids + 1] = line end
end
file:close()
assert(#ids > 0, "no ids in " .. os.getenv("BENCH_IDS"))
local headers = { ["Authorization"] = "Bearer " .. (os.getenv("BENCH_TOKEN") or "bench-service-token") }

request = function()
  return wrk.format("GET", "/v2/workflows/dlq/" .. ids[math.random(1, #ids)], headers)
end
