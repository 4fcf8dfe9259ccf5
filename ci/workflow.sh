#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the GitHub Actions workflows run: each job's one step calls this
# script, so the same commands, in the same order, run on any machine.
#
#   ci/workflow.sh [-n] ci
#   ci/workflow.sh [-n] nightly [NIGHTLY OPTIONS...]
#
#   ci       .github/workflows/ci.yml: /dev/kvm made read-writable, then
#            .ci/run (ci/deps.sh, make test)
#   nightly  .github/workflows/nightly.yml: /dev/kvm made read-writable,
#            build/nightly emptied, then
#            ci/nightly --out build/nightly --direct ARCH-KERNELRELEASE
#            (this machine's, e.g. x86_64-6.1.0-27-amd64), and with
#            MMUBENCH_STORE set (a directory the runner keeps) --baseline
#            and --store STORE: tonight against the previous night, then
#            into the store.  NIGHTLY OPTIONS follow those, so "--out
#            DIR" or "--only LIST" win
#   -n       print the commands, one a line, and run none
#
# Each command is printed as "+ COMMAND" before it runs.  /dev/kvm is
# changed (chmod 0666, with "sudo -n" when not root) only where it exists
# and is not read-writable already, and its mode restored on exit.  The
# exit status is the last command's.
set -euo pipefail

prog=ci/workflow.sh
die_status=2
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
jobs='ci, nightly'


dry=0
case ${1:-} in
-n) dry=1; shift ;;
-h|--help) usage_exit 0 '/^#   ci\/workflow.sh/,/^#   -n/s/^#//p' ;;
esac
(($#)) || die "a job is needed (accepted: $jobs)"
job=$1
shift

# step CMD...: print it, then run it unless -n.
step() {
	echo "+ $*"
	((dry)) || "$@"
}

# /dev/kvm for the user the job runs as: hosted runners create it
# root-only or group kvm.  Nothing to do where it is missing (the tests
# then run nested) or usable already.  A bare-metal runner outlives the
# job: its mode is put back on every exit.
sudo_=()
((EUID == 0)) || sudo_=(sudo -n)
kvm_access() {
	local mode
	[[ -e /dev/kvm ]] || return 0
	[[ ! -r /dev/kvm || ! -w /dev/kvm ]] || return 0
	mode=$(stat -c %a /dev/kvm)
	((dry)) || trap '"${sudo_[@]}" chmod '"$mode"' /dev/kvm' EXIT
	step "${sudo_[@]}" chmod 0666 /dev/kvm
}

# The label of a direct run: the architecture and the booted kernel.
direct_label() {
	local label
	label="$(uname -m)-$(uname -r)"
	echo "${label//[^A-Za-z0-9._-]/_}"
}

cd "$repo"
case $job in
ci)
	(($# == 0)) || die "ci: unexpected argument '$1' (the ci job takes none)"
	kvm_access
	step .ci/run
	;;
nightly)
	history=()
	[[ -z ${MMUBENCH_STORE:-} ]] ||
		history=(--baseline "$MMUBENCH_STORE" --store "$MMUBENCH_STORE")
	kvm_access
	step rm -rf build/nightly
	step ci/nightly --out build/nightly --direct "$(direct_label)" \
		"${history[@]}" "$@"
	;;
*)
	die "unknown job '$job' (accepted: $jobs)"
	;;
esac
