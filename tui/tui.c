// SPDX-License-Identifier: GPL-2.0-only
#include "tui.h"
#include "tui_priv.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

static void restore_terminal(void)
{
	if (!isendwin())
		endwin();
}

static void on_fatal_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t sort_key(const struct ui *u, const struct row *rw)
{
	const struct fol_cell *c = tui_cell(u, rw);

	switch (u->sort) {
	case 1: return c->faults;
	case 2: return fol_cell_time(&u->r->s, c);
	case 3: return fol_hist_mean(&c->lat);
	case 4: return fol_hist_quantile(&c->lat, 0.99);
	case 5: return c->lat.max;
	default: return 0;
	}
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct row *x = a, *y = b;
	uint64_t kx = sort_key(ctx, x), ky = sort_key(ctx, y);

	if (kx != ky)
		return kx < ky ? 1 : -1; /* largest first */
	if (x->slot != y->slot)
		return x->slot - y->slot;
	return x->cls - y->cls;
}

static void build_rows(struct ui *u)
{
	char sz[16], text[64];

	u->nrows = 0;
	for (int slot = 0; slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int c = 0; c < FOL_NR_CLASSES; c++) {
			if (!u->r->s.order[slot].cell[c].faults)
				continue;
			snprintf(text, sizeof(text), "%s %s",
				 fol_order_size(FOL_SLOT_ORDER(slot), u->r->page_size, sz, sizeof(sz)),
				 fol_class_name((enum fol_class)c));
			if (u->filter[0] && !strstr(text, u->filter))
				continue;
			u->rows[u->nrows++] = (struct row){ slot, c };
		}
	if (u->sort)
		qsort_r(u->rows, (size_t)u->nrows, sizeof(u->rows[0]), row_cmp, u);
	if (u->sel >= u->nrows)
		u->sel = u->nrows ? u->nrows - 1 : 0;
}

static void draw(struct ui *u)
{
	int lines, cols;

	getmaxyx(stdscr, lines, cols);
	erase();
	if (lines < 10 || cols < 60) {
		mvprintw(0, 0, "foliostat: the window is too small (%dx%d, needs 60x10)", cols, lines);
		refresh();
		return;
	}
	tui_title(u, cols);
	switch (u->view) {
	case V_OVERVIEW: tui_draw_overview(u, lines, cols); break;
	case V_REUSE: tui_draw_reuse(u, lines, cols); break;
	case V_LATENCY: tui_draw_latency(u, lines, cols); break;
	case V_KERNEL: tui_draw_kernel(u, lines, cols); break;
	case V_SITES: tui_draw_sites(u, lines, cols); break;
	case V_MAPS: tui_draw_maps(u, lines, cols); break;
	default: tui_draw_timeline(u, lines, cols); break;
	}
	if (u->help)
		tui_draw_help(u, lines, cols);
	refresh();
}

static void read_filter(struct ui *u)
{
	int lines, cols;
	char buf[sizeof(u->filter)] = "";

	getmaxyx(stdscr, lines, cols);
	(void)cols;
	mvhline(lines - 2, 0, ' ', cols);
	mvprintw(lines - 2, 1, "filter: ");
	echo();
	curs_set(1);
	getnstr(buf, (int)sizeof(buf) - 1);
	noecho();
	curs_set(0);
	memcpy(u->filter, buf, sizeof(buf));
	u->sel = u->top = 0;
	build_rows(u);
}

/* *v moved by delta within [0, n). */
static void clamp(int *v, int delta, int n)
{
	*v += delta;
	if (*v >= n)
		*v = n - 1;
	if (*v < 0)
		*v = 0;
}

static void move_sel(struct ui *u, int delta)
{
	if (u->view == V_REUSE) {
		int slots[FOL_NR_ORDER_SLOTS], n = tui_reuse_orders(u, slots);

		u->reuse_sel += delta;
		if (u->reuse_sel >= n)
			u->reuse_sel = n - 1;
		if (u->reuse_sel < 0)
			u->reuse_sel = 0;
		return;
	}
	if (u->view == V_SITES && u->stacks_shown)
		clamp(&u->stacks_top, delta, (int)u->stacks.n);
	else if (u->view == V_SITES)
		clamp(&u->site_sel, delta, (int)u->sites.n);
	else if (u->view == V_MAPS)
		clamp(&u->map_sel, delta, (int)u->maps.n);
	else
		clamp(&u->sel, delta, u->nrows);
}

static const int fatal_sigs[4] = { SIGINT, SIGTERM, SIGSEGV, SIGABRT };

int tui_term_open(int *colour, int *utf8, struct sigaction *old, char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "the TUI needs a terminal: use 'foliostat report' for text or "
				      "--json");
		return -ENOTTY;
	}
	*utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (tui_term_usable(STDOUT_FILENO, "the TUI", err, errlen))
		return -ENOTTY;
	if (!initscr()) {
		snprintf(err, errlen, "cannot set up the terminal (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "unset");
		return -EIO;
	}
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(fatal_sigs[i], &sa, &old[i]);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	*colour = tui_colours();
	return 0;
}

