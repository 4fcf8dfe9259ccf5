#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# ci/report/report.sh: the page of a night, opened in headless Chromium;
# every table has rows and every plot loads, the experiments the night
# lacks are named, and bad input; and its jq functions (report.jq) on
# their own.  The input is test/fixtures/report/: two real nights of
# ci/nightly at small sizes (its make.sh), no KVM needed.
load helpers

FIX=$ROOT/test/fixtures/report

require_tools() {
	command -v chromium >/dev/null ||
		fail "chromium missing: apt-get install --no-install-recommends chromium (make deps)"
	command -v gnuplot >/dev/null ||
		fail "gnuplot missing: apt-get install --no-install-recommends gnuplot-nox (make deps)"
}

# An experiment's old name (experiments.conf's alias, read here apart
# from ci/manifest.sh): night1 and direct1 predate the renames, and their
# results are the trend's first point under those names.
old_name() { # NAME
	awk -v x="[$1]" '/^\[/ { in_x = ($0 == x) } in_x && /^alias = / { print $3; exit }' \
		"$ROOT/experiments.conf"
}

# The counts the fixture's last night must give: a table and a bar chart
# per metric of each experiment, a latency plot where the runs carry
# percentiles, a trend plot where both nights have the experiment, the
# noise floor's table where the night has an A/A experiment, and the
# environment's table.
expected() { # -> "TABLES IMAGES"
	local tables=1 images=0 e x m
	for e in "$FIX"/night2/*/compare.json; do
		x=$(basename "$(dirname "$e")")
		m=$(jq '[.rows[].metric] | unique | length' "$e")
		tables=$((tables + m)) images=$((images + m))
		jq -se 'any(.[] | .results.runs[]?.phases[]?.vcpus[]?; .latency_ns.p50 != null)' \
			"$(dirname "$e")"/runs/A-*.json >/dev/null && images=$((images + 1))
		[[ -f $FIX/night1/$x/compare.json || -f $FIX/night1/$(old_name "$x")/compare.json ]] &&
			images=$((images + 1))
	done
	jq -se 'any(.[]; .a.label == .b.label)' "$FIX"/night2/*/compare.json >/dev/null &&
		tables=$((tables + 1))
	echo "$tables $images"
}

# The same for a direct night (ci/nightly --direct): per LABEL/NAME.json
# a table and bars per metric ("mmubench compare" of the file with
# itself), a latency plot where its runs carry percentiles, a trend plot
# where the first night has the same file; and the environment.
expected_direct() { # -> "TABLES IMAGES"
	local tables=1 images=0 f m x c=$BATS_TEST_TMPDIR/cmp.json
	for f in "$FIX"/direct2/*/*.json; do
		"$MMUBENCH" compare "$f" "$f" --json "$c" >/dev/null
		m=$(jq '[.rows[].metric] | unique | length' "$c")
		tables=$((tables + m)) images=$((images + m))
		jq -e 'any(.results.runs[]?.phases[]?.vcpus[]?; .latency_ns.p50 != null)' "$f" >/dev/null &&
			images=$((images + 1))
		x=${f##*/} x=${x%.json}
		[[ -f $FIX/direct1/${f#"$FIX"/direct2/} ||
			-f $FIX/direct1/$(basename "$(dirname "$f")")/$(old_name "$x").json ]] &&
			images=$((images + 1))
	done
	echo "$tables $images"
}

# The script only the test copy of the page has: it counts the images
# and tables that rendered, into a line of the DOM.
RENDER_CHECK='<script>
window.addEventListener("load", function () {
	var im = document.images, ok = 0, bad = [], t = document.querySelectorAll("table"), empty = [];
	for (var i = 0; i < im.length; i++)
		if (im[i].complete && im[i].naturalWidth > 0) ok++; else bad.push(im[i].getAttribute("src"));
	for (var i = 0; i < t.length; i++) {
		var full = 0, cells = t[i].querySelectorAll("tbody tr td");
		for (var j = 0; j < cells.length; j++) if (cells[j].textContent.trim() != "") full++;
		if (cells.length == 0 || full < cells.length) empty.push(i);
	}
	var p = document.createElement("pre");
	p.id = "render-check";
	p.textContent = "RENDER images=" + im.length + " loaded=" + ok + " broken=" + bad.join(",") +
		" tables=" + t.length + " empty=" + empty.join(",") + " END height=" +
		document.documentElement.scrollHeight;
	document.body.appendChild(p);
});
</script>'

