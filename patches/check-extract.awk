# SPDX-License-Identifier: GPL-2.0
#
# Print one block of C from a kernel source file, for the userspace
# checks in patches/*/check/: the first block that starts with a line
# beginning with "pat" (a fixed string), up to and including its end:
#
#   mode=fn      the first line that is "}"; a declaration (a line ending
#                in ";" before the line that opens the body) is skipped
#   mode=struct  the first line that is "};"
#   mode=decl    the first line ending in ";"
#   mode=tail    the end of the file
#
#   awk -v pat='static int foo(' [-v mode=fn] -f check-extract.awk FILE
#
# Exits 1, printing nothing, if there is no such block.
BEGIN {
	if (mode == "")
		mode = "fn"
}

!on && index($0, pat) == 1 {
	on = 1
	buf = ""
	opened = 0
}

on {
	buf = buf $0 "\n"
	if (mode == "fn") {
		if (!opened && $0 ~ /\{/)
			opened = 1
		else if (!opened && $0 ~ /;[ \t]*$/)
			on = 0
		else if (opened && $0 == "}")
			done = 1
	} else if (mode == "struct" && $0 == "};") {
		done = 1
	} else if (mode == "decl" && $0 ~ /;[ \t]*$/) {
		done = 1
	}
	if (done) {
		printf "%s", buf
		exit
	}
}

END {
	if (on && mode == "tail") {
		printf "%s", buf
		done = 1
	}
	exit done ? 0 : 1
}
