# Sourced by scripts that need a throwaway PostgreSQL:
#   start_postgres FOLDER [SETTING...]
# initdb into FOLDER/data (as the postgres user when run as root), then the postmaster on a free
# loopback port (no other address; its socket in FOLDER), each SETTING a `-c name=value`. Sets
#   postgres_pid  the postmaster's process id (stopped by `stop_postgres`, or with the script:
#                 it has a parent-death SIGKILL, after which its backends exit by themselves)
#   postgres_url  postgres://postgres@127.0.0.1:PORT/postgres
# stop_postgres stops it (fast shutdown; SIGKILL after 10 s) and removes FOLDER.
postgres_bin() {
  local newest
  newest=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
  [ -n "$newest" ] && [ "$newest" -ge 15 ] && [ -x "/usr/lib/postgresql/$newest/bin/postgres" ] \
    && echo "/usr/lib/postgresql/$newest/bin"
}

start_postgres() {
  local folder=$1 bin port as=()
  shift
  bin=$(postgres_bin) || { echo "PostgreSQL 15 or later is needed: apt-get install -y postgresql" >&2; return 1; }
  mkdir -p "$folder"
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$folder"
    as=(/usr/bin/setpriv --reuid=postgres --regid=postgres --init-groups)
  fi
  "${as[@]}" "$bin/initdb" -D "$folder/data" -A trust -U postgres -E UTF8 >"$folder/initdb.log" 2>&1 \
    || { cat "$folder/initdb.log" >&2; return 1; }
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  local settings=()
  for setting in "$@"; do settings+=(-c "$setting"); done
  # One setpriv for the user and the parent-death signal: a change of user clears the signal.
  [ ${#as[@]} -gt 0 ] || as=(/usr/bin/setpriv)
  "${as[@]}" --pdeathsig KILL -- "$bin/postgres" -D "$folder/data" \
    -c listen_addresses=127.0.0.1 -p "$port" -k "$folder" -c max_connections=200 "${settings[@]}" \
    >"$folder/postgres.log" 2>&1 &
  postgres_pid=$!
  postgres_folder=$folder
  postgres_url="postgres://postgres@127.0.0.1:$port/postgres"
  for _ in $(seq 600); do
    "$bin/psql" -X -q -d "$postgres_url" -c "SELECT 1" >/dev/null 2>&1 && return 0
    kill -0 "$postgres_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "PostgreSQL did not start:" >&2
  cat "$folder/postgres.log" >&2
  return 1
}

stop_postgres() {
  [ -n "${postgres_pid:-}" ] || return 0
  kill -INT "$postgres_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$postgres_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$postgres_pid" 2>/dev/null || true
  wait "$postgres_pid" 2>/dev/null || true
  postgres_pid=""
  [ -n "${postgres_folder:-}" ] && rm -rf "$postgres_folder"
}