# check_page DIR TABLES IMAGES: open DIR/index.html's test copy (the same
# page plus a script that counts what rendered) in headless Chromium.
# Fails unless it has TABLES tables, each with a row of non-empty cells,
# and IMAGES images, each loaded (naturalWidth > 0).  Prints the line,
# with the page's height in pixels.
check_page() {
	local dir=$1 tables=$2 images=$3 dom line
	awk -v s="$RENDER_CHECK" '{ i = index($0, "</body>"); if (i) $0 = substr($0, 1, i - 1) s substr($0, i) } 1' \
		"$dir/index.html" >"$dir/index.test.html"
	dom=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 \
		--dump-dom "file://$dir/index.test.html" 2>/dev/null) ||
		{ echo "chromium --dump-dom failed" >&2; return 1; }
	rm -f "$dir/index.test.html"
	line=$(grep -o 'RENDER [^<]* END height=[0-9]*' <<<"$dom") ||
		{ echo "no render check in the DOM (the page did not load?)" >&2; return 1; }
	echo "$line"
	[[ ${line% height=*} == "RENDER images=$images loaded=$images broken= tables=$tables empty= END" ]] ||
		{ echo "expected $images images all loaded and $tables tables with rows" >&2; return 1; }
}

setup_file() {
	export REPORT=$O/report DREPORT=$O/report-direct
	rm -rf "$REPORT" "$DREPORT"
	"$ROOT/ci/report/report.sh" --out "$REPORT" "$FIX/night1" "$FIX/night2" >"$O/report.log" 2>&1 ||
		{ cat "$O/report.log" >&2; return 1; }
	MMUBENCH=$MMUBENCH "$ROOT/ci/report/report.sh" --out "$DREPORT" "$FIX/direct1" "$FIX/direct2" \
		>"$O/report-direct.log" 2>&1 || { cat "$O/report-direct.log" >&2; return 1; }
}

