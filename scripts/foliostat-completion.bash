# SPDX-License-Identifier: GPL-2.0-only
# bash completion for foliostat: subcommands, each command's options (from its own table,
# --list-options, so they cannot drift from the binary), built-in workloads after -w, event names
# after -e (tracepoints where tracefs is readable), recordings for -i, -o and compare.
_foliostat()
{
	local cur prev words cword cmd
	_init_completion || return
	local fs=${words[0]}

	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$("$fs" --help 2>/dev/null | awk '/^  [a-z]/ { print $1 }')" -- "$cur"))
		return
	fi
	cmd=${words[1]}
	case $prev in
	-w | --workload)
		COMPREPLY=($(compgen -W "$("$fs" workloads 2>/dev/null | awk '/^  [a-z]/ { print $1 }')" -- "$cur"))
		return
		;;
	-e | --event)
		local ev="minor-faults major-faults page-faults cpu-clock"
		[ -r /sys/kernel/tracing/available_events ] && ev="$ev $(cat /sys/kernel/tracing/available_events)"
		COMPREPLY=($(compgen -W "$ev" -- "$cur"))
		return
		;;
	-i | --input | -o | --output)
		_filedir data
		return
		;;
	--archive)
		_filedir archive
		return
		;;
	--class)
		COMPREPLY=($(compgen -W "anon_alloc anon_zero wp_reuse wp_copy file swap_in other special" -- "$cur"))
		return
		;;
	--call-graph)
		COMPREPLY=($(compgen -W "fp dwarf dwarf,8192 dwarf,16384" -- "$cur"))
		return
		;;
	--format)
		COMPREPLY=($(compgen -W "text json csv openmetrics prometheus mmtests html" -- "$cur"))
		return
		;;
	--latency-method)
		COMPREPLY=($(compgen -W "auto exact sampled" -- "$cur"))
		return
		;;
	--fault-path)
		COMPREPLY=($(compgen -W "auto bpf samples" -- "$cur"))
		return
		;;
	-p | --pid)
		_pids
		return
		;;
	esac
	case $cur in
	-*)
		COMPREPLY=($(compgen -W "$("$fs" "$cmd" --list-options 2>/dev/null)" -- "$cur"))
		;;
	*)
		case $cmd in
		compare | diff | tui) _filedir data ;;
		workload) [ "$cword" -eq 2 ] && COMPREPLY=($(compgen -W "$("$fs" workloads 2>/dev/null | awk '/^  [a-z]/ { print $1 }')" -- "$cur")) ;;
		esac
		;;
	esac
}
complete -F _foliostat foliostat
