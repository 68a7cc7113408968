#!/usr/bin/env bash
# The browser of the view test (tests/test_view.py): Debian's chromium, driven by Playwright through
# its executable_path. Playwright's own browser download is never used (no network but the package
# registries). Idempotent; needs root and apt to install, else says what is missing.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "[install-browser] apt: chromium"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "[install-browser] chromium is missing: install Debian's chromium package (apt-get install chromium)" >&2
  exit 1
fi