# renders DIR TABLES IMAGES: the page in Chromium has them all, as many
# SVGs as images, no script and no external URL; a screenshot of the
# whole page is kept for a look (DIR/index.png).
renders() {
	local dir=$1 height
	not_in_check "renders nothing in Chromium"
	run check_page "$dir" "$2" "$3"
	assert_success
	height=${output##*height=}
	assert_equal "$(find "$dir"/plots.* -name '*.svg' | wc -l)" "$3"
	run grep -l '<script' "$dir"/plots.*/*.svg "$dir/index.html"
	assert_failure
	run grep -E '(src|href)="(https?:)?//' "$dir/index.html"
	assert_failure
	[[ $height =~ ^[0-9]+$ ]] && ((height > 1000)) || fail "page height '$height'"
	# Taller than 16000 pixels, Chromium's screenshot comes out blank.
	((height < 16000)) || height=16000
	rm -f "$dir/index.png"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--virtual-time-budget=10000 --window-size="1280,$((height + 20))" \
		--screenshot="$dir/index.png" "file://$dir/index.html" >/dev/null 2>&1
	assert_file_not_empty "$dir/index.png"
}

@test "ci/report/report.sh: every table and plot of the fixture's night renders in Chromium; screenshot" {
	require_tools
	local want
	read -r -a want <<<"$(expected)"
	((want[0] > 5 && want[1] > 5)) || fail "the fixture gives too little: ${want[*]}"
	renders "$REPORT" "${want[@]}"
}

@test "ci/report/report.sh: a direct night: every table and plot renders in Chromium; screenshot" {
	require_tools
	local want
	read -r -a want <<<"$(expected_direct)"
	((want[0] > 3 && want[1] > 3)) || fail "the fixture gives too little: ${want[*]}"
	renders "$DREPORT" "${want[@]}"
}

# A number as the page prints it (sections.sh's num()).
num() { awk -v x="$1" 'BEGIN { print (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }'; }

@test "ci/report/report.sh: a direct night's tables are its runs' figures; what failed or was skipped is named" {
	local html=$DREPORT/index.html label f c=$BATS_TEST_TMPDIR/c.json row
	label=$(basename "$(dirname "$(find "$FIX/direct2" -name zap-patterns.json)")")
	f=$FIX/direct2/$label/zap-patterns.json
	assert_file_contains "$html" "A direct night (ci/nightly --direct): each experiment ran on the kernel the machine booted, named by its label: <code>$label</code>"
	run grep -c 'A is the original kernel' "$html"
	assert_output 0
	# zap-patterns's first row: compare's median, mean, min and max of the runs.
	"$MMUBENCH" compare "$f" "$f" --json "$c" >/dev/null
	row=$(jq -r '.rows[0] | [.row, .a.n, .a.median, .a.mean, .a.min, .a.max] | @tsv' "$c")
	IFS=$'\t' read -r -a row <<<"$row"
	assert_file_contains "$html" "<h2 id=\"zap-patterns-$label\">zap-patterns on $label</h2>"
	assert_file_contains "$html" "<tr><td>${row[0]}</td><td>${row[1]}</td><td>$(num "${row[2]}")</td><td>$(num "${row[3]}")</td><td>$(num "${row[4]}")</td><td>$(num "${row[5]}")</td>"
	assert_file_contains "$html" "<a href=\"#zap-patterns-$label\">zap-patterns on $label</a>: $(jq '.rows | length' "$c") rows, --repeat 2"
	# What the night's time.txt says of the others.
	assert_file_contains "$html" '<li class="missing" id="first-harvest-init-set">first-harvest-init-set: missing: skipped: an arm64 experiment on an x86_64 host'
	assert_file_contains "$html" '<li class="missing" id="nx-recovery">nx-recovery: missing: failed (exit 2, '
	assert_file_contains "$html" '<li class="missing" id="peer">peer: missing: failed (exit 1, '
	assert_file_contains "$html" '<summary>the end of nx-recovery.log</summary>'
	assert_file_contains "$html" "$(jq -r --arg l "$label (direct)" '.env | "<tr><td>zap-patterns</td><td>\($l)</td><td>\(.arch)</td><td>\(.kernel)</td><td>\(.mmu)</td>"' "$f")"
	assert_file_contains "$html" 'No A/A experiment in this night'
	assert_file_contains "$html" "zap-patterns-$label-trend.svg"
	# One night: no trend; a file compare cannot read is named, not fatal;
	# a peer's comparison (here an A/B folder in its place) is an A/B section.
	local night=$BATS_TEST_TMPDIR/direct
	cp -r "$FIX/direct2" "$night"
	echo '{"scenario": "dirty-log"' >"$night/$label/enable-init-set.json"
	cp -r "$FIX/night2/zap-patterns" "$night/$label/peer"
	run env MMUBENCH="$MMUBENCH" "$ROOT/ci/report/report.sh" "$night"
	assert_success
	assert_output --regexp "^ci/report/report.sh: $night/report/index.html: 2 of 6 experiments, 4 missing, [0-9]+ plots\$"
	assert_file_contains "$night/report/index.html" 'No trend: zap-patterns has one direct run in the 1 night(s) given; two or more nights or labels make one.'
	assert_file_contains "$night/report/index.html" "<span class=\"missing\">enable-init-set on $label: $label/enable-init-set.json: mmubench compare cannot read it: "
	assert_file_contains "$night/report/index.html" "<h2 id=\"peer-$label\">peer on $label</h2>"
	assert_file_contains "$night/report/index.html" "<li><a href=\"#peer-$label\">peer on $label</a>: $(jq '.rows | length' "$FIX/night2/zap-patterns/compare.json") rows, "
	# Without mmubench: one line, exit 1.
	run env MMUBENCH="$BATS_TEST_TMPDIR/none" "$ROOT/ci/report/report.sh" "$night"
	assert_failure 1
	assert_output "ci/report/report.sh: error: $BATS_TEST_TMPDIR/none not found (make; or set MMUBENCH): a direct night's metrics come from mmubench compare"
}

# The noise floor's row of an A/A row as the page prints it: B/A - 1 of
# the medians and the t interval's half-width, in % of A; the larger.
noise_rows() { # COMPARE.json
	jq -r '.rows[] | [.row, .a.n, .b.n, .a.median, .b.median,
		(.b.median / .a.median - 1) * 100,
		(.ttest.ci_high - .ttest.diff) / (.a.mean | fabs) * 100,
		(if .resolution.reachable then .resolution.mde_pct else "-" end)] | @tsv' "$1" |
	while IFS=$'\t' read -r r na nb ma mb d ci res; do
		awk -v r="$r" -v na="$na" -v nb="$nb" -v ma="$(num "$ma")" -v mb="$(num "$mb")" -v d="$d" -v ci="$ci" -v res="$res" 'BEGIN {
			f = (d < 0 ? -d : d) > ci ? (d < 0 ? -d : d) : ci
			res = res == "-" ? "&ndash;" : sprintf("&plusmn;%.1f %%", res)
			printf "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%+.1f %%</td><td>&plusmn;%.1f %%</td><td>&plusmn;%.1f %%</td><td>%s</td></tr>\n",
				r, na, nb, ma, mb, d, ci, f, res }'
	done
}

@test "ci/report/report.sh: the A/A noise floor: enable-init-set's rows, and beside each A/B table" {
	local html=$REPORT/index.html aa=$FIX/night2/enable-init-set/compare.json line n=0 lo hi
	jq -e '.a.label == .b.label and ([.rows[] | select(.ttest.valid)] | length) == (.rows | length)' "$aa" >/dev/null ||
		fail "the fixture's enable-init-set is no A/A run with a t interval per row"
	assert_file_contains "$html" '<h2 id="noise">Noise floor (A/A)</h2>'
	while IFS= read -r line; do
		n=$((n + 1))
		assert_file_contains "$html" "<tr><td><a href=\"#enable-init-set\">enable-init-set</a></td><td>enable_ms (--table)</td>$line"
	done < <(noise_rows "$aa")
	((n == $(jq '.rows | length' "$aa"))) || fail "$n noise rows"
	# Beside the A/B tables: the range of the floors, and the A/A run's own.
	read -r lo hi < <(noise_rows "$aa" | sed -e 's/.*&plusmn;\([0-9.]*\) %<\/td><td>[^<]*<\/td><\/tr>$/\1/' | sort -g | sed -n '1p;$p' | paste -sd' ')
	run grep -c "Noise floor: <a href=\"#noise\">the night&#39;s A/A rows</a> (enable-init-set: enable_ms (--table)) have floors of &plusmn;$lo to &plusmn;$hi %;" "$html"
	assert_output 2
	assert_file_contains "$html" 'Noise floor: this is an A/A run; its rows are <a href="#noise">'
	# An A/B experiment of the same metric gets the floor as a column.
	local night=$BATS_TEST_TMPDIR/night
	cp -r "$FIX/night2" "$night"
	cp -r "$night/enable-init-set" "$night/enable-init-set-ab"
	jq -c '.b.label = "patched"' "$aa" >"$night/enable-init-set-ab/compare.json"
	run "$ROOT/ci/report/report.sh" "$night"
	assert_success
	run grep -c '<th>MW</th><th>res</th><th>A/A noise floor</th></tr>' "$night/report/index.html"
	assert_output 1
	while IFS= read -r line; do
		# The floor, the row's last cell but its resolution.
		line=${line%<td>*</td></tr>}
		run grep -cE "^<tr( class=\"sig\")?>${line%%</td>*}</td><td>.*<td>&plusmn;${line##*&plusmn;}</tr>\$" "$night/report/index.html"
		assert_output 1
	done < <(noise_rows "$aa")
	# No A/A experiment: said so, beside the tables too.
	rm -r "$night/enable-init-set" "$night/enable-init-set-ab"
	run "$ROOT/ci/report/report.sh" "$night"
	assert_success
	assert_file_contains "$night/report/index.html" 'No A/A experiment in this night'
	assert_file_contains "$night/report/index.html" '<p class="caption">Noise floor: no A/A experiment in this night.</p>'
}

@test "ci/report/report.sh: the seeds' tables are compare's figures; the missing experiments are named" {
	local html=$REPORT/index.html x
	for x in first-harvest-init-set zap-patterns enable-init-set; do
		assert_file_contains "$html" "<h2 id=\"$x\">$x</h2>"
	done
	# zap-patterns's first row, as compare prints it.
	local row
	row=$(jq -r '.rows[0] | "<td>\(.row)</td><td>\(.a.n)</td><td>\(.b.n)</td>"' "$FIX/night2/zap-patterns/compare.json")
	assert_file_contains "$html" "$row"
	for x in migrate-init-set nx-recovery peer; do
		assert_file_contains "$html" "<li class=\"missing\" id=\"$x\">$x: missing: not run this night"
	done
	assert_file_contains "$html" '3 of 6 experiments reported, 3 missing.'
	# The environment: each side's kernel, CPU and mmubench commit.
	assert_file_contains "$html" "$(jq -r '.env | "<td>\(.kernel)</td><td>\(.mmu)</td><td>\(.cpu_model)</td><td>\(.mmubench_version)</td>"' "$FIX/night2/zap-patterns/runs/B-1.json")"
}

@test "ci/report/report.sh: a failed step is named with its log; one night: no trend, said so" {
	local night=$BATS_TEST_TMPDIR/night
	cp -r "$FIX/night2" "$night"
	rm -r "$night/enable-init-set"
	sed -i -e 's/^  ok   enable-init-set$/  FAIL enable-init-set (exit 1, enable-init-set.log)/' "$night/time.txt"
	echo 'tools/ab.sh: error: run B 1/2 (original) failed (exit 1)' >"$night/enable-init-set.log"
	run "$ROOT/ci/report/report.sh" "$night"
	assert_success
	assert_output --regexp "^ci/report/report.sh: $night/report/index.html: 2 of 6 experiments, 4 missing, [0-9]+ plots\$"
	assert_file_contains "$night/report/index.html" '<li class="missing" id="enable-init-set">enable-init-set: missing: failed (exit 1, enable-init-set.log): no comparison'
	assert_file_contains "$night/report/index.html" 'run B 1/2 (original) failed'
	assert_file_contains "$night/report/index.html" 'No trend: zap-patterns is in only one of the 1 night(s) given.'
	# Written again: the old plots folder goes, the new one is complete.
	run "$ROOT/ci/report/report.sh" "$night"
	assert_success
	assert_equal "$(find "$night/report" -maxdepth 1 -name 'plots.*' | wc -l)" 1
	assert_equal "$(find "$night/report" -maxdepth 1 -name '.index.html.*' | wc -l)" 0
}

@test "ci/report/report.sh: the check fails on a broken image and on an empty table" {
	not_in_check "renders nothing in Chromium"
	require_tools
	local want page=$BATS_TEST_TMPDIR/page svg
	read -r -a want <<<"$(expected)"
	cp -r "$REPORT" "$page"
	# A truncated SVG: Chromium cannot draw it.
	svg=$(find "$page"/plots.* -name 'zap-patterns-bars-1.svg')
	truncate -s 200 "$svg"
	run check_page "$page" "${want[@]}"
	assert_failure
	assert_output --partial "loaded=$((want[1] - 1)) broken=plots."
	# A missing SVG.
	rm "$svg"
	run check_page "$page" "${want[@]}"
	assert_failure
	# Every image back, one table emptied.
	rm -rf "$page"
	cp -r "$REPORT" "$page"
	awk '!done && /<tbody>/ { sub(/<tbody>.*/, "<tbody></tbody></table>"); print; skip = 1; done = 1; next }
	     skip && /<\/table>/ { skip = 0; next }
	     !skip' "$REPORT/index.html" >"$page/index.html"
	run check_page "$page" "${want[@]}"
	assert_failure
	assert_output --partial "loaded=${want[1]} broken= tables=${want[0]} empty=0 END"
}

