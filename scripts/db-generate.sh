#!/usr/bin/env bash
# Regenerates the migrations from the Drizzle schema. Until the first release the history is kept
# as one initial migration, so this rewrites it; afterwards, drop the rm and let drizzle-kit append.
set -euo pipefail
cd "$(dirname "$0")/.."
exec 9>"${TMPDIR:-/tmp}/trading-platform-drizzle.lock"
flock 9
rm -rf drizzle
npx drizzle-kit generate --name init
