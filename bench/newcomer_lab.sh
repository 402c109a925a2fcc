#!/usr/bin/env bash
# The newcomer's clock: a fresh clone, empty pip and npm caches, and `./dev lab` until JupyterLab answers /api/status.
#   bench/newcomer_lab.sh [REPOSITORY]   (default: this checkout's committed HEAD)
# Nothing else is timed: the clone is made before the clock starts, and the lab is stopped once it answers.
set -euo pipefail
repository=${1:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d)
git clone --quiet "$repository" "$work/clone"
export PIP_CACHE_DIR=$work/pip-cache npm_config_cache=$work/npm-cache
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start=$(date +%s)
(cd "$work/clone" && exec ./dev lab --ip=127.0.0.1 --port="$port" --IdentityProvider.token=newcomer) \
  > "$work/dev-lab.log" 2>&1 &
lab=$!
until curl --silent --fail "http://127.0.0.1:$port/api/status?token=newcomer" > /dev/null; do
  if ! kill -0 "$lab" 2> /dev/null; then
    echo "./dev lab stopped before JupyterLab answered:" >&2
    tail -20 "$work/dev-lab.log" >&2
    exit 1
  fi
  sleep 1
done
echo "JupyterLab answered $(( $(date +%s) - start )) s after ./dev lab started (log: $work/dev-lab.log)"
kill "$lab"
