#!/usr/bin/env bash
# Set up hbnlab on a fresh Debian machine: system packages, a virtualenv in .venv, the package.
#   bash scripts/setup.sh              # runtime (the app and the CLI)
#   bash scripts/setup.sh --dev        # + test dependencies and Debian's chromium for the browser tests
#   bash scripts/setup.sh --unlocked   # newest versions allowed by requirements*.txt instead of the lock
# By default the exact versions (with hashes) the test suite passed with are installed:
# requirements.lock / requirements-dev.lock, written by scripts/lock.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=0
LOCKED=1
for arg in "$@"; do
  case "$arg" in
    --dev) DEV=1 ;;
    --unlocked) LOCKED=0 ;;
    *) echo "setup.sh: unknown option $arg (expected --dev, --unlocked)" >&2; exit 2 ;;
  esac
done

pkgs=()
command -v dot >/dev/null 2>&1 || pkgs+=(graphviz)
if [ "$DEV" = 1 ] && ! command -v chromium >/dev/null 2>&1; then pkgs+=(chromium); fi
if [ "${#pkgs[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  note=""
  [[ " ${pkgs[*]} " == *" chromium "* ]] && note=" (chromium with its libraries: one to two minutes)"
  echo "[0/3] Debian packages: ${pkgs[*]}$note"
  echo "  - apt-get update"
  $SUDO apt-get update -qq
  # one line per package as dpkg sets it up, so the long chromium install shows where it is
  status=0
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${pkgs[@]}" 2>&1 \
    | { grep --line-buffered -E '^(Setting up|E:)' | sed -u 's/^Setting up /  - /; s/ \.\.\.$//'; true; } \
    || status=$?
  [ "$status" = 0 ] || { echo "setup.sh: apt-get install ${pkgs[*]} failed (exit $status)" >&2; exit 1; }
fi

PY="${PYTHON:-python3}"
echo "[1/3] virtualenv .venv"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
req=requirements
[ "$DEV" = 1 ] && req=requirements-dev
if [ "$LOCKED" = 1 ]; then req_file="$req.lock"; else req_file="$req.txt"; fi
echo "[2/3] Python packages from $req_file (first run: one to two minutes)"
# one line per package as pip reaches it, so a slow install shows where it is
status=0
.venv/bin/python -m pip install -r "$req_file" 2>&1 \
  | { grep --line-buffered -E '^(Collecting|ERROR|error)' | sed -u 's/^Collecting /  - /'; true; } || status=$?
[ "$status" = 0 ] || { echo "setup.sh: pip install -r $req_file failed (exit $status)" >&2; exit 1; }
echo "[3/3] hbnlab itself (editable)"
log="$(mktemp)"
.venv/bin/python -m pip install -q --no-deps -e . >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
rm -f "$log"
echo "hbnlab is set up in .venv"
