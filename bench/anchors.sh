# Sourced by bench/run.sh and bench/postgres.sh (their functions and variables in scope): the
# limits courier's answers are compared with, each sending the very bytes courier answered.
# nginx serves them from files in each configuration of $nginx_configs; courier-anchor
# (crates/bench) from memory. A row's limit is the fastest of them in the same run, so no ratio
# leans on a slow anchor.

# The nginx configurations tried (BENCH_NGINX_CONFIGS, names of nginx_config below); every one
# is run, each row keeps the fastest.
read -r -a nginx_configs <<<"${BENCH_NGINX_CONFIGS:-plain cached copy}"

# nginx_config NAME: the http-level directives of one way of sending files.
#   nopush  sendfile with tcp_nopush: whole packets, fewer of them (nginx's advice for large files)
#   plain   sendfile alone: each answer leaves as soon as it is written
#   cached  sendfile and an open-file cache: no open/stat per request
#   copy    no sendfile, an open-file cache, an output buffer that holds a whole list page: a
#           read and a write per answer, which for small files can beat sendfile's setup
nginx_config() {
  case "$1" in
    nopush) echo "sendfile on; tcp_nopush on;" ;;
    plain) echo "sendfile on;" ;;
    cached) echo "sendfile on; open_file_cache max=10000 inactive=600s; open_file_cache_valid 600s;" ;;
    copy) echo "sendfile off; output_buffers 1 256k; open_file_cache max=10000 inactive=600s; open_file_cache_valid 600s;" ;;
    *) echo "unknown nginx configuration $1" >&2; exit 2 ;;
  esac
}

# start_nginx ROOT CONFIG: nginx on $nginx_port serving files under ROOT as JSON (one worker per
# core, keep-alive without a request limit, no access log), and GET /v2/workflows/dlq (any
# query) as the file ROOT/list100.json, sending them as configuration CONFIG says.
start_nginx() {
  mkdir -p "$work/nginx"
  # Started as root, nginx's workers run as an unprivileged user: they must be able to read ROOT.
  chmod 755 "$work"
  cat >"$work/nginx/nginx.conf" <<CONF
worker_processes $(nproc);
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  $(nginx_config "$2")
  keepalive_requests 100000000;
  default_type application/json;
  client_body_temp_path $work/nginx/body;
  server {
    listen 127.0.0.1:$nginx_port;
    root $1;
    location = /v2/workflows/dlq { try_files /list100.json =404; }
  }
}
CONF
  "$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
  nginx_pid=$!
  wait_for_limit "nginx" "$work/nginx/error.log"
}

# start_anchor ROOT: courier-anchor on $nginx_port serving ROOT's files from memory, with the
# same paths as nginx. Its pid goes in nginx_pid, so one stop ends either limit.
start_anchor() {
  "$bin/courier-anchor" --root "$1" --listen "127.0.0.1:$nginx_port" >"$work/anchor.log" 2>&1 &
  nginx_pid=$!
  wait_for_limit "courier-anchor" "$work/anchor.log"
}

# wait_for_limit NAME LOG: waits (at most 5 s) until the limit on $nginx_port answers.
wait_for_limit() {
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/v2/workflows/dlq" && return 0
    sleep 0.05
  done
  echo "$1 did not start" >&2; cat "$2" >&2; exit 1
}

# The limits of one run, by name: "nginx/CONFIG" for each configuration, and "memory".
limits=()
for config in "${nginx_configs[@]}"; do limits+=("nginx/$config"); done
limits+=(memory)

# start_limit NAME ROOT: starts the limit NAME (one of $limits) on ROOT.
start_limit() {
  case "$1" in
    memory) start_anchor "$2" ;;
    nginx/*) start_nginx "$2" "${1#nginx/}" ;;
  esac
}

# save_answers BASE IDS LIST_PATH ROOT: saves under ROOT what courier at BASE answers for every
# get-one id in the file IDS and for LIST_PATH (as list100.json), then checks that every limit
# serves those very bytes, so no limit sends less than courier did.
save_answers() {
  local base=$1 ids=$2 list=$3 root=$4 limit probe
  mkdir -p "$root/v2/workflows/dlq"
  while read -r id; do
    curl -sf -H "$auth" -o "$root/v2/workflows/dlq/$id" "$base/v2/workflows/dlq/$id"
  done <"$ids"
  curl -sf -H "$auth" -o "$root/list100.json" "$base$list"
  for limit in "${limits[@]}"; do
    start_limit "$limit" "$root"
    for probe in "/v2/workflows/dlq/$(head -1 "$ids")" "$list"; do
      cmp -s <(curl -sf -H "$auth" "$base$probe") <(curl -sf "http://127.0.0.1:$nginx_port$probe") \
        || { echo "$limit does not serve courier's bytes for $probe" >&2; exit 1; }
    done
    stop nginx_pid
  done
}
