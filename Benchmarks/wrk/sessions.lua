-- Shared by the workloads: each wrk thread gets its own slice of pre-made sessions
-- (a file of "sid token" lines written by tools/sessions.py), and cycles through them.
local sessions_file = os.getenv("SESSIONS_FILE")
local thread_count = tonumber(os.getenv("WRK_THREADS") or "2")
local next_thread = 0

function load_sessions()
  local all = {}
  for line in io.lines(sessions_file) do
    local sid, token = line:match("^(%S+) (%S+)$")
    if sid then all[#all + 1] = { sid = sid, token = token } end
  end
  return all
end

function setup(thread)
  local all = load_sessions()
  local mine = {}
  for i = next_thread + 1, #all, thread_count do
    mine[#mine + 1] = all[i].sid .. " " .. all[i].token
  end
  thread:set("slice", table.concat(mine, "\n"))
  thread:set("thread_index", next_thread)
  next_thread = next_thread + 1
end

function my_sessions()
  local list = {}
  for line in slice:gmatch("[^\n]+") do
    local sid, token = line:match("^(%S+) (%S+)$")
    list[#list + 1] = { sid = sid, token = token, pushed = false }
  end
  return list
end

function auth(session)
  return { ["Authorization"] = "Bearer " .. session.token,
           ["Content-Type"] = "application/json" }
end
