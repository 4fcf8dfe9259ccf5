#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# ci/lava/: the LAVA test definition and the two job templates parse and
# have what LAVA requires (ci/lava/lint.sh); ci/lava/run.sh turns a
# direct night into LAVA test cases and measurements, with a stand-in
# lava-test-case that records its arguments and refuses what LAVA's
# refuses.  The nights are test/fixtures/report/direct{1,2} (made by its
# make.sh); one test runs the definition's step as LAVA's run script
# does, on this machine's /dev/kvm.
load helpers

FIX=$ROOT/test/fixtures/report

setup() {
	cd "$ROOT" || return 1
	# lava-test-case as LAVA documents it: NAME (no white space), --result
	# pass|fail|skip|unknown, --measurement NUMBER only with --units U.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/lava-test-case" <<'EOF'
#!/bin/bash
name=$1 result='' m='' u=''
shift
[[ -n $name && $name != *[[:space:]]* ]] || { echo "lava-test-case: bad name '$name'" >&2; exit 1; }
while (($#)); do
	case $1 in
	--result) result=$2 ;;
	--measurement) m=$2 ;;
	--units) u=$2 ;;
	*) echo "lava-test-case: unknown $1" >&2; exit 1 ;;
	esac
	shift 2
done
[[ $result =~ ^(pass|fail|skip|unknown)$ ]] || { echo "lava-test-case: --result '$result'" >&2; exit 1; }
[[ -z $m || ($m =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ && -n $u) ]] ||
	{ echo "lava-test-case: --measurement '$m' --units '$u'" >&2; exit 1; }
echo "$name $result${m:+ $m $u}" >>"$LAVA_CASES"
EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/lava-test-case"
	export LAVA_CASES=$BATS_TEST_TMPDIR/cases PATH=$BATS_TEST_TMPDIR/bin:$PATH
	: >"$LAVA_CASES"
}

LABEL=x86_64-fixture

@test "ci/lava/lint.sh: the test definition and both job templates parse and have LAVA's keys" {
	run --separate-stderr ci/lava/lint.sh
	assert_success
	assert_output "$(printf '%s\n' \
		"$ROOT/ci/lava/mmubench.yaml: ok, a test definition (0 TEMPLATE values)" \
		"$ROOT/ci/lava/jobs/arm64.yaml: ok, a job (6 TEMPLATE values)" \
		"$ROOT/ci/lava/jobs/x86_64.yaml: ok, a job (5 TEMPLATE values)")"
	# Each job: its device type, its boot, this repository's definition.
	run grep -c -e '^device_type: x86  # TEMPLATE' -e '^    method: ipxe$' \
		-e '^      path: ci/lava/mmubench.yaml$' ci/lava/jobs/x86_64.yaml
	assert_output 3
	run grep -c -e '^device_type: rk3399-rock-pi-4b  # TEMPLATE' -e '^    method: u-boot$' \
		-e '^      path: ci/lava/mmubench.yaml$' ci/lava/jobs/arm64.yaml
	assert_output 3
}

@test "ci/lava/lint.sh: a missing key, a YAML error, an unknown param or script fails, named" {
	local d=$BATS_TEST_TMPDIR
	sed -e '/^  format:/d' -e 's/^  name: mmubench$/  name: mmu bench/' ci/lava/mmubench.yaml >"$d/t1.yaml"
	sed -e 's|ci/lava/run.sh|ci/lava/none.sh|' -e 's|--label "\$LABEL"|--label "$LABLE"|' \
		ci/lava/mmubench.yaml >"$d/t2.yaml"
	printf 'metadata:\n  name: a\n  name: b\n' >"$d/t3.yaml"
	sed -e 's|path: ci/lava/mmubench.yaml|path: ci/lava/none.yaml|' -e 's|^- boot:|- bootx:|' \
		ci/lava/jobs/x86_64.yaml >"$d/j1.yaml"
	sed -e 's|REPEAT: "5"|REPEATS: "5"|' -e '/^    prompts:/,+1d' -e 's|url: https://TEMPLATE.example.org/rootfs|url: TEMPLATE.example.org/rootfs|' \
		ci/lava/jobs/arm64.yaml >"$d/j2.yaml"
	run --separate-stderr ci/lava/lint.sh "$d"/t{1,2,3}.yaml "$d"/j{1,2}.yaml
	assert_failure 1
	assert_output "$(printf '%s\n' \
		"$d/t1.yaml: metadata.format: expected \"Lava-Test Test Definition 1.0\", found none" \
		"$d/t1.yaml: metadata.name: expected ASCII without white space or any of \$&\"'\`()<>/\\|;" \
		"$d/t2.yaml: run.steps[0]: \$LABLE is not in params" \
		"$d/t2.yaml: run.steps[0]: ci/lava/none.sh: no executable file of that path in the repository" \
		"$d/t3.yaml: 3:3: YAML: Map keys must be unique" \
		"$d/j1.yaml: actions[1]: expected one of deploy, boot, test, command" \
		"$d/j1.yaml: actions[2].test.definitions[0].path: ci/lava/none.yaml: no such file in the repository" \
		"$d/j1.yaml: actions: expected a deploy, then a boot, then a test" \
		"$d/j2.yaml: actions[0].deploy.nfsrootfs.url: expected an http(s)://, file://, scp:// or downloads:// URL" \
		"$d/j2.yaml: actions[1].boot.prompts: expected a list of the shell prompts" \
		"$d/j2.yaml: actions[2].test.definitions[0].parameters.REPEATS: not a param of ci/lava/mmubench.yaml")"
	run ci/lava/lint.sh "$d/none.yaml"
	assert_failure 2
	assert_output "ci/lava/lint.sh: error: $d/none.yaml: no such file"
}

