#!/usr/bin/env bash
# End-to-end tests of the web console in headless Chromium (Debian's chromium, installed by .ci/run).
set -uo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  echo "FAIL e2e: /usr/bin/chromium is missing (apt-get install chromium)"
  exit 1
fi
if npm run --silent test:e2e; then
  echo "PASS e2e (console in headless Chromium)"
  exit 0
fi
echo "FAIL e2e (console in headless Chromium)"
exit 1
