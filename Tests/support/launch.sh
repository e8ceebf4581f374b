# Sourced by every script that starts navstate (or any server that prints the same first line):
#   launch LOG SECONDS COMMAND...
# runs COMMAND in the background with its output in LOG, under `timeout SECONDS` (0: none, so
# that the process id is the server's own, for a SIGKILL) and with a parent-death signal where
# setpriv exists (so it cannot outlive the script), waits up to $LAUNCH_WAIT seconds (default
# 30) for its `listening on http://HOST:PORT` line, and sets:
#   launched_pid   its process id (stop it by this id)
#   launched_url   http://HOST:PORT
#   launched_port  PORT
# It fails, printing LOG, when no such line comes.
launch() {
  local log=$1 seconds=$2
  shift 2
  local with_parent=()
  [ -x /usr/bin/setpriv ] && with_parent=(/usr/bin/setpriv --pdeathsig KILL --)
  local limit=()
  [ "$seconds" = 0 ] || limit=(timeout -k 5 "$seconds")
  "${with_parent[@]}" "${limit[@]}" "$@" >"$log" 2>&1 &
  launched_pid=$!
  launched_url=""
  for _ in $(seq $((${LAUNCH_WAIT:-30} * 20))); do
    launched_url="$(sed -n 's/^listening on //p' "$log" | head -1)"
    [ -n "$launched_url" ] && break
    kill -0 "$launched_pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$launched_url" ]; then
    echo "$1 did not start:" >&2
    cat "$log" >&2
    return 1
  fi
  launched_port="${launched_url##*:}"
}
