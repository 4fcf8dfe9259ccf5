# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Holding a kernel of the cache while a run uses it.  A kernel's folder
# (trees/GROUP/NAME-ARCH.KEY, named by the key of what it is built from)
# has a file .mmubench-hold: a run holds the kernel with a shared flock
# on it, from the build to its last boot; lib/kernel/cache.sh removes a
# kernel only with that lock taken exclusively, which fails while any
# run holds it.  The lock belongs to an open file: build.sh hands its
# own to a process that keeps it open as long as the run's process
# lives (hold_for), so the kernel stays held after build.sh exits, with
# no moment unheld in between.
#
# Sourced by build.sh and cache.sh; uses die and note (lib/preamble.sh).

# hold_file DIR: the lock file of the kernel in DIR.
hold_file() { echo "$1/.mmubench-hold"; }

# hold_take DIR FD-VAR: make DIR if need be and take its shared lock on a
# new descriptor, stored in FD-VAR.  A kernel that cache.sh removed while
# this waited is made again, empty: the caller builds it.  The file's
# mtime is the kernel's last use.
hold_take() { # DIR FD-VAR
	local d=$1 f hfd
	f=$(hold_file "$d")
	while :; do
		mkdir -p "$d"
		exec {hfd}>>"$f"
		flock -s "$hfd"
		# Still the file at that path: not one cache.sh moved away.
		[[ -e $f && $(stat -L -c %d:%i "/proc/self/fd/$hfd") == $(stat -c %d:%i "$f") ]] && break
		exec {hfd}>&-
	done
	touch "$f"
	printf -v "$2" %s "$hfd"
}

# hold_for PID DIR...: DIR's kernels stay held until process PID ends.
# Each lock is taken here and its descriptor handed to one background
# process, which closes every other one (a build lock among them) and
# waits for PID; this shell's own copies are closed.
hold_for() { # PID DIR...
	local pid=$1 d fds=() fd
	shift
	kill -0 "$pid" 2>/dev/null || die "hold: no process $pid to hold the kernels for"
	for d in "$@"; do
		hold_take "$d" fd
		fds+=("$fd")
	done
	(
		keep=" ${fds[*]} "
		for fd in /proc/"$BASHPID"/fd/*; do
			fd=${fd##*/}
			[[ $keep == *" $fd "* ]] || ((fd < 3)) || eval "exec $fd>&-"
		done
		exec tail -f -s 0.2 --pid="$pid" /dev/null
	) </dev/null >/dev/null 2>&1 &
	for fd in "${fds[@]}"; do exec {fd}>&-; done
}

# free_to_remove DIR: no run holds the kernel in DIR.  Its lock is then
# taken exclusively, on descriptor hold_fd, and the caller removes the
# kernel before closing it; a run that waits for its shared lock meanwhile
# finds the folder gone (hold_take) and builds it again.
free_to_remove() { # DIR
	local f
	f=$(hold_file "$1")
	[[ -e $f ]] || : >"$f"
	exec {hold_fd}>>"$f"
	flock -x -n "$hold_fd" && return 0
	exec {hold_fd}>&-
	return 1
}
