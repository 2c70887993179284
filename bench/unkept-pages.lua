-- wrk script for bench/run.sh: the list BENCH_LIST_PATH names, with a `fromDate` that no
-- request repeats (far below every entry's createdAt, so the page is the same entries), so the
-- service can never send a page it kept: every request reads the store.
local path = assert(os.getenv("BENCH_LIST_PATH"), "BENCH_LIST_PATH names the list")
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("first", threads * 1000000000)
end
function init(args)
  n = first
end
local headers = { ["Authorization"] = "Bearer " .. (os.getenv("BENCH_TOKEN") or "bench-service-token") }

request = function()
  n = n + 1
  return wrk.format("GET", path .. "&fromDate=" .. n, headers)
end
