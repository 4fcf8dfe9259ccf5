#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The documents against the tree and the binary (issue 42): the README a
# manual of at most 350 lines without dated runs, a page per scenario and
# command whose options and metrics are the binary's, docs/design.md's
# tree true, every relative link resolving, and make help naming every
# target.  Nothing here boots a guest.
load helpers

# The first fenced block after the heading "$2" of file $1.
block_after() { # FILE HEADING
	awk -v h="$2" '$0 == h { seen = 1; next }
		seen && /^## / && !inb { exit }
		seen && /^```/ { if (inb) exit; inb = 1; next }
		inb { print }' "$1"
}

# A scenario's own options as NAME --help prints them; a command's
# whole --help.
own_options() { # NAME
	"$MMUBENCH" "$1" --help | awk -v n="$1:" '
		/^Options of every scenario:/ { scenario = 1 }
		{ all = all $0 "\n" }
		f { print }
		$0 == n { f = 1 }
		END { if (!scenario) printf "%s", all }'
}

# The scenarios and commands, as the binary lists them.
names() {
	"$MMUBENCH" --list | cut -f1
}

@test "README.md: a manual of at most 350 lines, with no dated run" {
	local n dated
	n=$(wc -l <"$ROOT/README.md")
	((n <= 350)) || fail "README.md has $n lines, more than 350"
	# A date in a quirks or version reference would go to docs/quirks.md;
	# the README and the scenario pages have none at all.
	dated=$(grep -nE '20[0-9]{2}-[0-9]{2}-[0-9]{2}' "$ROOT/README.md" \
		"$ROOT"/docs/scenarios/*.md) && fail "dated runs belong in docs/findings/: $dated"
	# The A/B section comes early: a newcomer reads it in the first half.
	n=$(grep -n '^## A/B' "$ROOT/README.md" | cut -d: -f1)
	[[ -n $n ]] && ((n < 175)) || fail "README.md: no '## A/B' section in its first 175 lines (line '$n')"
}

@test "every scenario and command has its page; its options and metrics are the binary's" {
	local name page want got
	[[ $(names | wc -l) -ge 15 ]] || fail "mmubench --help lists $(names | wc -l) names"
	for name in $(names); do
		page=$ROOT/docs/scenarios/$name.md
		[[ -f $page ]] || fail "mmubench $name has no page: docs/scenarios/$name.md"
		grep -qF "[$name]($name.md)" "$ROOT/docs/scenarios/README.md" ||
			fail "docs/scenarios/README.md does not link $name.md"
		want=$(own_options "$name")
		got=$(block_after "$page" '## Options')
		if [[ -z $want ]]; then
			grep -q 'has no options of its own' "$page" ||
				fail "$page: $name has no options of its own, and the page does not say so"
		else
			[[ $got == "$want" ]] ||
				fail "$page: the options differ from mmubench $name --help:
$(diff <(echo "$want") <(echo "$got"))"
		fi
		"$MMUBENCH" --help | grep -qE "^  $name +" || continue
		# Scenarios: the metrics block is mmubench metrics NAME.
		"$MMUBENCH" "$name" --help | grep -q '^Options of every scenario:' || continue
		want=$("$MMUBENCH" metrics "$name" 2>&1 || true)
		got=$(block_after "$page" '## Metrics')
		[[ $got == "$want" ]] ||
			fail "$page: the metrics differ from mmubench metrics $name:
$(diff <(echo "$want") <(echo "$got"))"
	done
	want=$("$MMUBENCH" touch --help | awk '/^Options of every scenario:/ { f = 1; next } /^$/ { f = 0 } f')
	got=$(block_after "$ROOT/docs/scenarios/README.md" '## Options of every scenario')
	[[ $got == "$want" ]] ||
		fail "docs/scenarios/README.md: the common options differ from the binary's:
$(diff <(echo "$want") <(echo "$got"))"
}

# GitHub's anchor of a heading: lower case, punctuation but - and _
# dropped, spaces as -.
@test "every relative link of the documents resolves, anchors too" {
	local bad
	bad=$(cd "$ROOT" && git ls-files --cached --others --exclude-standard '*.md' | grep -v '^patches/\|^test/' | while read -r f; do
		grep -oE '\]\([^)#]*(#[^)]*)?\)' "$f" | sed -E 's/^\]\((.*)\)$/\1/' |
		while read -r link; do
			[[ $link == http* || $link == mailto:* ]] && continue
			path=${link%%#*} anchor=${link#*#}
			[[ $link == *#* ]] || anchor=
			target=$f
			[[ -z $path ]] || target=$(dirname "$f")/$path
			[[ -d $target && -f $target/README.md && -z $path ]] && target=$target/README.md
			[[ -d $target ]] && target=$target/README.md
			if [[ ! -e $target ]]; then
				echo "$f: $link: no such file"
				continue
			fi
			[[ -n $anchor ]] || continue
			awk '/^```/ { c = !c } !c && /^#+ / { sub(/^#+ /, ""); s = tolower($0)
				gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s); print s }' "$target" |
				grep -qxF "$anchor" || echo "$f: $link: no heading for #$anchor in $target"
		done
	done)
	[[ -z $bad ]] || fail "$bad"
	# docs/findings.md was folded into docs/findings/: nothing names it.
	bad=$(cd "$ROOT" && git grep -n 'docs/findings\.md\|findings\.md"' -- ':!test/docs.bats' || true)
	[[ -z $bad ]] || fail "still naming docs/findings.md: $bad"
}

