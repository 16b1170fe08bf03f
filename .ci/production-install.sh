#!/usr/bin/env bash
# The production install, as the README tells an operator: a clean copy of the tracked files,
# `npm ci --omit=dev` and a system-wide Node 24 (installed here under /opt/node24 from the
# registry's node-linux-<arch> package, the version the lockfile pins for development). It checks
# that node_modules holds the two runtime packages and nothing else, starts the service on
# PostgreSQL with NODE_ENV=production, and takes it through /readyz, the dashboard and one emit.
# Then the systemd unit: `systemd-analyze verify` and an exposure of at most 1.5, where
# systemd-analyze exists.
# Usage: .ci/production-install.sh postgres://user@127.0.0.1:5432/somedb
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
admin_url=$1

step() { echo "-- production install: $*"; }
fail() { echo "production install check FAILED: $*" >&2; exit 1; }

# --- a system-wide Node 24 ---------------------------------------------------------------
node_version=$(node -p "require('./package-lock.json').packages['node_modules/node'].version")
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) fail "no node-linux package for $(uname -m)" ;;
esac
node24=/opt/node24
if [ "$("$node24/bin/node" --version 2>/dev/null || true)" != "v$node_version" ]; then
  step "installing Node $node_version under $node24"
  pack=$(mktemp -d)
  (cd "$pack" && npm pack --silent "node-linux-$arch@$node_version" >/dev/null)
  rm -rf "$node24" && mkdir -p "$node24"
  tar -xzf "$pack"/node-linux-*.tgz -C "$node24" --strip-components=1 package/bin package/LICENSE
  rm -rf "$pack"
fi
[ "$("$node24/bin/node" --version)" = "v$node_version" ] || fail "$node24/bin/node is not Node $node_version"

