-- Workload 2: push+pop cycles; each session alternates a push and a pop.
dofile(os.getenv("BENCH_DIR") .. "/wrk/sessions.lua")
local list, index
local push_body = '{"route":"detail","params":{"id":7}}'
function init() list = my_sessions(); index = 0 end
function request()
  index = index % #list + 1
  local s = list[index]
  s.pushed = not s.pushed
  if s.pushed then
    return wrk.format("POST", "/v1/sessions/" .. s.sid .. "/push", auth(s), push_body)
  end
  return wrk.format("POST", "/v1/sessions/" .. s.sid .. "/pop", auth(s), "{}")
end
