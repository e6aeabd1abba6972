#!/usr/bin/env bash
# Write requirements.lock and requirements-dev.lock: the exact versions installed in .venv (the ones
# the test suite just passed with), with the hashes of their distribution files.
#   bash scripts/setup.sh --dev --unlocked && .venv/bin/python -m pytest && bash scripts/lock.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools/venv"
"$tools/venv/bin/pip" install -q pip-tools
.venv/bin/python -m pip freeze --exclude-editable | grep -v '^hbnlab' > "$tools/tested.txt"
for req in requirements requirements-dev; do
  CUSTOM_COMPILE_COMMAND="bash scripts/lock.sh" "$tools/venv/bin/pip-compile" -q --generate-hashes --allow-unsafe \
    --strip-extras --no-emit-index-url --no-emit-find-links -c "$tools/tested.txt" -o "$req.lock" "$req.txt"
done
echo "wrote requirements.lock and requirements-dev.lock"
