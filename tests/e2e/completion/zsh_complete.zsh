# Loads compinit and `small completion zsh` in an interactive zsh on a
# pseudo-terminal (zpty), types each line given as an argument followed by
# TAB, and prints the matches zsh's completion system produced for it (after
# a line "== <line>"). compadd is wrapped to record the matches it adds, and
# _small to leave a flag when it returns: the harness types nothing more until
# then, because input that arrives while the completion function runs can make
# zsh drop the completion (seen under load).
# Usage: zsh -f zsh_complete.zsh 'small pl' 'small plan --done '
zmodload zsh/zpty || exit 90
out=${TMPDIR:-/tmp}/small-zsh-complete.$$
flag=$out.done
trap 'rm -f $out $flag; zpty -d z 2>/dev/null' EXIT
zpty z zsh -f -i || exit 91
zpty -w z "PROMPT='' RPROMPT=''; unsetopt zle_bracketed_paste 2>/dev/null; setopt nobeep"
zpty -w z "autoload -Uz compinit && compinit -u -D"
zpty -w z "source <(small completion zsh)"
zpty -w z "compadd() { local -a __hits; builtin compadd -A __hits \"\$@\"; (( \$#__hits )) && print -rl -- \$__hits >> $out; builtin compadd \"\$@\"; }"
zpty -w z "functions[_small_real]=\$functions[_small]; _small() { _small_real \"\$@\"; local r=\$?; : >> $flag; return \$r; }"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; LISTMAX=100000"
for line in "$@"; do
    : >| $out
    rm -f $flag
    zpty -w z "print -r -- __ready__"
    zpty -r -m z ready '*__ready__*__ready__*' || exit 92
    zpty -w -n z "$line"$'\t'
    for (( i = 0; i < 600; i++ )); do [[ -e $flag ]] && break; sleep 0.05; done
    [[ -e $flag ]] || exit 94
    # A marker after the line tells when zsh has drawn what completion left.
    zpty -w -n z $'\C-u'
    zpty -w z "print -r -- __done__"
    zpty -r -m z done '*__done__*__done__*' || exit 93
    print -r -- "== $line"
    [[ -s $out ]] && sort -u $out
done
exit 0
