# Shared by bench/resp and bench/resp_scripts (sourced, not run): builds cairn-server, starts
# the servers on free loopback ports, stops them on exit, and formats the tables.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/install-deps"
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
build=${CAIRN_BUILD_DIR:-$root/build}  # Where to build cairn-server (default: build/).
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  >/dev/null
cmake --build "$build" --target cairn-server >/dev/null

requests=${REQUESTS:-100000}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Each start_* sets $port and records the server's pid for the cleanup. (Not called in $(…):
# the server would hold the substitution's pipe open.)
start_redis() {  # <name> [redis args...]
  local name=$1
  shift
  port=$(free_port)
  mkdir -p "$work/$name"
  redis-server --port "$port" --bind 127.0.0.1 --save "" --dir "$work/$name" \
    --logfile "$work/$name.log" "$@" >/dev/null 2>&1 &
  pids+=($!)
  until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done
}

start_cairn() {  # <name> <durability>
  local name=$1 durability=$2
  "$build/server/cairn-server" --port 0 --dir "$work/$name" --durability "$durability" \
    ${CAIRN_THREADS:+--threads "$CAIRN_THREADS"} \
    >"$work/$name.out" 2>"$work/$name.log" &
  pids+=($!)
  until grep -q "ready port=" "$work/$name.out" 2>/dev/null; do sleep 0.05; done
  port=$(sed -n 's/.*ready port=\([0-9]*\).*/\1/p' "$work/$name.out")
}

median() { tr ' ' '\n' <<<"$1" | { grep . || true; } | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
fmt() { awk -v a="$1" 'BEGIN { printf "%\047d", a }' 2>/dev/null || echo "$1"; }

