-- Workload 3: create a session, then delete it (each thread queues the deletes it owes).
local pending = {}
local create_body = '{"graph":"demo"}'
function request()
  local owed = table.remove(pending)
  if owed then
    return wrk.format("DELETE", "/v1/sessions/" .. owed.sid,
      { ["Authorization"] = "Bearer " .. owed.token })
  end
  return wrk.format("POST", "/v1/sessions", { ["Content-Type"] = "application/json" }, create_body)
end
function response(status, headers, body)
  if status == 201 then
    local sid = body:match('"session":{"id":"([^"]+)"')
    local token = body:match('"token":"([^"]+)"')
    if sid and token then pending[#pending + 1] = { sid = sid, token = token } end
  end
end
