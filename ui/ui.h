/*
 * ui.h -- the interactive screen: a painter of the views (src/view/view.h)
 * with readline at the status line.  Only ui/ includes curses and
 * readline.
 */
#ifndef TS_UI_H
#define TS_UI_H

struct cmd_ctx;

/*
 * Run the screen on the terminal until the user quits.  `job` (may be
 * NULL: the jobs pane) is opened first.  Returns an exit status.
 */
int ui_run(struct cmd_ctx *ctx, const char *job);
/*
 * Run the screen at once on directory dir, job `name`: it is indexed and
 * diagnosed in the background while the keys work (the status line says
 * how far it got), and with follow again every few seconds.  dir NULL:
 * job `name` is indexed already and only diagnosed in the background.
 * Returns an exit status.
 */
int ui_run_live(struct cmd_ctx *ctx, const char *dir, const char *name,
    int follow);

#endif
