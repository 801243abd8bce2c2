# Completes a command line in a real interactive zsh and prints the candidates compsys offers, one per line.
# Usage: zsh -f test/support/zsh-complete.zsh SCRIPT LINE
# SCRIPT is sourced after compinit in a zsh running in a pseudo-terminal (zsh/zpty); LINE is typed followed by TAB.
# compadd is wrapped so that each match it adds (after compsys's own prefix matching, which `compadd -A` applies)
# is printed with a marker; a function in comppostfuncs prints the end marker and leaves. The markers are written
# split in the typed text ("<<CA""ND>>") so the terminal's echo of that text never matches them.
zmodload zsh/zpty || exit 3
zpty -b kg zsh -f -i
# compinit keeps its function index in a dump file shared by the runs (building it takes seconds; compinit
# rebuilds it itself when the installed functions change).
zpty -w kg "PS1= PS2= RPS1=; autoload -Uz compinit && compinit -u -d ${(q)${TMPDIR:-/tmp}}/kubectl-gitops-test.zcompdump"
zpty -w kg "source ${(q)1}"
zpty -w kg 'compadd() { if [[ " $* " == *" -"[OAD]" "* ]]; then builtin compadd "$@"; return; fi; local -a kg_hits; builtin compadd -A kg_hits "$@"; local h; for h in $kg_hits; do print -r -- "<<CA""ND>>$h"; done; }'
zpty -w kg 'kg_end() { print -r -- "<<EN""D>>"; exit 0; }; comppostfuncs=(kg_end); bindkey "^I" complete-word'
zpty -n -w kg "$2"$'\t'
local out
zpty -r kg out '*<<END>>*' || exit 4
print -r -- "$out" | tr -d '\r' | grep -a -o '<<CAND>>[^<]*' | sed -e 's/^<<CAND>>//' -e 's/\x1b\[[0-9;]*[a-zA-Z]//g' -e 's/[[:space:]]*$//'
