#!/usr/bin/env bash
# Installs everything the repo needs on a fresh machine: pnpm 10, the workspace's packages and, for the
# browser test of the docs, Debian's Chromium; for video thumbnails (and later video analysis), Debian's
# ffmpeg. Safe to run again; it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=$(node -p "require('./package.json').packageManager.split('@')[1]")
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  # corepack cannot fetch pnpm on these machines (registry signatures are stripped); npm can.
  npm install --global --no-fund --no-audit "pnpm@$PNPM_VERSION"
fi

if [ "${CI:-}" = "true" ]; then
  pnpm install --frozen-lockfile --reporter=append-only
else
  pnpm install --frozen-lockfile
fi

# The docs test drives Debian's Chromium; never a downloaded browser build.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: chromium is not installed; the docs browser test needs it (sudo apt-get install chromium)." >&2
  fi
fi

# Video thumbnails run ffmpeg (FFMPEG_PATH, default `ffmpeg`); Debian's build, never a downloaded binary.
if ! command -v ffmpeg >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null
  else
    echo "setup: ffmpeg is not installed; video thumbnails and their tests need it (sudo apt-get install --no-install-recommends ffmpeg)." >&2
  fi
fi

# The observability checks (apps/api/test/observability) run promtool on the alert rules and on a real
# /metrics scrape; Debian's `prometheus` package brings it.
if ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  else
    echo "setup: promtool is not installed; the metrics and alert-rule checks need it (sudo apt-get install --no-install-recommends prometheus)." >&2
  fi
fi