# The cases the fixture's night must give, in run.sh's order: the night,
# its other steps, then per experiment .run (and .verify where the
# scenario checks itself), then each metric row's median ("mmubench
# compare" of the file with itself), its units by the metric's name.
expected_cases() { # NIGHT
	local n=$1 c=$BATS_TEST_TMPDIR/c.json
	echo "nightly pass"
	# The nightly's own steps: not an experiment of the manifest, nor the peer.
	awk 'FNR == NR { if (/^\[/) x[substr($0, 2, length($0) - 2)] = 1; next }
	     ($1 == "ok" || $1 == "FAIL") && !($2 in x) && $2 != "peer" {
		print $2, ($1 == "ok" ? "pass" : "fail") }' "$ROOT/experiments.conf" "$n/time.txt"
	echo "first-harvest-init-set.run skip"
	echo "migrate-init-set.run skip"
	echo "zap-patterns.run pass"
	echo "zap-patterns.verify pass"
	"$MMUBENCH" compare "$n/$LABEL/zap-patterns.json" "$n/$LABEL/zap-patterns.json" --json "$c" >/dev/null
	# The units the zap scenario declares (mmubench metrics zap).
	jq -r --argjson u "$("$MMUBENCH" metrics zap | awk -F'|' 'NR > 1 { gsub(/ /, ""); print $3 "\t" $6 }' |
		jq -Rn '[inputs | split("\t") | {(.[0]): .[1]}] | add')" \
		'.rows[] | "zap-patterns.\(.metric).\(.row) pass \(.a.median) \($u[.metric])"' "$c"
	echo "nx-recovery.run fail"
	echo "enable-init-set.run pass"
	"$MMUBENCH" compare "$n/$LABEL/enable-init-set.json" "$n/$LABEL/enable-init-set.json" --json "$c" >/dev/null
	jq -r '.rows[] | "enable-init-set.enable_ms_table.\(.row | gsub(" "; "_")) pass \(.a.median) ms"' "$c"
	echo "peer.run fail"
}

@test "ci/lava/run.sh --results: the fixture's direct night as LAVA test cases and measurements" {
	local n=$FIX/direct2 want
	grep -qx '  FAIL nx-recovery (.*' <(sed -e 's/(exit [0-9]*, [^)]*)/(.../' "$n/time.txt") ||
		fail "the fixture's nx-recovery did not fail: $(cat "$n/time.txt")"
	want=$(expected_cases "$n")
	run ci/lava/run.sh --results "$n"
	assert_success
	assert_equal "$(cat "$LAVA_CASES")" "$want"
	assert_line "ci/lava/run.sh: $n, label $LABEL"
	assert_line --regexp '^ci/lava/run.sh: nx-recovery.run: fail: ci/nightly: FAIL nx-recovery \(exit 2, .*nx-recovery.log\)$'
	assert_line 'ci/lava/run.sh: first-harvest-init-set.run: skip: an arm64 experiment on an x86_64 host'
	assert_line "ci/lava/run.sh: $(wc -l <"$LAVA_CASES") test cases: $(grep -c ' pass' "$LAVA_CASES") pass, 2 fail, 2 skip; $(grep -c ' pass [0-9]' "$LAVA_CASES") measurements"
	# Some measurements at least, each a number with units.
	(($(grep -c ' pass [0-9]' "$LAVA_CASES") >= 12)) || fail "too few measurements"
	# Without lava-test-case (not in LAVA): the same, printed.
	run env PATH=/usr/bin:/bin ci/lava/run.sh --results "$n" --only enable-init-set
	assert_success
	assert_line "enable-init-set.run: pass"
	assert_line --regexp '^enable-init-set\.enable_ms_table\.4K_anonymous_get: pass [0-9.e-]+ ms$'
}

