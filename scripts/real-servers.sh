#!/usr/bin/env bash
# real-servers.sh start|stop: a throwaway PostgreSQL and Redis on
# 127.0.0.1, for trying the lab's real engine and its two-instance
# deployment by hand (the tests start their own: internal/servers).
#
#   eval "$(scripts/real-servers.sh start)"   # exports LAB_POSTGRES_URL, LAB_REDIS_URL
#   go run ./cmd/lab conform --engine real
#   scripts/real-servers.sh stop
#
# real-servers.sh start-rabbitmq|stop-rabbitmq: a throwaway RabbitMQ node
# on 127.0.0.1, for the real broker (it takes a few seconds to boot):
#
#   eval "$(scripts/real-servers.sh start-rabbitmq)"   # exports LAB_RABBITMQ_URL
#   go run ./cmd/lab conform --broker "$LAB_RABBITMQ_URL"
#   scripts/real-servers.sh stop-rabbitmq              # stop stops it too
#
# RabbitMQ needs Debian's rabbitmq-server (apt-get install -y
# rabbitmq-server; then `service rabbitmq-server stop` if the package
# started its own). Its node (lab-servers@localhost) keeps everything in
# $LAB_SERVERS_DIR/rabbitmq, with no plugins; its port is
# $LAB_RABBITMQ_PORT (default 55672), its distribution port the next one.
#
# Needs Debian's postgresql and redis-server (apt-get install -y postgresql
# redis-server). Data lives in $LAB_SERVERS_DIR (default
# /tmp/lab-real-servers), without fsync or persistence: for trying only.
# Ports: $LAB_PG_PORT (default 55432) and $LAB_REDIS_PORT (default 56379).
set -euo pipefail
dir="${LAB_SERVERS_DIR:-/tmp/lab-real-servers}"
pgport="${LAB_PG_PORT:-55432}"
redisport="${LAB_REDIS_PORT:-56379}"
rabbitport="${LAB_RABBITMQ_PORT:-55672}"
rabbitdir="$dir/rabbitmq"

bin="$(pg_config --bindir 2>/dev/null || true)"
if [[ ! -x "$bin/initdb" ]]; then
	bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
fi

# PostgreSQL refuses to run as root: run its programs as postgres.
as_pg() {
	if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# stop_rabbitmq stops the node start-rabbitmq started, if it runs.
stop_rabbitmq() {
	if [[ -f "$rabbitdir/pid" ]]; then
		pid="$(cat "$rabbitdir/pid")"
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -rf "$rabbitdir"
}

case "${1:-}" in
start-rabbitmq)
	# Debian's start script, not the /usr/sbin wrapper (which, as root,
	# runs the node as the rabbitmq user through su).
	rabbit=/usr/lib/rabbitmq/bin/rabbitmq-server
	[[ -x "$rabbit" ]] || rabbit="$(command -v rabbitmq-server || true)"
	[[ -n "$rabbit" ]] || { echo "no rabbitmq-server found: apt-get install -y rabbitmq-server" >&2; exit 2; }
	stop_rabbitmq
	mkdir -p "$rabbitdir"
	printf 'loopback_users = none\nlog.console = false\n' >"$rabbitdir/rabbitmq.conf"
	echo '[].' >"$rabbitdir/enabled_plugins"
	(
		cd "$rabbitdir"
		export HOME="$rabbitdir" RABBITMQ_NODENAME=lab-servers@localhost RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
			RABBITMQ_NODE_PORT="$rabbitport" RABBITMQ_DIST_PORT="$((rabbitport + 1))" \
			RABBITMQ_CONFIG_FILE="$rabbitdir/rabbitmq.conf" RABBITMQ_ADVANCED_CONFIG_FILE="$rabbitdir/advanced.config" \
			RABBITMQ_CONF_ENV_FILE="$rabbitdir/rabbitmq-env.conf" RABBITMQ_ENABLED_PLUGINS_FILE="$rabbitdir/enabled_plugins" \
			RABBITMQ_MNESIA_BASE="$rabbitdir/mnesia" RABBITMQ_LOG_BASE="$rabbitdir/log" \
			RABBITMQ_ALLOW_INPUT=1 RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-noinput
		# ALLOW_INPUT: the script execs the Erlang VM, so $! is the node.
		nohup "$rabbit" </dev/null >"$rabbitdir/out" 2>&1 &
		echo $! >"$rabbitdir/pid"
	)
	for _ in $(seq 1 1200); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$rabbitport") 2>/dev/null; then
			echo "export LAB_RABBITMQ_URL='amqp://guest:guest@127.0.0.1:$rabbitport/'"
			exit 0
		fi
		kill -0 "$(cat "$rabbitdir/pid")" 2>/dev/null || break
		sleep 0.1
	done
	echo "rabbitmq-server did not start; its output:" >&2
	cat "$rabbitdir/out" >&2
	stop_rabbitmq
	exit 1
	;;
stop-rabbitmq)
	stop_rabbitmq
	;;
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
	stop_rabbitmq
	[[ -d "$dir/pg" ]] && as_pg "$bin/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null || true
	[[ -f "$dir/redis.pid" ]] && kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
	rm -rf "$dir"
	;;
*)
	echo "usage: $0 start|stop|start-rabbitmq|stop-rabbitmq" >&2
	exit 2
	;;
esac