# --- a clean copy and its production install -----------------------------------------------
work=$(mktemp -d)
app=$work/app
service_pid=""
cleanup() {
  if [ -n "$service_pid" ] && kill -0 "$service_pid" 2>/dev/null; then
    kill -TERM "$service_pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$service_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$service_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$app"
git -C "$repo" ls-files -z | (cd "$repo" && tar --null -T - -cf -) | tar -xf - -C "$app"

step "npm ci --omit=dev with Node $node_version"
export PATH="$node24/bin:$PATH"
(cd "$app" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)

installed=$(cd "$app/node_modules" && for d in *; do
  case "$d" in @*) for s in "$d"/*; do echo "$s"; done ;; *) echo "$d" ;; esac
done | sort | tr '\n' ' ')
[ "$installed" = "@electric-sql/pglite postgres " ] || fail "node_modules holds: $installed(expected @electric-sql/pglite and postgres only)"
nested=$(find "$app/node_modules" -mindepth 2 -type d -name node_modules | head -5)
[ -z "$nested" ] || fail "the runtime packages brought their own dependencies: $nested"
step "node_modules: $installed"

# --- the service, on PostgreSQL ----------------------------------------------------------
db_name=ecf_production_check
PGOPTIONS='--client-min-messages=warning' psql "$admin_url" -q -v ON_ERROR_STOP=1 -c "drop database if exists $db_name" -c "create database $db_name" >/dev/null
db_url="${admin_url%/*}/$db_name"

master_key=$(openssl rand -hex 32)
log=$work/service.log
(
  cd "$app"
  exec env -i PATH="$node24/bin:/usr/bin:/bin" NODE_ENV=production HOST=127.0.0.1 PORT=0 \
    DATABASE_URL="$db_url" DATA_DIR="$work/data" ECF_MASTER_KEY="$master_key" \
    TAX_AUTHORITY=simulator SIMULATOR_PROCESSING_MS=200 DGII_POLL_INTERVAL_MS=100 QUEUE_POLL_INTERVAL_MS=50 \
    "$node24/bin/node" bin/ecf-service.js
) >"$log" 2>&1 &
service_pid=$!
base=""
for _ in $(seq 1 120); do
  base=$(sed -n 's/.*"msg":"listening","url":"\([^"]*\)".*/\1/p' "$log" | head -1)
  [ -n "$base" ] && break
  kill -0 "$service_pid" 2>/dev/null || { cat "$log" >&2; fail "the service exited"; }
  sleep 0.5
done
[ -n "$base" ] || { cat "$log" >&2; fail "the service did not start within 60 s"; }
grep -q "\"node\":\"v$node_version\"" "$log" || fail "the service does not run on Node $node_version"
step "listening on $base"

status() { curl -s -o "$work/body" -w '%{http_code}' "$@"; }
[ "$(status "$base/readyz")" = 200 ] || fail "/readyz: $(cat "$work/body")"
[ "$(status "$base/dashboard/")" = 200 ] && grep -q 'src="main.js"' "$work/body" || fail "/dashboard/: $(head -c 300 "$work/body")"
[ "$(status "$base/dashboard/main.js")" = 200 ] || fail "/dashboard/main.js: $(head -c 300 "$work/body")"

# Production closes public sign-up; the operator makes the tenant with the CLI instead.
register='{"email":"ops@example.com","password":"correct horse battery","name":"Distribuidora Caribe Digital SRL","rnc":"131880681"}'
status -X POST "$base/TesteCF/customer/register" -H 'Content-Type: application/json' -d "$register" >/dev/null
grep -q '"REGISTRATION_DISABLED"' "$work/body" || fail "public registration is open: $(cat "$work/body")"
(cd "$app" && env -i PATH="$node24/bin:/usr/bin:/bin" NODE_ENV=production DATABASE_URL="$db_url" DATA_DIR="$work/data" ECF_MASTER_KEY="$master_key" LOG_LEVEL=error TAX_AUTHORITY=simulator \
  "$node24/bin/node" bin/ecf-service.js tenant create --name "Distribuidora Caribe Digital SRL" --rnc 131880681 --email ops@example.com --password "correct horse battery") >"$work/tenant.json" \
  || fail "npm run tenant: $(cat "$work/tenant.json")"
api_key=$(node -p "JSON.parse(require('fs').readFileSync('$work/tenant.json','utf8')).apiKey.key")

[ "$(status -X POST "$base/TesteCF/customer/authentication" -H 'Content-Type: application/json' -d '{"email":"ops@example.com","password":"correct horse battery"}')" = 200 ] || fail "sign-in: $(cat "$work/body")"
access=$(node -p "JSON.parse(require('fs').readFileSync('$work/body','utf8')).data.accessToken")

openssl req -x509 -newkey rsa:2048 -nodes -days 30 -keyout "$work/key.pem" -out "$work/cert.pem" \
  -subj '/CN=Distribuidora Caribe Digital SRL/serialNumber=131880681' 2>/dev/null
openssl pkcs12 -export -inkey "$work/key.pem" -in "$work/cert.pem" -out "$work/cert.p12" -passout pass:clave-del-archivo
printf '{"p12":"%s","password":"clave-del-archivo"}' "$(base64 -w0 "$work/cert.p12")" >"$work/upload.json"
code=$(status -X POST "$base/api/certificates" -H "Authorization: Bearer $access" -H 'Content-Type: application/json' -d @"$work/upload.json")
case "$code" in 200|201) ;; *) fail "certificate upload ($code): $(cat "$work/body")" ;; esac

code=$(status -X POST "$base/TesteCF/documentos-ecf" -H "X-API-KEY: $api_key" -H 'Content-Type: application/json' \
  -H 'Idempotency-Key: production-check-1' -d @"$app/scripts/examples/factura-31.json")
[ "$code" = 202 ] || fail "emit ($code): $(cat "$work/body")"
step "emitted: $(head -c 200 "$work/body")"

kill -TERM "$service_pid"
for _ in $(seq 1 40); do kill -0 "$service_pid" 2>/dev/null || break; sleep 0.5; done
kill -0 "$service_pid" 2>/dev/null && fail "the service did not stop within 20 s of SIGTERM"
wait "$service_pid" || fail "the service exited with $? after SIGTERM"
service_pid=""
PGOPTIONS='--client-min-messages=warning' psql "$admin_url" -q -c "drop database if exists $db_name" >/dev/null

# --- the systemd unit ------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
  unit="$repo/scripts/ecf.service"
  verify=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $verify"
  [ -z "$verify" ] || echo "$verify"
  exposure=$(systemd-analyze security --offline=true --no-pager "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for ecf.service: \([0-9.]*\).*/\1/p')
  awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 1.5) }' || fail "systemd-analyze security exposure is ${exposure:-unknown} (at most 1.5)"
  step "ecf.service verifies; exposure $exposure"
else
  step "no systemd-analyze here: the unit is not checked"
fi
echo "production install check passed"
