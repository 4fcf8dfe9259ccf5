/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scenario is one experiment, one file: its options, their checks,
 * and its run, written in the building blocks below (a VM from the
 * common options, a pass, the repeat loop, the JSON document) so that
 * the file reads like the test set-up of a cover letter.  list.c lists
 * the scenarios; cli.c parses the common options and hands each
 * scenario its own.
 */
#ifndef HOST_FRAMEWORK_SCENARIO_H
#define HOST_FRAMEWORK_SCENARIO_H

#include <getopt.h>
#include <jansson.h>
#include "vmm/vmm.h"
#include "kvm/dirty_log.h"
#include "framework/report.h"
#include "results/metrics.h"

/* An option, for getopt_long() and for the usage. */
struct opt {
	const char *name;	/* --name */
	int key;		/* its short letter, or an id from 256 */
	int has_arg;		/* no_argument, required_argument, ... */
	const char *arg;	/* in the usage: "N", "SIZE" */
	const char *help;
};

/* What every VM scenario gets: its VM and the common run options. */
struct common {
	struct vm_params vm;
	u32 iterations;		/* -i */
	u32 repeat;		/* --repeat */
	const char *json;	/* --json */
	u32 given;		/* GIVEN_*: which of them the user set */
	bool no_kvm;		/* the scenario runs no KVM VM (--backend qemu) */
	bool nested;		/* --nested-guest: vm.l2_page set by cli.c */
	u64 l2_page;		/* --l2-page, 0 if not given */
};

#define GIVEN_BACKING	(1u << 0)
#define GIVEN_PAGE	(1u << 1)
#define GIVEN_STRIDE	(1u << 2)
#define GIVEN_VCPUS	(1u << 3)
#define GIVEN_BYTES	(1u << 4)
#define GIVEN_SLOTS	(1u << 5)

struct scenario {
	const char *name;
	/* One line of "mmubench --help", at most 62 characters. */
	const char *brief;
	/* The first paragraph of "mmubench NAME --help". */
	const char *help;
	const struct opt *opts;	/* its own, ending with { NULL } */
	/* Its own option @key; every bad value dies here. */
	void (*parse)(int key, const char *arg);
	/* After every option, before any VM: cross-checks, VM shape. */
	void (*validate)(struct common *c);
	int (*run)(struct common *c);
	/*
	 * Runs on -s guest_memfd: nothing of it reads or writes the test
	 * memory from the host, whose private side the host cannot map.
	 */
	bool guest_memfd;
	/* Its metrics and row keys (results/metrics.h); NULL: none. */
	const struct metric_def *metrics;
	const char *const *row_keys;
};

/* ---- building blocks (scenario.c) ---------------------------------- */

/*
 * One run's phases, as report.h prints and writes them: its passes (the
 * populate pass and -i more, at most MMUB_MAX_PASSES) and the few of a
 * scenario's own host work.
 */
#define MMUB_MAX_PASSES	1000
struct run {
	struct phase ph[MMUB_MAX_PASSES + 16];
	u32 nph;
	json_t *json;		/* the run's object in the document */
};

/* The results document: scenario, config, env, results.runs[]. */
struct doc {
	json_t *root;
	json_t *runs;
	const struct common *c;
	const char *name;	/* the scenario's, for the progress line */
};

/*
 * A pass: every vCPU runs @cmd (MMUB_CMD_PASS, arg the generation) once,
 * and the phase @name around it records time, guest results and stats.
 */
int run_pass(struct vm *vm, struct run *r, const char *name, u32 gen);

/* A phase around host work (enable logging...): begin, then end. */
struct phase *run_phase_begin(struct vm *vm, struct run *r, const char *name);
void run_phase_end(struct vm *vm, struct phase *p);

/* A scenario's part of a run. */
struct run_hooks {
	/* Before the VM is made (optional). */
	void (*before)(void *arg);
	/* The run's work on the booted VM: its phases, its results. */
	int (*once)(struct vm *vm, struct run *r, u32 index, void *arg);
	void *arg;
};

/*
 * The run loop: --repeat times a VM made from @vp, booted, handed to
 * h->once with its struct run; the run's stats are printed, its phases
 * added to @doc (with what h->once put in run->json) and the VM
 * destroyed.  Stops at the first failed run.  0, or 1 after saying why.
 */
int run_repeat(struct doc *doc, const struct vm_params *vp,
	       const struct run_hooks *h);
/* One run of that loop, for scenarios with their own loops (tables). */
int run_one(struct doc *doc, const struct vm_params *vp,
	    const struct run_hooks *h, u32 index, bool print);
/*
 * A whole scenario run: the document (@config: the scenario's own
 * options, taken), the run loop, the document written.  The exit status.
 */
int run_all(const struct common *c, const char *scenario, json_t *config,
	    const struct run_hooks *h);

/*
 * A sweep (--table, scale): cells one after another, each @runs runs of
 * a VM of its own, under one progress line and into one document.  The
 * scenario says what a cell is and what it keeps of each run; the loop,
 * the progress, the cells this machine cannot run and the stop at the
 * first failed run are here, once.
 */
struct sweep_cell {
	struct vm_params vp;	/* its VM: the common one, as cell() leaves it */
	struct run_hooks h;	/* its runs */
	const char *na;		/* why this machine cannot run it, or NULL */
	/* With na: what the document keeps of it (taken), or NULL. */
	json_t *na_run;
	char label[96];		/* on the progress line */
};

struct sweep {
	const char *title;	/* the progress line's, "zap --table" */
	u32 ncells;
	u32 runs;		/* a cell's runs (--repeat) */
	/* A cell is one run, its label all the progress line says. */
	bool one_run;
	/* Cell @i, from the common VM in @sc->vp. */
	void (*cell)(u32 i, struct sweep_cell *sc, void *arg);
	/* Its weight on the progress line a run (optional: 1). */
	double (*work)(u32 i, void *arg);
	/* After run @k of cell @i, @run its object in the document (optional). */
	void (*ran)(u32 i, u32 k, json_t *run, void *arg);
	/* After cell @i's runs, or its n/a (@na) (optional). */
	void (*done)(u32 i, const char *na, void *arg);
	void *arg;
};

/* The cells in order; 0, or 1 after the first failed run (said why). */
int run_sweep(struct doc *doc, const struct common *c, const struct sweep *s);

/* The document: begun empty; env is filled by the first VM. */
void doc_begin(struct doc *doc, const struct common *c, const char *scenario,
	       json_t *config);
/* Write it to --json (atomically), if given, and free it. */
void doc_finish(struct doc *doc);
void doc_free(struct doc *doc);

/*
 * Dirty logging of @vm's test memory (dlog_init() with the VM's fd,
 * memslots and rings); a full ring is emptied from the vCPU's thread.
 * Undone by run_dlog_free() before the VM goes.
 */
void run_dlog_init(struct dlog *d, struct vm *vm, enum dlog_mode mode,
		   u64 clear_chunk);
void run_dlog_free(struct dlog *d, struct vm *vm);

/* The common options as config fields of the document. */
json_t *common_config(const struct common *c);

#endif