@test "ci/lava/run.sh: a failed, missing or empty result is a fail, never a pass" {
	local n=$BATS_TEST_TMPDIR/night f
	cp -r "$FIX/direct2" "$n"
	f=$n/$LABEL/zap-patterns.json
	# The step passed but its file is gone, or empty, or holds no run.
	rm "$n/$LABEL/enable-init-set.json"
	run ci/lava/run.sh --results "$n" --only zap-patterns,enable-init-set
	assert_success
	assert_line "ci/lava/run.sh: enable-init-set.run: fail: its step passed but left no $LABEL/enable-init-set.json"
	run grep -c '^enable-init-set' "$LAVA_CASES"
	assert_output 1
	assert_equal "$(grep '^enable-init-set' "$LAVA_CASES")" "enable-init-set.run fail"
	: >"$LAVA_CASES"
	jq -c '.results.runs = []' "$FIX/direct2/$LABEL/zap-patterns.json" >"$f"
	run ci/lava/run.sh --results "$n" --only zap-patterns
	assert_line "ci/lava/run.sh: zap-patterns.run: fail: $LABEL/zap-patterns.json: no run in it"
	: >"$f"
	run ci/lava/run.sh --results "$n" --only zap-patterns
	assert_line "ci/lava/run.sh: zap-patterns.run: fail: its step passed but left no $LABEL/zap-patterns.json"
	run grep -c '^zap-patterns.run fail$' "$LAVA_CASES"
	assert_output 2
	run grep -c '^zap-patterns.* pass' "$LAVA_CASES"
	assert_output 0
	# A run's own check: an integrity violation, a run without the count.
	: >"$LAVA_CASES"
	jq -c '.results.runs[3].zap.integrity_violations = 3' "$FIX/direct2/$LABEL/zap-patterns.json" >"$f"
	run ci/lava/run.sh --results "$n" --only zap-patterns
	assert_success
	assert_line --regexp "^ci/lava/run.sh: zap-patterns.verify: fail: 3 zap.integrity_violations over [0-9]+ runs\$"
	jq -c 'del(.results.runs[1].zap.integrity_violations)' "$FIX/direct2/$LABEL/zap-patterns.json" >"$f"
	run ci/lava/run.sh --results "$n" --only zap-patterns
	assert_line "ci/lava/run.sh: zap-patterns.verify: fail: a run without zap.integrity_violations"
	run grep -c '^zap-patterns.verify fail$' "$LAVA_CASES"
	assert_output 2
	# ci/nightly says it failed: a fail, whatever the file holds.
	cp "$FIX/direct2/$LABEL/zap-patterns.json" "$f"
	sed -i -e 's/^  ok   zap-patterns$/  FAIL zap-patterns (exit 1, zap-patterns.log)/' "$n/time.txt"
	: >"$LAVA_CASES"
	run ci/lava/run.sh --results "$n" --only zap-patterns
	assert_equal "$(cat "$LAVA_CASES")" "$(printf '%s\n' 'nightly pass' 'build pass' 'report pass' 'zap-patterns.run fail')"
	# No time.txt (the night did not finish), or an empty folder: fails.
	rm "$n/time.txt"
	: >"$LAVA_CASES"
	run ci/lava/run.sh --results "$n"
	assert_success
	assert_equal "$(cat "$LAVA_CASES")" "$(printf '%s\n' 'nightly fail' \
		first-harvest-init-set.run\ fail migrate-init-set.run\ fail zap-patterns.run\ fail nx-recovery.run\ fail enable-init-set.run\ fail peer.run\ fail)"
	mkdir "$BATS_TEST_TMPDIR/empty"
	: >"$LAVA_CASES"
	run ci/lava/run.sh --results "$BATS_TEST_TMPDIR/empty" --only enable-init-set
	assert_success
	assert_line "ci/lava/run.sh: $BATS_TEST_TMPDIR/empty, label none"
	assert_equal "$(cat "$LAVA_CASES")" "$(printf '%s\n' 'nightly fail' 'enable-init-set.run fail')"
	# A lava-test-case that fails is run.sh's failure.
	printf '#!/bin/sh\nexit 1\n' >"$BATS_TEST_TMPDIR/bin/lava-test-case"
	run ci/lava/run.sh --results "$FIX/direct2" --only enable-init-set
	assert_failure 1
	assert_line 'ci/lava/run.sh: error: lava-test-case enable-init-set.run failed'
}

