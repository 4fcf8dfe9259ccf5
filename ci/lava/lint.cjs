// SPDX-License-Identifier: GPL-2.0
//
// The LAVA files' check, run by ci/lava/lint.sh (which installs the npm
// package yaml):
//
//   node ci/lava/lint.cjs YAML_MODULE_DIR REPO FILE...
//
// A file with "metadata" is a test definition (Lava-Test Test Definition
// 1.0), one with "actions" a job.  Checked, as LAVA's documentation
// states them: the keys each must have and their types; a test
// definition's name without the characters LAVA refuses; params a
// mapping of scalars, every $NAME of the steps one of them, the script a
// step calls an executable file of the repository; a job's actions
// deploy, boot and test in that order, a boot's prompts, each URL's
// scheme, a test definition named by path in this repository present and
// given only the parameters it declares.  Prints "FILE: WHERE: PROBLEM"
// per problem, exit 1 if any; else "FILE: ok, ..." per file.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const [dir, repo, ...files] = process.argv.slice(2);
if (!dir || !repo || files.length === 0) {
	console.error("usage: node ci/lava/lint.cjs YAML_MODULE_DIR REPO FILE...");
	process.exit(2);
}
const YAML = require(dir);

const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const isStr = (x) => typeof x === "string" && x.length > 0;
const strList = (x) => Array.isArray(x) && x.length > 0 && x.every(isStr);
const isScalar = (x) => ["string", "number", "boolean"].includes(typeof x);
// What LAVA refuses in a test definition's name (and any white space).
const NAME_BAD = /[$&"'`()<>/\\|;\s]/;
const URL_OK = /^(https?|file|scp|downloads):\/\/\S+$/;
// The test shell's own variables (LAVA's run script exports them).
const SHELL_VARS = new Set(["TESTRUN_ID", "UUID", "PATH", "HOME"]);

// Parse FILE: [document, problems].
function load(file) {
	const doc = YAML.parseDocument(fs.readFileSync(file, "utf8"), { uniqueKeys: true });
	const errs = doc.errors.map((e) => {
		const at = e.linePos ? `${e.linePos[0].line}:${e.linePos[0].col}` : "?";
		return `${at}: YAML: ${e.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "")}`;
	});
	return [errs.length ? null : doc.toJS(), errs];
}

function testdef(d) {
	const p = [];
	const need = (ok, where, msg) => { if (!ok) p.push(`${where}: ${msg}`); };
	const keys = ["metadata", "params", "parameters", "run", "install", "parse", "expected"];
	for (const k of Object.keys(d))
		need(keys.includes(k), k, `not a key of a test definition (${keys.join(", ")})`);
	const m = d.metadata;
	if (!isObj(m)) {
		p.push("metadata: missing (a mapping: format, name, description, os, scope, devices)");
	} else {
		need(m.format === "Lava-Test Test Definition 1.0", "metadata.format",
		     `expected "Lava-Test Test Definition 1.0", found ${m.format === undefined ? "none" : JSON.stringify(m.format)}`);
		need(isStr(m.name) && !NAME_BAD.test(m.name) && /^[\x21-\x7e]+$/.test(m.name),
		     "metadata.name", "expected ASCII without white space or any of $&\"'`()<>/\\|;");
		need(isStr(m.description), "metadata.description", "missing");
		for (const k of ["os", "scope", "devices"])
			need(strList(m[k]), `metadata.${k}`, "expected a list of names");
	}
	const params = d.params ?? d.parameters ?? {};
	if (!isObj(params)) {
		p.push("params: expected a mapping NAME: value");
	} else {
		for (const [k, v] of Object.entries(params)) {
			need(/^[A-Za-z_][A-Za-z0-9_]*$/.test(k), `params.${k}`, "not a shell variable name");
			// LAVA writes NAME='value' into the run script.
			need(isScalar(v) && !String(v).includes("'"), `params.${k}`,
			     "expected a scalar without a single quote (LAVA writes NAME='value')");
		}
	}
	const steps = d.run?.steps;
	if (!strList(steps)) {
		p.push("run.steps: expected a list of shell commands");
		return p;
	}
	steps.forEach((s, i) => {
		for (const v of s.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g))
			need(!isObj(params) || v[1] in params || SHELL_VARS.has(v[1]),
			     `run.steps[${i}]`, `$${v[1]} is not in params`);
		// The command: the first word after NAME=value assignments.
		const cmd = s.split(/\s+/).find((w) => w && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
		if (cmd && cmd.includes("/") && !cmd.startsWith("/") && !cmd.includes("$")) {
			let ok = true;
			try { fs.accessSync(path.join(repo, cmd), fs.constants.X_OK); } catch { ok = false; }
			need(ok, `run.steps[${i}]`, `${cmd}: no executable file of that path in the repository`);
		}
	});
	return p;
}

function job(d) {
	const p = [];
	const need = (ok, where, msg) => { if (!ok) p.push(`${where}: ${msg}`); };
	const keys = ["job_name", "device_type", "device", "worker", "tags", "timeouts", "visibility",
		      "priority", "context", "environment", "secrets", "metadata", "actions", "notify",
		      "protocols"];
	for (const k of Object.keys(d))
		need(keys.includes(k), k, `not a key of a job (${keys.join(", ")})`);
	need(isStr(d.job_name) && d.job_name.length <= 200, "job_name", "expected 1 to 200 characters");
	need(isStr(d.device_type) && d.device_type.length <= 50, "device_type", "expected 1 to 50 characters");
	const t = d.timeouts?.job;
	need(isObj(t) && ["minutes", "hours", "seconds"].some((u) => Number.isInteger(t[u]) && t[u] > 0),
	     "timeouts.job", "expected minutes, hours or seconds > 0");
	need(d.visibility === "public" || d.visibility === "personal" || strList(d.visibility?.group),
	     "visibility", "expected public, personal or group: [NAMES]");
	need(d.priority === undefined || ["high", "medium", "low"].includes(d.priority) ||
	     (Number.isInteger(d.priority) && d.priority >= 0 && d.priority <= 100),
	     "priority", "expected high, medium, low or 0 to 100");
	if (!Array.isArray(d.actions) || d.actions.length === 0) {
		p.push("actions: expected a list of deploy, boot and test");
		return p;
	}
	const first = {};
	d.actions.forEach((a, i) => {
		const k = isObj(a) ? Object.keys(a) : [];
		if (k.length !== 1 || !["deploy", "boot", "test", "command"].includes(k[0])) {
			p.push(`actions[${i}]: expected one of deploy, boot, test, command`);
			return;
		}
		first[k[0]] ??= i;
		const where = `actions[${i}].${k[0]}`;
		const v = a[k[0]];
		if (!isObj(v)) {
			p.push(`${where}: expected a mapping`);
			return;
		}
		if (k[0] === "deploy") deploy(v, where, need);
		if (k[0] === "boot") boot(v, where, need);
		if (k[0] === "test") test(v, where, need, p);
	});
	need(first.deploy !== undefined && first.boot > first.deploy && first.test > first.boot,
	     "actions", "expected a deploy, then a boot, then a test");
	return p;
}

function artifact(a, where, need) {
	need(isObj(a) && isStr(a.url) && URL_OK.test(a.url), `${where}.url`,
	     "expected an http(s)://, file://, scp:// or downloads:// URL");
	if (isObj(a) && /\.(xz|gz|bz2|zst)$/.test(a.url ?? ""))
		need(isStr(a.compression), `${where}.compression`, "a compressed file needs it (xz, gz, bz2, zstd)");
}

function deploy(v, where, need) {
	need(isStr(v.to), `${where}.to`, "missing (tftp, nfs, tmpfs, ...)");
	if (v.to !== "tftp")
		return;
	artifact(v.kernel, `${where}.kernel`, need);
	need(["nfsrootfs", "persistent_nfs", "ramdisk"].some((k) => v[k] !== undefined), where,
	     "tftp needs a root file system: nfsrootfs, persistent_nfs or ramdisk");
	for (const k of ["nfsrootfs", "ramdisk", "dtb", "modules"])
		if (v[k] !== undefined)
			artifact(v[k], `${where}.${k}`, need);
}

function boot(v, where, need) {
	need(isStr(v.method), `${where}.method`, "missing (ipxe, u-boot, grub, qemu, ...)");
	need(strList(v.prompts), `${where}.prompts`, "expected a list of the shell prompts");
	if (["ipxe", "u-boot", "grub"].includes(v.method))
		need(isStr(v.commands) || strList(v.commands), `${where}.commands`,
		     `${v.method} needs commands (nfs, ramdisk, ... or a list)`);
}

function test(v, where, need, p) {
	if (!Array.isArray(v.definitions) || v.definitions.length === 0) {
		p.push(`${where}.definitions: expected a list of test definitions`);
		return;
	}
	v.definitions.forEach((t, i) => {
		const w = `${where}.definitions[${i}]`;
		need(isStr(t?.name) && !/\s/.test(t.name), `${w}.name`, "expected a name without white space");
		need(["git", "url", "inline"].includes(t?.from), `${w}.from`, "expected git, url or inline");
		need(t?.from === "inline" ? isObj(t.repository) : isStr(t?.repository) && URL_OK.test(t.repository),
		     `${w}.repository`, "expected a URL (an inline definition: a mapping)");
		need(isStr(t?.path), `${w}.path`, "missing");
		if (t?.from !== "git" || !isStr(t.path))
			return;
		// A definition of this repository: there, and given its params only.
		const f = path.join(repo, t.path);
		if (!fs.existsSync(f)) {
			p.push(`${w}.path: ${t.path}: no such file in the repository`);
			return;
		}
		const [d] = load(f);
		const params = d?.params ?? d?.parameters;
		if (!isObj(d?.metadata) || !isObj(params)) {
			p.push(`${w}.path: ${t.path}: not a test definition with params`);
			return;
		}
		const given = t.parameters ?? t.params ?? {};
		for (const k of Object.keys(isObj(given) ? given : {}))
			need(k in params, `${w}.parameters.${k}`, `not a param of ${t.path}`);
	});
}

let problems = 0;
for (const f of files) {
	const [d, errs] = load(f);
	let p = errs;
	let kind = "";
	if (d !== null) {
		if (isObj(d) && "metadata" in d) {
			kind = "a test definition";
			p = testdef(d);
		} else if (isObj(d) && "actions" in d) {
			kind = "a job";
			p = job(d);
		} else {
			p = ["top: neither a test definition (metadata) nor a job (actions)"];
		}
	}
	for (const m of p)
		console.log(`${f}: ${m}`);
	problems += p.length;
	if (p.length === 0) {
		const n = fs.readFileSync(f, "utf8").split("\n")
			.filter((l) => /TEMPLATE/.test(l) && !/^\s*#/.test(l)).length;
		console.log(`${f}: ok, ${kind} (${n} TEMPLATE values)`);
	}
}
process.exit(problems ? 1 : 0);