has() { # FILE TEXT: TEXT is in FILE, as is (assert_file_contains takes a regex)
	grep -qF -- "$2" "$1" || fail "$1: no '$2'"
}

# An N-way experiment (tools/ab.sh --series s1,s2), made of the fixture's
# zap-patterns runs (2 boots a side, 6 patterns each): C's runs are A's,
# merged and compared as ab.sh does.
nway_night() { # DIR
	local x=$1/zap-patterns-full s
	mkdir -p "$x/runs"
	cp "$FIX"/night2/zap-patterns/runs/[AB]-*.json "$x/runs/"
	cp "$x/runs/A-1.json" "$x/runs/C-1.json"
	cp "$x/runs/A-2.json" "$x/runs/C-2.json"
	for s in A B C; do
		"$MMUBENCH" merge "$x/$s.json" "$x/runs/$s-1.json" "$x/runs/$s-2.json"
	done
	"$MMUBENCH" compare "$x/A.json" "$x/B.json" "$x/C.json" \
		--labels original,tdp-mmu-unlink-empty-leaf-tables,tdp-mmu-no-unlink-control \
		--json "$x/compare.json" >"$x/compare.txt"
}

@test "ci/report/report.sh: an N-way experiment: a median column and a bar per side; renders" {
	local night=$BATS_TEST_TMPDIR/night html row m n
	nway_night "$night"
	run "$ROOT/ci/report/report.sh" "$night"
	assert_success
	assert_output --regexp "^ci/report/report.sh: $night/report/index.html: 1 of 7 experiments, 6 missing, [0-9]+ plots\$"
	html=$night/report/index.html
	has "$html" '<p>A = original (12 runs), B = tdp-mmu-unlink-empty-leaf-tables (12 runs), C = tdp-mmu-no-unlink-control (12 runs), scenario zap; B, C, ... each against A.</p>'
	has "$html" '<th>row</th><th>nA</th><th>nB</th><th>nC</th><th>A median</th><th>B median</th><th>C median</th><th>B/A</th><th>t</th><th>MW</th><th>res</th><th>C/A</th><th>t</th><th>MW</th><th>res</th>'
	# zap_total_ms's first row: C's runs are A's, so C/A is 1.
	row=$(jq -r '[.rows[] | select(.metric == "zap_total_ms")][0] |
		"<td>\(.row)</td><td>2</td><td>2</td><td>2</td>"' "$night/zap-patterns-full/compare.json")
	has "$html" "$row"
	has "$html" '<td>1.000</td><td>no</td><td>no</td><td>&ndash;</td></tr>'
	has "$html" '<td>zap-patterns-full</td><td>C: tdp-mmu-no-unlink-control</td>'
	has "$html" 'C = tdp-mmu-no-unlink-control (12 runs).</p>'
	# One bar and one set of points per side in every metric's chart.
	n=$(jq '[.rows[].metric] | unique | length' "$night/zap-patterns-full/compare.json")
	for m in $(seq 1 "$n"); do
		svg=$(find "$night/report"/plots.* -name "zap-patterns-full-bars-$m.svg")
		for s in 'A: original' 'B: tdp-mmu-unlink-empty-leaf-tables' 'C: tdp-mmu-no-unlink-control' 'C runs'; do
			grep -qF ">$s<" "$svg" || fail "$svg: no legend entry '$s'"
		done
	done
	# In Chromium: the metrics' tables and the environment's, the bar
	# charts and the latency plot.
	not_in_check "renders nothing in Chromium"
	require_tools
	run check_page "$night/report" "$((n + 1))" "$((n + 1))"
	assert_success
}


# zap-patterns of night2 again, each boot's run taken twice (4 a side,
# enough for Mann-Whitney at 95 %), compared by today's mmubench: the
# counters the unlink series moves are listed.  enable-init-set keeps
# the fixture's comparison, made before compare judged counters.
counters_night() { # DIR
	local x=$1/zap-patterns s i
	cp -r "$FIX/night2" "$1"
	for s in A B; do
		for i in 1 2; do
			cp "$x/runs/$s-$i.json" "$x/runs/$s-$((i + 2)).json"
		done
		"$MMUBENCH" merge "$BATS_TEST_TMPDIR/$s.json" "$x"/runs/"$s"-[1-4].json
	done
	"$MMUBENCH" compare "$BATS_TEST_TMPDIR/A.json" "$BATS_TEST_TMPDIR/B.json" \
		--labels original,tdp-mmu-unlink-empty-leaf-tables \
		--json "$x/compare.json" >"$x/compare.txt"
}

@test "ci/report/report.sh: an A/B section lists the other numbers that moved; an older comparison says it has none" {
	local night=$BATS_TEST_TMPDIR/night html c
	counters_night "$night"
	c=$night/zap-patterns/compare.json
	run jq -e '.counters.sides[0].changed > 0' "$c"
	assert_success
	run "$ROOT/ci/report/report.sh" "$night"
	assert_success
	html=$night/report/index.html
	has "$html" '<h3>Also changed</h3>'
	has "$html" "$(jq -r '.counters.sides[0] | "<p>B against A (\(.label)): \(.compared) counters compared: \(.changed + .exact) changed (\(.exact) exactly), \(.identical) identical in every run, \(.varying - .changed) no change found;"' "$c")"
	# Every counter compare listed, in its order, none other.
	assert_equal "$(grep -o '<tr class="sig"><td>B</td><td>[^<]*</td><td>[^<]*</td>' "$html" |
		sed -E 's|.*<td>B</td><td>([^<]*)</td><td>([^<]*)</td>|\1 \2|')" \
		"$(jq -r '.counters.sides[0].rows[] | "\(.counter) \(.row)"' "$c")"
	# enable-init-set's comparison predates the counters.
	has "$html" 'This comparison judged no other number: its mmubench compare predates it.'
}
# report.jq's functions, called as report.sh calls them.
rjq() { jq -L "$ROOT/ci/report" "include \"report\"; $1" "${@:2}"; }

