-- Memory: create idle sessions of 3 coordinators (master, detail, detail) until each thread has
-- made its share (FILL_PER_THREAD), then only ask /healthz.
local quota = tonumber(os.getenv("FILL_PER_THREAD"))
local made, pending = 0, {}
local create_body = '{"graph":"demo"}'
local batch_body = '{"ops":[{"op":"push","route":"detail","params":{"id":1}},'
  .. '{"op":"push","route":"detail","params":{"id":2}}]}'
function request()
  local owed = table.remove(pending)
  if owed then
    return wrk.format("POST", "/v1/sessions/" .. owed.sid .. "/batch",
      { ["Authorization"] = "Bearer " .. owed.token, ["Content-Type"] = "application/json" },
      batch_body)
  end
  if made < quota then
    made = made + 1
    return wrk.format("POST", "/v1/sessions", { ["Content-Type"] = "application/json" }, create_body)
  end
  return wrk.format("GET", "/healthz")
end
function response(status, headers, body)
  if status == 201 then
    local sid = body:match('"session":{"id":"([^"]+)"')
    local token = body:match('"token":"([^"]+)"')
    if sid and token then pending[#pending + 1] = { sid = sid, token = token } end
  end
end
