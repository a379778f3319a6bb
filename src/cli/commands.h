/*
 * commands.h -- the handlers named in the command table (cmd.c).
 *
 * Each handler is defined in the module that does the work; the contract
 * is the one of cmd_fn in cmd.h: return CMD_OK, CMD_FAIL or CMD_USAGE,
 * writing results to ctx->out and a one-line message to *cause on failure.
 */
#ifndef TS_COMMANDS_H
#define TS_COMMANDS_H

#include "cli/cmd.h"

/* cli/cmd-builtin.c */
cmd_fn cmd_cache_info;
cmd_fn cmd_help;
cmd_fn cmd_source;
cmd_fn cmd_version;

/* logs/cmd-index.c */
cmd_fn cmd_index;
cmd_fn cmd_templates;
/* logs/cmd-parse.c */
cmd_fn cmd_parse;
/* flows/cmd-flows.c */
cmd_fn cmd_flows;

/* diag/cmd-diagnose.c */
cmd_fn cmd_diagnose;
cmd_fn cmd_mark;

/* view/cmd-bookmark.c */
cmd_fn cmd_bookmark;
cmd_fn cmd_bookmarks;
cmd_fn cmd_copy;

/* view/cmd-view.c */
cmd_fn cmd_back;
cmd_fn cmd_context;
cmd_fn cmd_drill;
cmd_fn cmd_export;
cmd_fn cmd_filter;
cmd_fn cmd_filters;
cmd_fn cmd_follow;
cmd_fn cmd_forget;
cmd_fn cmd_goto;
cmd_fn cmd_jobs;
cmd_fn cmd_lines;
cmd_fn cmd_lines_raw;
/* Whether a `lines` command line is one of cmd_lines_raw()'s modes. */
int cmd_lines_is_raw(const struct cmd_args *a);
cmd_fn cmd_move;
cmd_fn cmd_next;
cmd_fn cmd_open;
cmd_fn cmd_pane;
cmd_fn cmd_prev;
cmd_fn cmd_quit;
cmd_fn cmd_mouse;
cmd_fn cmd_warnings;
cmd_fn cmd_save;
cmd_fn cmd_search;
cmd_fn cmd_scroll;
cmd_fn cmd_sort;
cmd_fn cmd_unfilter;
cmd_fn cmd_view;

/* view/cmd-report.c */
cmd_fn cmd_report;

/* sim/cmd-simulate.c; the demo's failed run, the job its screen opens on */
#define DEMO_JOB "gpt-run4"
cmd_fn cmd_demo;
cmd_fn cmd_simulate;

#endif
