#!/usr/bin/env bash
# Step 1 of action.yml: installs iari into $RUNNER_TEMP and puts its bin on PATH for the next steps.
# INPUT_PACKAGE: an npm spec (iari@0.1.0, a tarball, a directory); empty builds the action's own
# checkout ($GITHUB_ACTION_PATH: npm ci runs the build, npm pack makes the tarball) and installs that.
set -euo pipefail
: "${RUNNER_TEMP:?}" "${GITHUB_PATH:?}"

# package.json engines: ^22.19.0 || >=24 (Node 24 is the reference runtime).
node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 22 || a === 23 || (a === 22 && b < 19)) { console.error(`::error title=iari::iari needs Node 24 (or 22.19 or later), this job has ${process.version} (add actions/setup-node with node-version: 24 before the action)`); process.exit(2); }'

dest="$RUNNER_TEMP/iari-action"
rm -rf "$dest"
mkdir -p "$dest"
spec="${INPUT_PACKAGE:-}"
if [ -z "$spec" ]; then
  root="${GITHUB_ACTION_PATH:?}"
  echo "iari action: building iari from the action checkout ($root)"
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error)
  tarball="$(cd "$root" && npm pack --ignore-scripts --silent --pack-destination "$dest" | tail -n 1)"
  spec="$dest/$tarball"
fi
cd "$dest"
printf '{ "name": "iari-action", "private": true }\n' > package.json
npm install --no-audit --no-fund --loglevel=error "$spec"
echo "iari action: $("$dest/node_modules/.bin/iari" --version | head -n 1) on Node $(node --version)"
echo "$dest/node_modules/.bin" >> "$GITHUB_PATH"
