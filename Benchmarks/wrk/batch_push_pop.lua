-- Workload 2b: one batch per request, a push and its pop (what Benchmarks/instructions counts).
dofile(os.getenv("BENCH_DIR") .. "/wrk/sessions.lua")
local list, index
local batch_body = '{"ops":[{"op":"push","route":"detail","params":{"id":9}},{"op":"pop"}]}'
function init() list = my_sessions(); index = 0 end
function request()
  index = index % #list + 1
  return wrk.format("POST", "/v1/sessions/" .. list[index].sid .. "/batch", auth(list[index]),
    batch_body)
end
