# bash completion for evalset
#
# Completes subcommands (from `evalset -h`), the options of each subcommand
# (from `evalset <cmd> -h`, so they never drift from the binary), set names
# under ./sets/, and tags after NAME@ (from sets/NAME/versions/*.yaml).
# Installed as <datadir>/bash-completion/completions/evalset.

_evalset_sets()
{
	local cur=$1 d name tag
	if [[ $cur == *@* ]]; then
		name=${cur%%@*}
		for d in sets/"$name"/versions/*.yaml "$name"/versions/*.yaml; do
			[[ -f $d ]] || continue
			tag=${d##*/}
			printf '%s\n' "$name@${tag%.yaml}"
		done
		return
	fi
	for d in sets/*/; do
		[[ -f ${d}set.yaml ]] || continue
		d=${d%/}
		printf '%s\n' "${d#sets/}"
	done
}

# The options of subcommand $2: the first column of its -h option table.
_evalset_options()
{
	"$1" "$2" -h 2>/dev/null | sed -n 's/^ \{2,\}\(-[^ ,]*\)\(, \(-[^ ]*\)\)\{0,1\}.*/\1 \3/p'
	echo --help
}

_evalset()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local evalset=${COMP_WORDS[0]}

	# the subcommand: the first word that is not an option (or --config's file)
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--config) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	if [[ -z $cmd ]]; then
		if [[ $prev == --config ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--version --help --config' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$evalset" -h 2>/dev/null | sed -n 's/^    \([a-z-]*\) .*/\1/p')" -- "$cur"))
		fi
		return
	fi

	case $prev in
	-o|--output|--corpus|--from|--from-jsonl|--from-trec|--gate|--save|--qrels|--markdown|--junit|--config|--batch-out|--batch-in)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--from-beir|--prompt-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--format)
		if [[ $cmd == export ]]; then
			COMPREPLY=($(compgen -W 'trec-qrels beir jsonl' -- "$cur"))
		fi
		return ;;
	--origin)
		COMPREPLY=($(compgen -W 'synthetic mined hand' -- "$cur"))
		return ;;
	--rank-by)
		COMPREPLY=($(compgen -W 'order score' -- "$cur"))
		return ;;
	--query-form)
		COMPREPLY=($(compgen -W 'turn+history turn' -- "$cur"))
		return ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_evalset_options "$evalset" "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	config|trec-eval) COMPREPLY=($(compgen -f -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -W "$(_evalset_sets "$cur")" -- "$cur") $(compgen -f -- "$cur"))
		;;
	esac
}
complete -F _evalset evalset
