#!/usr/bin/env bash
# real-servers.sh start|stop: a throwaway PostgreSQL and Redis on
# 127.0.0.1, for trying the lab's real engine and its two-instance
# deployment by hand (the tests start their own: internal/servers).
#
#   eval "$(scripts/real-servers.sh start)"   # exports LAB_POSTGRES_URL, LAB_REDIS_URL
#   go run ./cmd/lab conform --engine real
#   scripts/real-servers.sh stop
#
# Needs Debian's postgresql and redis-server (apt-get install -y postgresql
# redis-server). Data lives in $LAB_SERVERS_DIR (default
# /tmp/lab-real-servers), without fsync or persistence: for trying only.
# Ports: $LAB_PG_PORT (default 55432) and $LAB_REDIS_PORT (default 56379).
set -euo pipefail
dir="${LAB_SERVERS_DIR:-/tmp/lab-real-servers}"
pgport="${LAB_PG_PORT:-55432}"
redisport="${LAB_REDIS_PORT:-56379}"

bin="$(pg_config --bindir 2>/dev/null || true)"
if [[ ! -x "$bin/initdb" ]]; then
	bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
fi

# PostgreSQL refuses to run as root: run its programs as postgres.
as_pg() {
	if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
	[[ -x "$bin/initdb" ]] || { echo "no PostgreSQL found: apt-get install -y postgresql" >&2; exit 2; }
	command -v redis-server >/dev/null || { echo "no redis-server found: apt-get install -y redis-server" >&2; exit 2; }
	mkdir -p "$dir"
	[[ $(id -u) == 0 ]] && chown postgres: "$dir"
	if [[ ! -d "$dir/pg" ]]; then
		as_pg "$bin/initdb" -D "$dir/pg" -U postgres --auth=trust --no-sync -E UTF8 >"$dir/initdb.log"
	fi
	as_pg "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w start \
		-o "-p $pgport -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" >/dev/null
	redis-server --port "$redisport" --bind 127.0.0.1 --save '' --appendonly no \
		--dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" >/dev/null
	echo "export LAB_POSTGRES_URL='postgres://postgres@127.0.0.1:$pgport/postgres?sslmode=disable'"
	echo "export LAB_REDIS_URL='redis://127.0.0.1:$redisport/0'"
	;;
stop)
	[[ -d "$dir/pg" ]] && as_pg "$bin/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null || true
	[[ -f "$dir/redis.pid" ]] && kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
	rm -rf "$dir"
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
