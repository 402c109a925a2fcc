#!/usr/bin/env bash
# The newcomer's clock: a fresh clone, empty pip and npm caches, and `./dev lab` until JupyterLab answers /api/status.
#   bench/newcomer_lab.sh [REPOSITORY [REVISION]]   (default: this checkout's committed HEAD)
# Nothing else is timed: the clone is made before the clock starts. Each phase's end is read from what it leaves
# behind (the times of the stamps `./dev` writes and of the built extension), so any revision of `./dev` is timed the
# same way; pip and npm run side by side, the front-end build follows both.
# Once JupyterLab answers, the script checks what a newcomer opens (demo.ipynb served, the extension enabled and OK),
# then stops the lab and deletes the clone.
set -euo pipefail
repository=${1:-$(cd "$(dirname "$0")/.." && pwd)}
revision=${2:-}
work=$(mktemp -d)
clone=$work/clone
lab=
cleanup() {
  if [ -n "$lab" ] && kill -0 "$lab" 2> /dev/null; then kill "$lab"; wait "$lab" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
git clone --quiet "$repository" "$clone"
if [ -n "$revision" ]; then git -C "$clone" checkout --quiet "$revision"; fi
export PIP_CACHE_DIR=$work/pip-cache npm_config_cache=$work/npm-cache
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
load() { cut -d' ' -f1 /proc/loadavg; }
since_start() { if [ -e "$1" ]; then echo $(( $(stat -c %Y "$1") - start )); else echo '?'; fi; }
loads=()
start=$(date +%s)
(cd "$clone" && exec ./dev lab --ip=127.0.0.1 --port="$port" --IdentityProvider.token=newcomer) \
  > "$work/dev-lab.log" 2>&1 &
lab=$!
until curl --silent --fail "http://127.0.0.1:$port/api/status?token=newcomer" > /dev/null; do
  if ! kill -0 "$lab" 2> /dev/null; then
    echo "./dev lab stopped before JupyterLab answered:" >&2
    tail -20 "$work/dev-lab.log" >&2
    exit 1
  fi
  if (( ( $(date +%s) - start ) % 10 == 0 )); then loads+=("$(load)"); fi
  sleep 1
done
answered=$(( $(date +%s) - start ))
loads+=("$(load)")
echo "JupyterLab answered $answered s after ./dev lab started$([ -n "$revision" ] && echo " (revision $revision)")"
echo "  ended, seconds from the start: .venv (pip) $(since_start "$clone/.venv/.stamp")," \
  "npm packages (beside pip) $(since_start "$clone/labextension/node_modules/.stamp")," \
  "front-end build $(since_start "$clone/mgenv_jupyter/labextension/install.json"), JupyterLab answering $answered"
echo "  load average (1 min) every 10 s: ${loads[*]}"
echo "  .venv: $(du -sh "$clone/.venv" | cut -f1), $("$clone/.venv/bin/python" -m pip list 2> /dev/null | tail -n +3 | wc -l) packages"
# What the newcomer opens: the notebook is served, and JupyterLab lists the extension as enabled and OK.
if curl --silent --fail "http://127.0.0.1:$port/api/contents/demo.ipynb?content=0&token=newcomer" > /dev/null; then
  echo "  demo.ipynb: served"
else
  echo "  demo.ipynb is not served" >&2; exit 1
fi
extensions=$("$clone/.venv/bin/jupyter" labextension list 2>&1 | sed 's/\x1b\[[0-9;]*m//g')
if grep -q 'mgenv-jupyter .*enabled.*OK' <<< "$extensions"; then
  echo "  jupyter labextension list: $(grep 'mgenv-jupyter' <<< "$extensions" | sed 's/^ *//')"
else
  echo "  the extension is not enabled and OK:" >&2; echo "$extensions" >&2; exit 1
fi
