# Shared by test/cluster/up and test/cluster/down: where the running control plane lives and how
# to find, check and stop the processes it started (by pid, never by name).
# shellcheck shell=bash

cluster_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The state folder: certificates, etcd data, kubeconfig, pid files and logs of one running cluster.
state="${KGITOPS_CLUSTER_STATE:-${KGITOPS_CACHE:-$HOME/.cache/kubectl-gitops}/run}"
state="${state%/}"
components=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

log() { printf '[cluster %s %s] %s\n' "${cluster_step:-}" "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Serialises up/down across concurrent callers (several jest runs may start at once). The lock file
# sits next to the state folder so that removing the folder never drops a lock someone holds.
take_lock() {
  mkdir -p "$(dirname "$state")"
  exec 9>"$state.lock"
  if ! flock -n 9; then
    log "waiting for another up/down on $state"
    flock 9
  fi
}

# True when the process exists and is not a zombie waiting for its parent to reap it.
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ "$st" != Z ]
}

# Prints the pid of a component when it is alive and really ours (its command line names the state folder).
live_pid() {
  local f="$state/pids/$1.pid" pid
  [ -f "$f" ] || return 1
  pid=$(cat "$f")
  [ -n "$pid" ] && alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$state/" || return 1
  echo "$pid"
}

# Stops one component this state folder started (by its recorded pid): TERM, then KILL after 15 s.
stop_component() {
  local name=$1 pid waited
  if pid=$(live_pid "$name"); then
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    waited=0
    while alive "$pid" && [ $waited -lt 150 ]; do sleep 0.1; waited=$((waited + 1)); done
    if alive "$pid"; then
      log "$name did not stop in 15 s: killing pid $pid"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$state/pids/$name.pid"
}

# Stops every component this state folder started, newest first.
stop_all() {
  local i
  for ((i = ${#components[@]} - 1; i >= 0; i--)); do stop_component "${components[$i]}"; done
}
