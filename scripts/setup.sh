#!/usr/bin/env bash
# Set up hbnlab on a fresh Debian machine: system packages, a virtualenv in .venv, the package.
#   bash scripts/setup.sh          # runtime (the app and the CLI)
#   bash scripts/setup.sh --dev    # + test dependencies and Debian's chromium for the browser tests
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=0
[ "${1:-}" = "--dev" ] && DEV=1

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
if [ "$DEV" = 1 ]; then
  .venv/bin/python -m pip install -q -r requirements-dev.txt
else
  .venv/bin/python -m pip install -q -r requirements.txt
fi
.venv/bin/python -m pip install -q --no-deps -e .
echo "hbnlab is set up in .venv"
