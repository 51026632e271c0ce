#!/usr/bin/env bash
# .ci/k8s-e2e.sh - the real Kubernetes tools and a private kube-apiserver for the end-to-end tests
# (tests/tests/e2e_k8s.rs, and the Helm/Kustomize/kpt tests), on top of
# ../shared/tools/k8s-real-setup.sh.
#
#   .ci/k8s-e2e.sh install         install the tools once per machine, cached in ~/.cache/k8s-real
#                                  (kube-apiserver built from Debian's source, ~5-7 min the first
#                                  time, seconds afterwards; helm 3 and 4, kubectl, kustomize, kpt)
#   .ci/k8s-e2e.sh up DIR          start etcd + kube-apiserver whose state (certs, etcd data, PID
#                                  files, kubeconfig) lives in the fresh folder DIR, on free loopback
#                                  ports, load the Calico CRDs the suite needs, and print the
#                                  `export` lines the tests read
#   .ci/k8s-e2e.sh down DIR        stop exactly the two processes `up DIR` started, by PID, and
#                                  remove DIR (safe to call twice, or after a failed `up`)
#   .ci/k8s-e2e.sh load-crds [DIR] load the CRDs into the server of DIR (default: the shared
#                                  developer server in ~/.cache/k8s-real)
#   .ci/k8s-e2e.sh env [DIR]       print the exports for the server of DIR (default: as above)
#
# A private DIR keeps CI apart from a server a developer may have running on the same machine
# (k8s-real-setup.sh start uses fixed ports and one state folder); only the built binaries and
# the Python venv are shared, through symlinks into the cache.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${CALICO_RENDER_SHARED:-$REPO/../shared}
SETUP=$SHARED/tools/k8s-real-setup.sh
CACHE=${K8S_REAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/k8s-real}
CRD_DIR=$SHARED/calico-crds/v3.32.1
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

log() { printf '[k8s-e2e] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ -f "$SETUP" ] || die "$SETUP not found: the repository needs ../shared beside it (or set CALICO_RENDER_SHARED)"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { # first free loopback port from $1 on
  local p=$1
  while ! port_free "$p"; do
    p=$((p + 1))
    [ "$p" -lt $(($1 + 200)) ] || die "no free port in $1..$p"
  done
  echo "$p"
}

# The process a PID file names, if it is still the binary we started (PIDs get reused).
alive_pid() { # pidfile binary-name
  local pid
  [ -f "$1" ] || return 1
  pid=$(cat "$1")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2" || return 1
  echo "$pid"
}

cmd_install() {
  local t0; t0=$(date +%s)
  K8S_REAL_HOME=$CACHE bash "$SETUP" install
  log "tools ready in $(( $(date +%s) - t0 ))s: $CACHE/bin"
}

print_env() { # state-dir
  local kubectl; kubectl=$(readlink -f "$CACHE/bin/kubectl")
  cat <<EOF
export CALICO_RENDER_E2E_KUBECONFIG='$1/kubeconfig'
export CALICO_RENDER_E2E_KUBECTL='$kubectl'
export CALICO_RENDER_E2E_TOOLS='$CACHE/bin'
EOF
}

load_crds() { # state-dir port
  local files=() f
  for f in "${CRD_FILES[@]}"; do
    [ -f "$CRD_DIR/$f" ] || die "missing CRD file $CRD_DIR/$f"
    files+=("$CRD_DIR/$f")
  done
  K8S_REAL_HOME=$1 K8S_REAL_PORT=$2 bash "$SETUP" load-crds "${files[@]}"
}

cmd_up() {
  local dir=${1:?usage: up DIR}
  [ -x "$CACHE/bin/kube-apiserver" ] || die "no kube-apiserver in $CACHE/bin: run '$0 install' first"
  mkdir -p "$dir"
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty: 'up' needs a fresh folder"
  ln -s "$CACHE/bin" "$dir/bin"
  [ -d "$CACHE/venv" ] && ln -s "$CACHE/venv" "$dir/venv"
  local port etcd peer t0
  port=$(free_port 26443); etcd=$(free_port 33790); peer=$(free_port $((etcd + 1)))
  printf '%s\n' "$port" > "$dir/port"
  t0=$(date +%s)
  K8S_REAL_HOME=$dir K8S_REAL_PORT=$port K8S_REAL_ETCD_PORT=$etcd K8S_REAL_ETCD_PEER_PORT=$peer \
    bash "$SETUP" start > /dev/null
  log "kube-apiserver on 127.0.0.1:$port (pid $(cat "$dir/run/apiserver.pid")), etcd on 127.0.0.1:$etcd (pid $(cat "$dir/run/etcd.pid"))"
  load_crds "$dir" "$port"
  log "server up with CRDs in $(( $(date +%s) - t0 ))s"
  print_env "$dir"
}

cmd_down() {
  local dir=${1:?usage: down DIR} name pid
  [ -d "$dir" ] || return 0
  for name in apiserver:kube-apiserver etcd:etcd; do
    if pid=$(alive_pid "$dir/run/${name%%:*}.pid" "${name#*:}"); then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
      log "stopped ${name#*:} (pid $pid)"
    fi
  done
  # Only now that nothing runs from it: the folder holds the etcd data and the certificates.
  rm -rf "$dir"
}

case ${1:-} in
  install) cmd_install ;;
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  load-crds)
    shift
    if [ -n "${1:-}" ]; then load_crds "$1" "$(cat "$1/port")"; else load_crds "$CACHE" "${K8S_REAL_PORT:-16443}"; fi ;;
  env) shift; print_env "${1:-$CACHE}" ;;
  *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