@test "ci/report/report.jq: a comparison's metrics in order, its headline, sides, labels and summary" {
	local c=$FIX/night2/zap-patterns/compare.json night=$BATS_TEST_TMPDIR/night
	# In the order of the rows, not sorted, each once.
	run rjq metrics -r "$c"
	assert_success
	assert_output 'zap_total_ms
madvise_p50_us
fault_p999_us
kernel_zap_total_ms
kernel_fwait_p999_us
kernel_tables_freed'
	# experiments.conf's headline where the comparison has it, else its first.
	run rjq 'headline("kernel_tables_freed"), headline("nosuch"), headline("")' -r "$c"
	assert_output $'kernel_tables_freed\nzap_total_ms\nzap_total_ms'
	run rjq 'nsides, side_label(0), side_label(1), summary' -r "$c"
	assert_output '2
original
tdp-mmu-unlink-empty-leaf-tables
36 rows, 0 differ at 95 % by both tests'
	# A side without a label is its letter.
	run rjq 'del(.b.label) | side_label(1), lat_label(1)' -r "$c"
	assert_output $'B\nB'
	# Three sides: each later one against A.
	nway_night "$night"
	run rjq 'nsides, side_label(2), summary' -r "$night/zap-patterns-full/compare.json"
	assert_success
	assert_output '3
tdp-mmu-no-unlink-control
42 rows, against A, B: 0, C: 0 differ at 95 % by both tests'
	run rjq 'bars_n("zap_total_ms"; 0.2)' -r "$night/zap-patterns-full/compare.json"
	assert_line --index 0 $'bars\t0\tsame16\t2117.17618500001\t1010.69803\t2117.17618500001'
	assert_line --index 1 $'pts0\t-0.2325\t2589.61050000002'
	assert_line --index 3 $'pts1\t-0.0325\t44.7278099999985'
}