int tui_colours(void)
{
	if (!has_colors() || getenv("NO_COLOR"))
		return 0;
	start_color();
	use_default_colors();
	init_pair(C_TITLE, COLOR_WHITE, COLOR_BLUE);
	init_pair(C_SEL, COLOR_BLACK, COLOR_CYAN);
	init_pair(C_BAR, COLOR_GREEN, -1);
	init_pair(C_DIM, COLOR_WHITE, COLOR_BLACK);
	init_pair(C_WARN, COLOR_YELLOW, -1);
	init_pair(C_MARK, COLOR_MAGENTA, -1);
	init_pair(C_WORSE, COLOR_RED, -1);
	init_pair(C_SIDE, COLOR_BLUE, -1);
	init_pair(C_SIDE + 1, COLOR_YELLOW, -1);
	init_pair(C_SIDE + 2, COLOR_CYAN, -1);
	init_pair(C_SIDE + 3, COLOR_WHITE, -1);
	return 1;
}

void tui_term_close(const struct sigaction *old)
{
	restore_terminal();
	for (int i = 0; i < 4; i++)
		sigaction(fatal_sigs[i], &old[i], NULL);
}

/* Enter drills down, Esc goes back: each view's own step. */
static void drill(struct ui *u, int ch)
{
	if (ch == '\n' || ch == KEY_ENTER) {
		if (u->view == V_OVERVIEW)
			u->view = V_LATENCY;
		else if (u->view == V_REUSE)
			u->reuse_hist = 1;
		else if (u->view == V_SITES && !u->stacks_shown)
			tui_open_stacks(u);
		return;
	}
	if (u->view == V_REUSE && u->reuse_hist)
		u->reuse_hist = 0;
	else if (u->view == V_SITES && u->stacks_shown)
		u->stacks_shown = 0;
	else if (u->view == V_LATENCY)
		u->view = V_OVERVIEW;
}

static void mouse(struct ui *u)
{
	MEVENT me;

	if (getmouse(&me) != OK)
		return;
	if (me.bstate & BUTTON4_PRESSED)
		move_sel(u, -1);
	else if (me.bstate & BUTTON5_PRESSED)
		move_sel(u, 1);
	else if (me.y == 0)
		u->view = (u->view + 1) % V_NR;
}

/* One key: 1 when it quits. */
static int key(struct ui *u, int ch)
{
	switch (ch) {
	case 'q':
	case 'Q':
		return 1;
	case '?': u->help = 1; break;
	case '\t': u->view = (u->view + 1) % V_NR; break;
	case KEY_BTAB: u->view = (u->view + V_NR - 1) % V_NR; break;
	case KEY_UP:
	case 'k': move_sel(u, -1); break;
	case KEY_DOWN:
	case 'j': move_sel(u, 1); break;
	case KEY_PPAGE: move_sel(u, -10); break;
	case KEY_NPAGE: move_sel(u, 10); break;
	case KEY_HOME: move_sel(u, -100000); break;
	case KEY_END: move_sel(u, 100000); break;
	case '\n':
	case KEY_ENTER:
	case 27: /* Esc */
	case KEY_BACKSPACE: drill(u, ch); break;
	case 's':
		if (u->view == V_OVERVIEW) {
			u->sort = (u->sort + 1) % TUI_NR_SORTS;
			build_rows(u);
		}
		break;
	case '/':
		if (u->view == V_OVERVIEW)
			read_filter(u);
		break;
	case 'g': u->gap = !u->gap; break;
	case KEY_MOUSE: mouse(u); break;
	default: break; /* KEY_RESIZE: ncurses has the new size; the loop redraws */
	}
	return 0;
}

int fol_tui_run(const struct fol_report *r, const char *path, char *err, size_t errlen)
{
	struct ui u = { .r = r, .path = path };
	struct sigaction old[4];
	int ch, ret = tui_term_open(&u.colour, &u.utf8, old, err, errlen);

	if (ret)
		return ret;
	build_rows(&u);
	/* The latency view opens on the row with the most fault time: the one to look at. */
	for (int i = 1; i < u.nrows; i++)
		if (fol_cell_time(&r->s, tui_cell(&u, &u.rows[i])) > fol_cell_time(&r->s, tui_cell(&u, &u.rows[u.sel])))
			u.sel = i;
	for (;;) {
		draw(&u);
		ch = getch();
		/* Any key closes the help; q still quits. */
		if (u.help && ch != KEY_RESIZE) {
			u.help = 0;
			if (ch != 'q')
				continue;
		}
		if (key(&u, ch))
			break;
	}
	tui_term_close(old);
	fol_grouping_free(&u.sites);
	fol_grouping_free(&u.maps);
	fol_grouping_free(&u.map_cells);
	fol_folded_free(&u.stacks);
	return 0;
}
