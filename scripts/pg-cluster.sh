#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for courier's PostgreSQL store: its tests, CI, or trying
# `courier serve --store` by hand.
#
#   bash scripts/pg-cluster.sh start DIR   creates a cluster in DIR (new or empty), starts it on a
#                                          free local port and prints its connection URL
#   bash scripts/pg-cluster.sh stop DIR    stops it and removes DIR
#   bash scripts/pg-cluster.sh pause DIR   stops the server, keeping its data (a database outage)
#   bash scripts/pg-cluster.sh resume DIR  starts it again on the same port
#
# The cluster listens on 127.0.0.1 only, with a generated password, and trades crash safety for
# speed (fsync off): its data is thrown away. With PG_CLUSTER_DURABLE=1 it keeps PostgreSQL's
# durable defaults instead (fsync, synchronous commits), as a benchmark against SQLite needs;
# PG_CLUSTER_OPTIONS adds server settings (`-c shared_buffers=1GB`). Installs PostgreSQL with apt when it is missing.
# Run as root, the server runs as the `postgres` user (it refuses root).
set -euo pipefail

action=${1:?usage: pg-cluster.sh start|stop|pause|resume DIR}
dir=${2:?usage: pg-cluster.sh start|stop|pause|resume DIR}

bin_dir() {
  if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
    dirname "$(command -v pg_ctl)"
    return
  fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$found" ]; then
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    found=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  echo "$found"
}

# Runs a PostgreSQL program as the cluster's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case $action in
  start)
    bin=$(bin_dir)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
      chown postgres "$dir"
      as_owner test -w "$dir" || {
        echo "pg-cluster.sh: the postgres user cannot reach $dir (a parent directory closed to it?); use a directory it can, e.g. under a world-searchable /tmp directory" >&2
        exit 1
      }
    fi
    password=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
    printf '%s\n' "$password" > "$dir/password"
    [ "$(id -u)" = 0 ] && chown postgres "$dir/password"
    as_owner "$bin/initdb" -D "$dir/data" -U courier -A scram-sha-256 --pwfile="$dir/password" \
      --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    rm -f "$dir/password"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [ "${PG_CLUSTER_DURABLE:-0}" = 1 ] && fast=""
    echo "-p $port -k $dir -c listen_addresses=127.0.0.1 $fast -c max_connections=300 ${PG_CLUSTER_OPTIONS:-}" > "$dir/options"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$(cat "$dir/options")" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://courier:$password@127.0.0.1:$port/postgres"
    ;;
  pause)
    as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  resume)
    as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$(cat "$dir/options")" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    ;;
  stop)
    if [ -d "$dir/data" ]; then
      as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: pg-cluster.sh start|stop|pause|resume DIR" >&2
    exit 2
    ;;
esac