# docs/design.md's tree.  The rule: every name it gives exists, under
# the folder whose entry the line belongs to (a name with a / may also
# be a path from the top); every .c file of host/ is named; every
# folder of guest/, common/ and include/ holding C or assembly is named
# (arch/<arch>/ names each arch's).
@test "docs/design.md: its tree names only files that exist, and every source file" {
	local bad
	bad=$(cd "$ROOT" && awk '
		/^## The tree/ { t = 1; next }
		t && /^```/ { if (b) exit; b = 1; next }
		!b { next }
		/^[^ ]/ { split($0, w, " "); top = w[1]; sub(/\/$/, "", top); ctx = top; print "DIR " ctx }
		/^  [^ ]/ { split($0, w, " "); s = w[1]; sub(/\/$/, "", s); ctx = top "/" s; print "DIR " ctx }
		{ n = split($0, w, /[ ,;:()"]+/)
		  for (i = 1; i <= n; i++)
			if (w[i] ~ /^[A-Za-z0-9_.<>\/-]+$/ && w[i] ~ /(\.(c|h|S|sh|ld|mk|conf|md|bash|awk|jq|cjs)|\/)$/)
				print "IN " ctx " " w[i] }' docs/design.md |
	awk -v files="$(git ls-files --cached --others --exclude-standard)" '
		BEGIN { n = split(files, f, "\n")
			for (i = 1; i <= n; i++) { have[f[i]] = 1; d = f[i]
				while (sub(/\/[^\/]*$/, "", d)) dir[d] = 1 } }
		function glob(p) { gsub(/\./, "\\.", p); gsub(/<arch>/, "[^/]+", p); return "^" p "$" }
		function exists(p,   k, r) { r = glob(p)
			for (k in have) if (k ~ r) return k
			for (k in dir) if (k ~ r) return k
			return "" }
		$1 == "DIR" { if (!exists($2)) print "the tree names " $2 "/, which does not exist"; named[$2] = 1; next }
		{ ctx = $2; t = $3; sub(/\/$/, "", t); found = ""
		  if (t == ctx || ctx ~ ("/" t "$")) found = ctx
		  if (!found && t ~ /\//) found = exists(t)
		  if (!found) { r = glob(ctx) ; sub(/\$$/, "", r); r = r "/(.*/)?" substr(glob(t), 2)
			for (k in have) if (k ~ r) { found = k; named[k] = 1 }
			if (!found) for (k in dir) if (k ~ r) { found = k; named[k] = 1 } }
		  if (!found) { print "the tree names " t " under " ctx "/, which does not exist"; next }
		  named[found] = 1
		  if (t ~ /<arch>/) { x = glob(ctx "/" t); sub(/^\^/, "", x); sub(/\$$/, "", x); named[x] = 1 }
		  d = found
		  if (!(found in dir)) sub(/\/[^\/]*$/, "", d)
		  named[d] = 1 }
		END {
			for (i = 1; i <= n; i++) {
				p = f[i]
				if (p ~ /^host\/.*\.c$/ && p !~ /^host\/scenarios\// && !(p in named))
					print "the tree leaves out " p
				if (p ~ /^(guest|common|include)\/.*\.(c|h|S)$/) {
					d = p; sub(/\/[^\/]*$/, "", d)
					ok = 0
					for (k in named) if (d == k || d ~ ("^" k "$")) ok = 1
					if (!ok) miss[d] = 1
				}
			}
			for (d in miss) print "the tree leaves out the folder " d "/"
		}')
	[[ -z $bad ]] || fail "$bad"
}

@test "make help names every target" {
	local targets t out
	out=$(make -s -C "$ROOT" help)
	targets=$(sed -n '/^\.PHONY:/,/[^\\]$/p' "$ROOT/Makefile" | tr -d '\\' | sed 's/^\.PHONY://')
	[[ -n $targets ]] || fail "no .PHONY targets found in the Makefile"
	for t in $targets; do
		grep -qE "^  $t( |$)" <<<"$out" || fail "make help does not name the target $t"
	done
}
