#!/usr/bin/env bash
# Node 24 LTS beside the machine's Node: the server starts and answers, and the unit files pass.
# The binary is the npm registry's `node` package (it ships inside the package; npm caches it
# under ~/.npm/_npx), so the machine's own Node stays as it is. NODE_MAJOR=22 runs the same on 22.
set -uo pipefail
cd "$(dirname "$0")/../.."
major=${NODE_MAJOR:-24}
name="node$major"

fail() {
  echo "FAIL $name: $1"
  exit 1
}

# Three tries: a registry's passing refusal (a reset, a 5xx) is not a failure of the code.
node_bin=
for try in 1 2 3; do
  node_bin=$(npm exec --yes --package="node@$major" -- node -p process.execPath 2>/dev/null) && break
  node_bin=
  sleep $((try * 5))
done
[ -n "$node_bin" ] || fail "could not install node@$major from the npm registry (3 tries)"
version=$("$node_bin" --version) || fail "$node_bin does not run"
[[ $version == "v$major".* ]] || fail "node@$major answered $version"
# Whatever the tests spawn as `node` is this Node too.
PATH="$(dirname "$node_bin"):$PATH"
export PATH
echo "$name: $node_bin ($version)"

work=$(mktemp -d "${TMPDIR:-/tmp}/pinkas-$name-XXXXXX")
# Traversable by the unprivileged user the embedded PostgreSQL runs as when CI runs as root.
chmod 755 "$work"
server=
# SIGTERM, as a supervisor stops it; answers its exit status, or 124 when it is still running after 30 s.
stop_server() {
  kill -TERM "$server" 2>/dev/null
  for _ in $(seq 1 30); do
    kill -0 "$server" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$server" 2>/dev/null; then
    kill -KILL "$server"
    wait "$server"
    return 124
  fi
  wait "$server"
}
cleanup() {
  [ -n "$server" ] && stop_server
  rm -rf "$work"
}
trap cleanup EXIT

# The server start of the README (npm start runs src/main.ts so): an embedded PostgreSQL under a fresh DATA_DIR, which
# creates a sandbox key and prints it once. Ready when /healthz answers and the key lists the keys.
port=$("$node_bin" -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
DATA_DIR="$work/data" PORT="$port" HOST=127.0.0.1 "$node_bin" --import tsx src/main.ts >"$work/server.log" 2>&1 &
server=$!
key=
for _ in $(seq 1 120); do
  key=$(grep -om1 'bk_test_[0-9A-Za-z]*' "$work/server.log" 2>/dev/null)
  if [ -n "$key" ] && curl -fs "http://127.0.0.1:$port/healthz" >/dev/null; then break; fi
  kill -0 "$server" 2>/dev/null || break
  key=
  sleep 1
done
if [ -z "$key" ]; then
  tail -n 30 "$work/server.log"
  fail "on $version the server printed no key, or /healthz did not answer, within 120 s"
fi
if ! curl -fs "http://127.0.0.1:$port/v1/keys" -H "X-Api-Key: $key" >/dev/null; then
  tail -n 30 "$work/server.log"
  fail "the started server refused its own key on $version"
fi
stop_server
stopped=$?
server=
[ "$stopped" -eq 0 ] || fail "the server exited $stopped on SIGTERM on $version (124: it did not stop in 30 s)"
echo "$name: the server started, answered with its key and stopped"

if ! "$node_bin" node_modules/vitest/vitest.mjs run test/unit; then fail "unit files on $version"; fi
echo "PASS $name (server start and test/unit on Node $version)"
