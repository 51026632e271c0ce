#!/usr/bin/env bash
# Builds the differential oracle (test tooling, never shipped) into a per-machine cache outside
# the clone and prints the binary's path. Fast when cached: the key covers this directory's
# files and the Go version.
#
#   CALICO_RENDER_ORACLE=$(bash conformance/oracle/build.sh) cargo test -p calico-render-tests -- oracle_diff::
#
# The first build downloads the modules (about 1 GB with the operator's dependencies) and
# compiles for several minutes on two cores.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${CALICO_RENDER_ORACLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/calico-render-oracle}
key=$( (cd "$here" && cat go.mod go.sum ./*.go build.sh && go version) | sha256sum | cut -c1-16)
out="$cache_root/$key/oracle"
if [[ -x "$out" ]]; then
  echo "$out"
  exit 0
fi

# The proxy serves these module versions, but the checksum database has no record of them; the
# go.sum beside this script pins their hashes instead.
export GONOSUMDB=github.com/projectcalico,github.com/tigera/operator/api
export GOFLAGS="${GOFLAGS:-} -mod=readonly"

work=$(mktemp -d "$cache_root/build.XXXXXX" 2>/dev/null || { mkdir -p "$cache_root"; mktemp -d "$cache_root/build.XXXXXX"; })
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp "$here"/go.mod "$here"/go.sum "$here"/*.go "$work"/
cd "$work"

# tigera-operator v1.42.3 builds against its own ./api tree, a separate module that the proxy
# does not serve at that commit. go.mod names the nearest served commit of it, where one Monitor
# field was later renamed (AlertManager -> Alertmanager). The operator is built from a copy of
# its v1.42.3 module with that one rename in its Monitor renderer, which the oracle never calls.
operator_dir=$(go mod download -json github.com/tigera/operator@v1.42.3 | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[[ -d "$operator_dir" ]] || { echo "build.sh: could not download github.com/tigera/operator@v1.42.3" >&2; exit 1; }
cp -r "$operator_dir" operator
chmod -R u+w operator
monitor=operator/pkg/render/monitor/monitor.go
grep -q 'Monitor\.AlertManager\.AlertManagerSpec' "$monitor" || { echo "build.sh: $monitor no longer needs the rename" >&2; exit 1; }
sed -i 's/Monitor\.AlertManager/Monitor.Alertmanager/g; s/\.AlertManagerSpec/.AlertmanagerSpec/g' "$monitor"
go mod edit -replace github.com/tigera/operator=./operator

mkdir -p "$(dirname "$out")"
go build -trimpath -o "$out.tmp" .
mv "$out.tmp" "$out"
echo "$out"
