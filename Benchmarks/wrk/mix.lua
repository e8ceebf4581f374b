-- Workload 4: 80% GET state, 20% push or pop, over many sessions.
dofile(os.getenv("BENCH_DIR") .. "/wrk/sessions.lua")
local list, index, counter
local push_body = '{"route":"detail","params":{"id":7}}'
function init() list = my_sessions(); index = 0; counter = 0 end
function request()
  index = index % #list + 1
  counter = counter + 1
  local s = list[index]
  if counter % 5 ~= 0 then
    return wrk.format("GET", "/v1/sessions/" .. s.sid, auth(s))
  end
  s.pushed = not s.pushed
  if s.pushed then
    return wrk.format("POST", "/v1/sessions/" .. s.sid .. "/push", auth(s), push_body)
  end
  return wrk.format("POST", "/v1/sessions/" .. s.sid .. "/pop", auth(s), "{}")
end