@test "ci/report/report.jq: a table's rows, the bars' points, the noise floor, a run's latency and environment" {
	local c=$FIX/night2/zap-patterns/compare.json runs=$FIX/night2/zap-patterns/runs
	# zap_total_ms's rows, the first in full: res is empty (unreachable).
	run rjq 'table_ab("zap_total_ms")' -r "$c"
	assert_success
	assert_equal "${#lines[@]}" 6
	assert_line --index 0 "$(printf '%s\t' same16 2 2 2117.17618500001 1010.69803 0.477380218595266 \
		-1106.47815500002 4626.68761115004 -52.2619781404734 false 0.666666666666667 false same16)"
	run rjq 'table_direct("zap_total_ms")' -r "$c"
	assert_line --index 0 $'same16\t2\t2117.17618500001\t2117.17618500001\t1644.74187000001\t2589.61050000002\t668.12301560345'
	# The bars, then each run a point spread across its side's bar.
	run rjq 'bars_ab("zap_total_ms"; "ab")' -r "$c"
	assert_line --index 0 $'bars\t0\tsame16\t2117.17618500001\t1010.69803'
	assert_line --index 1 $'ptsA\t-0.265\t2589.61050000002'
	assert_line --index 2 $'ptsA\t-0.135\t1644.74187000001'
	assert_line --index 3 $'ptsB\t0.135\t44.7278099999985'
	assert_line --index 4 $'ptsB\t0.265\t1976.66825'
	# One kernel: side A's points centred on the bar, no B.
	run rjq 'bars_ab("zap_total_ms"; "a")' -r "$c"
	assert_line --index 1 $'ptsA\t-0.065\t2589.61050000002'
	refute_line --partial ptsB
	# The A/A run's rows: B/A - 1, the t interval's half-width, the floor.
	run rjq 'noise_rows("enable-init-set")' -r "$FIX/night2/enable-init-set/compare.json"
	assert_success
	assert_equal "${#lines[@]}" 6
	assert_line --index 0 "$(printf '%s\t' enable-init-set 'enable_ms (--table)' '4K anonymous get' 2 2 \
		15.5947299999998 10.4206550000004 -33.178355765053105 250.5914127711461 250.5914127711461)"
	# An A/B comparison is no noise floor.
	run rjq 'noise_rows("zap-patterns")' -r "$c"
	assert_success
	assert_output ''
	# Per phase: runs, then p50's median, min and max over the runs (us).
	run rjq latency -s -r "$runs"/A-*.json
	assert_success
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp $'^0\tpopulate\t12\t41\\.0038107853928\t40\\.9598575309303\t81\\.9197150618607\t'
	assert_line --index 1 --regexp $'^1\tzap\t12\t28\\.8140851903891\t'
	run rjq 'env_row("zap-patterns"; "B: x")' -r "$runs/B-1.json"
	assert_output '<tr><td>zap-patterns</td><td>B: x</td><td>x86_64</td><td>6.1.192</td><td>tdp_mmu</td><td>QEMU TCG CPU version 2.5+</td><td>6fc8b72</td></tr>'
	run rjq esc -Rr <<<'<a href="x">&</a>'
	assert_output '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;'
}

@test "ci/report/report.sh: bad input: one line naming the option, exit 2" {
	run "$ROOT/ci/report/report.sh"
	assert_failure 2
	assert_output "ci/report/report.sh: error: no NIGHT: give one or more ci/nightly --out folders, oldest first"
	run "$ROOT/ci/report/report.sh" --trend 0 "$FIX/night2"
	assert_failure 2
	assert_output "ci/report/report.sh: error: --trend 0: expected a number of nights >= 1"
	run "$ROOT/ci/report/report.sh" "$BATS_TEST_TMPDIR/nope"
	assert_failure 2
	assert_output "ci/report/report.sh: error: NIGHT $BATS_TEST_TMPDIR/nope: not a directory (a ci/nightly --out folder)"
	run "$ROOT/ci/report/report.sh" --color "$FIX/night2"
	assert_failure 2
	assert_output "ci/report/report.sh: error: unknown option '--color' (accepted: --out DIR, --trend N, --help)"
	run "$ROOT/ci/report/report.sh" --out
	assert_failure 2
	assert_output "ci/report/report.sh: error: --out needs a value"
}
