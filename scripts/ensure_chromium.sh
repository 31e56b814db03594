#!/bin/sh
# The browser tests (tests/browser) drive Debian's Chromium through Playwright (a browser
# download of Playwright's own does not work everywhere, Debian's package does). `make test`
# runs this first, so that a fresh clone passes on a fresh Debian machine: as root, or with
# sudo that needs no password. Where it cannot install, it says what to do and fails.
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "make test: the browser tests need Chromium at /usr/bin/chromium, and this is not a" >&2
  echo "Debian-like system: install it with your package manager (or link it there)." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo -n"
else
  echo "make test: the browser tests need Debian's chromium, which is not installed, and" >&2
  echo "this user may not install packages. Run once:  sudo apt-get install chromium" >&2
  exit 1
fi
echo "make test: installing Debian's chromium for the browser tests (once)" >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
