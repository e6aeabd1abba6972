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
  echo "installing Debian packages: ${pkgs[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
req=requirements
[ "$DEV" = 1 ] && req=requirements-dev
if [ "$LOCKED" = 1 ]; then
  .venv/bin/python -m pip install -q -r "$req.lock"
else
  .venv/bin/python -m pip install -q -r "$req.txt"
fi
.venv/bin/python -m pip install -q --no-deps -e .
echo "hbnlab is set up in .venv"
