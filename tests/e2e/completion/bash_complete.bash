# Loads Debian's bash-completion and `small completion bash`, then prints the
# completions bash offers for each line given as an argument (after a line
# "== <line>"). The line is split as readline does: at blanks, and at the
# COMP_WORDBREAKS characters = and : (which become words of their own).
# Usage: bash --norc --noprofile bash_complete.bash 'small pl' 'small plan --done '
set -u
source /usr/share/bash-completion/bash_completion || exit 90
source <(small completion bash) || exit 91
spec=$(complete -p small) || exit 92
func=${spec#*-F }
func=${func%% *}
for line in "$@"; do
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMP_WORDS=()
    word=""
    for ((i = 0; i < ${#line}; i++)); do
        c=${line:i:1}
        if [[ $c == " " ]]; then
            [[ -n $word ]] && COMP_WORDS+=("$word")
            word=""
        elif [[ $c == "=" || $c == ":" ]]; then
            [[ -n $word ]] && COMP_WORDS+=("$word")
            COMP_WORDS+=("$c")
            word=""
        else
            word+=$c
        fi
    done
    COMP_WORDS+=("$word")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    "$func" small "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    echo "== $line"
    ((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}"
done
exit 0