@test "ci/lava/mmubench.yaml's step, as LAVA's run script runs it, on this machine's /dev/kvm" {
	local out=$BATS_TEST_TMPDIR/night script=$BATS_TEST_TMPDIR/run.sh yaml
	yaml=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/npm/node_modules/yaml
	ci/lava/lint.sh ci/lava/mmubench.yaml >/dev/null 2>&1 || fail "ci/lava/lint.sh failed"
	# LAVA's script: the definition's params as NAME='value', the job's
	# after them, set -e, the clone's root, the steps.
	{
		node -e 'const d = require(process.argv[1]).parse(require("fs").readFileSync(process.argv[2], "utf8"));
			for (const [k, v] of Object.entries(d.params)) console.log(`${k}=\x27${v}\x27`);' \
			"$yaml" ci/lava/mmubench.yaml
		printf '%s\n' "NIGHTLY_MEM='16m'" "NIGHTLY_VCPUS='1'" "REPEAT='1'" "ONLY='enable-init-set'" "OUT='$out'"
		echo 'set -e'
		echo "cd '$ROOT'"
		node -e 'const d = require(process.argv[1]).parse(require("fs").readFileSync(process.argv[2], "utf8"));
			for (const s of d.run.steps) console.log(s);' "$yaml" ci/lava/mmubench.yaml
	} >"$script"
	run grep -c "^NIGHTLY_MEM='" "$script"
	assert_output 2
	run sh "$script"
	assert_success
	assert_line --regexp '^ci/lava/run.sh: ci/nightly exit [0-9]+$'
	local label
	label="$(uname -m)-$(uname -r)" label=${label//[^A-Za-z0-9._-]/_}
	assert_line "ci/lava/run.sh: $out, label $label"
	assert_equal "$(head -n 3 "$LAVA_CASES")" "$(printf '%s\n' 'nightly pass' 'build pass' 'report pass')"
	if [[ $MMUB_DIRECT == 1 ]]; then
		assert_equal "$(sed -n 4p "$LAVA_CASES")" "enable-init-set.run pass"
		# The job's sizes reached the runs: 1 vCPU x 16 MiB.
		assert_json_eq "$out/$label/enable-init-set.json" .config.vcpus 1
		assert_json_eq "$out/$label/enable-init-set.json" .config.vcpu_bytes 16777216
		run grep -cE '^enable-init-set\.enable_ms_table\.[24][KM]_anonymous(_thp)?_(get|clear|clear-init-set) pass [0-9.e-]+ ms$' "$LAVA_CASES"
		assert_output 6
		assert_equal "$(wc -l <"$LAVA_CASES")" 10
	else
		# No guest on this /dev/kvm: the experiment fails, reported.
		assert_equal "$(sed -n '4,$p' "$LAVA_CASES")" "enable-init-set.run fail"
	fi
}

@test "ci/lava/run.sh: --help; bad input is one line naming the option, exit 2" {
	run --separate-stderr ci/lava/run.sh --help
	assert_success
	assert_line --index 0 usage:
	assert_line '   ci/lava/run.sh --results DIR [--label LABEL] [--only LIST]'
	assert_equal "$stderr" ''
	run ci/lava/run.sh --repeat 0
	assert_failure 2
	assert_output "ci/lava/run.sh: error: --repeat 0: expected a number >= 1"
	run ci/lava/run.sh --only seed004
	assert_failure 2
	assert_output "ci/lava/run.sh: error: --only seed004: unknown (accepted: tests, first-harvest-init-set, migrate-init-set, zap-patterns, nx-recovery, enable-init-set, peer)"
	run ci/lava/run.sh --results "$BATS_TEST_TMPDIR/none"
	assert_failure 2
	assert_output "ci/lava/run.sh: error: --results $BATS_TEST_TMPDIR/none: not a directory (a ci/nightly --direct --out folder)"
	run ci/lava/run.sh --label 'a b'
	assert_failure 2
	assert_output "ci/lava/run.sh: error: --label a b: expected letters, digits, '.', '_' and '-'"
	run ci/lava/run.sh --direct x
	assert_failure 2
	assert_output "ci/lava/run.sh: error: unknown option '--direct' (accepted: --label, --only, --repeat, --out, --results; see --help)"
	run ci/lava/run.sh --out
	assert_failure 2
	assert_output "ci/lava/run.sh: error: --out needs a value"
	# Two labels in one night: which one is for the caller to say.
	local n=$BATS_TEST_TMPDIR/two
	cp -r "$FIX/direct2" "$n"
	cp -r "$n/$LABEL" "$n/other"
	run ci/lava/run.sh --results "$n"
	assert_failure 2
	assert_line "ci/lava/run.sh: error: --results $n: labels other $LABEL: name one with --label"
}

@test "ci/lava's scripts and ci/report/'s pass shellcheck" {
	run shellcheck -x ci/lava/run.sh ci/lava/lint.sh ci/report/report.sh ci/report/charts.sh \
		ci/report/sections.sh test/fixtures/report/make.sh
	assert_success
	assert_output ''
}
