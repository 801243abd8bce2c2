# Shared by test/argocd/up and down: where the running Argo CD lives and how to find, check and stop
# the processes up started (by pid, never by name). Reuses the control plane's helpers (alive,
# live_pid, stop_all, take_lock) with this state folder and these components.
# shellcheck shell=bash

# shellcheck source=../cluster/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../cluster" && pwd)/lib.sh"
# The state folder: pids, logs, redis data, the repo-server's temp files, and cluster/ (the control plane).
state="${KGITOPS_ARGOCD_STATE:-${KGITOPS_CACHE:-$HOME/.cache/kubectl-gitops}/argocd-run}"
state="${state%/}"
components=(redis argocd-repo-server argocd-application-controller argocd-applicationset-controller)

log() { printf '[argocd %s %s] %s\n' "${argocd_step:-}" "$(date +%H:%M:%S)" "$*" >&2; }

# Picks a free TCP port on 127.0.0.1 (12000-19999: apart from test/cluster/up's 20000-31999 and below Linux's
# ephemeral range, 32768-60999, whose ports an outgoing connection may hold without listening, so that the
# check below passes and the component's bind fails), never one already chosen.
chosen_ports=" "
free_port() {
  local p tries=0
  while [ $tries -lt 200 ]; do
    p=$((12000 + RANDOM % 8000))
    tries=$((tries + 1))
    case "$chosen_ports" in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      chosen_ports+="$p "
      echo "$p"
      return
    fi
  done
  die "no free port found"
}
