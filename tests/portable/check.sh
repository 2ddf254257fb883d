#!/usr/bin/env bash
# evalset builds on any POSIX system with its libraries, not only on Linux:
# core/ and cmd/ call no function that only Linux (or only some systems)
# has, except inside a block guarded by the HAVE_<NAME> meson defines when
# the build finds it (as pipe2 in core/retrieve/retriever-cmd.c, with pipe
# and fcntl in the #else). Randomness comes from getentropy (POSIX), not
# getrandom.
#
# usage: check.sh SRCDIR   (TAP on stdout; exit 1 on any unguarded call)
set -uo pipefail
src=${1:-.}
# functions Linux has and POSIX does not (or macOS lacks)
names=(getrandom pipe2 accept4 epoll_create epoll_create1 epoll_ctl epoll_wait
	inotify_init inotify_init1 inotify_add_watch memfd_create sched_getaffinity
	prctl sysinfo splice copy_file_range renameat2 gettid syncfs)
n=0 bad=0
for name in "${names[@]}"; do
	found=$(cd "$src" && find core cmd -name '*.[ch]' -print0 | sort -z | xargs -0 awk -v name="$name" '
		FNR == 1 { depth = 0 }
		# the conditions of the #if blocks the line is in; a guard names HAVE_<NAME>
		/^[ \t]*#[ \t]*if/ { cond[++depth] = $0; next }
		/^[ \t]*#[ \t]*else/ { if (depth) cond[depth] = "else of " cond[depth]; next }
		/^[ \t]*#[ \t]*endif/ { if (depth) depth--; next }
		/^[ \t]*(\*|\/\*|\/\/)/ { next }
		$0 ~ "(^|[^A-Za-z0-9_])" name "[ \t]*\\(" {
			guarded = 0
			for (i = 1; i <= depth; i++)
				if (cond[i] ~ ("HAVE_" toupper(name)) && cond[i] !~ /^else of/)
					guarded = 1
			if (!guarded)
				print FILENAME ":" FNR ": " name "() without a HAVE_" toupper(name) " guard"
		}')
	n=$((n + 1))
	if [ -z "$found" ]; then
		echo "ok $n - no unguarded $name()"
	else
		bad=$((bad + 1))
		echo "not ok $n - $name() called where only some systems have it"
		sed 's/^/# /' <<<"$found"
	fi
done
echo "1..$n"
[ "$bad" -eq 0 ]
