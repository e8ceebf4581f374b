-- Workload 1: GET the state of a 4-deep session.
dofile(os.getenv("BENCH_DIR") .. "/wrk/sessions.lua")
local list, index
function init() list = my_sessions(); index = 0 end
function request()
  index = index % #list + 1
  local s = list[index]
  return wrk.format("GET", "/v1/sessions/" .. s.sid, auth(s))
end
