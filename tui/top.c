// SPDX-License-Identifier: GPL-2.0-only
/* foliostat top: processes (or a process's threads) with their faults of the last
 * interval and since the start, above the order x class table of all of them (or of the
 * process zoomed into). */
#include "top.h"
#include "tui_priv.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/format.h"
#include "util/grow.h"
#include "util/escape.h"
#include "util/order.h"

enum { S_TIME_I, S_FAULTS_I, S_TIME, S_FAULTS, S_P99, S_REUSE, S_NR };
static const char *const sort_names[S_NR] = { "time/i", "faults/i", "time", "faults", "p99",
					      "reuse/folio" };

struct fol_top_ui {
	SCREEN *scr;
	FILE *out, *in;
	int colour;
	int sort, sel, top, zoom_pid, frozen, help;
	/* The selection is a task, not a line: a refresh that sorts the rows anew keeps it
	 * on the task (j, Enter typed across a refresh once zoomed into the task below). j
	 * and k move through the rows as last drawn (shown, nrows of them). */
	int *shown, nrows;
	size_t shown_cap;
	int sel_pid;
};

static void style(const struct fol_top_ui *u, int pair, int extra, int on)
{
	int a = (u->colour ? COLOR_PAIR(pair) : 0) | extra;

	if (on)
		attron(a);
	else
		attroff(a);
}

/* Text at (y, x), cut at the screen's right edge (ncurses would wrap it onto the next
 * line). The cut counts columns: a UTF-8 character's continuation bytes take none. */
static void put(int y, int x, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(int y, int x, const char *fmt, ...)
{
	char buf[512];
	int n = 0, cols = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (; buf[n] && (cols < COLS - x || (buf[n] & 0xc0) == 0x80); n++)
		cols += (buf[n] & 0xc0) != 0x80;
	if (x < COLS)
		mvaddnstr(y, x, buf, n);
}

int fol_top_open(struct fol_top_ui **out, char *err, size_t errlen)
{
	struct fol_top_ui *u;
	int ofd, ifd;

	*out = NULL;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "top needs a terminal: 'foliostat stat -I MS --json' "
				      "streams the same figures as JSON lines");
		return -ENOTTY;
	}
	if (tui_term_usable(STDOUT_FILENO, "top", err, errlen))
		return -ENOTTY;
	u = calloc(1, sizeof(*u));
	ofd = dup(STDOUT_FILENO);
	ifd = dup(STDIN_FILENO);
	if (!u || ofd < 0 || ifd < 0 || !(u->out = fdopen(ofd, "w")) || !(u->in = fdopen(ifd, "r")) ||
	    !(u->scr = newterm(NULL, u->out, u->in))) {
		snprintf(err, errlen, "cannot set up the terminal (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "unset");
		if (u && u->out)
			fclose(u->out);
		else if (ofd >= 0)
			close(ofd);
		if (u && u->in)
			fclose(u->in);
		else if (ifd >= 0)
			close(ifd);
		free(u);
		return -EIO;
	}
	fol_fmt_set_ascii(strcmp(nl_langinfo(CODESET), "UTF-8") != 0);
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	u->colour = tui_colours();
	*out = u;
	return 0;
}

void fol_top_close(struct fol_top_ui *u)
{
	if (!u)
		return;
	endwin();
	delscreen(u->scr);
	fclose(u->out);
	fclose(u->in);
	free(u->shown);
	free(u);
}

int fol_top_frozen(const struct fol_top_ui *u)
{
	return u->frozen;
}

static uint64_t sort_value(const struct fol_tally_row *r, int sort)
{
	switch (sort) {
	case S_TIME_I: return r->last.time_ns;
	case S_FAULTS_I: return r->last.faults;
	case S_TIME: return r->mark.time_ns;
	case S_FAULTS: return r->mark.faults;
	case S_P99: return fol_lat_quantile(r->mark.lat, 0.99);
	default: return (uint64_t)(fol_tally_per_folio(&r->mark) * 1000);
	}
}

static int by_sort(const void *a, const void *b, void *sort)
{
	const struct fol_tally_row *x = *(const struct fol_tally_row *const *)a;
	const struct fol_tally_row *y = *(const struct fol_tally_row *const *)b;
	uint64_t vx = sort_value(x, *(const int *)sort), vy = sort_value(y, *(const int *)sort);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The upper table's rows: processes, or the zoomed process's threads; only those with
 * faults since the start, sorted. A malloc'ed array (NULL: none, or no memory). */
static const struct fol_tally_row **upper_rows(const struct fol_top_ui *u, const struct fol_top_data *d,
					       int *n)
{
	const struct fol_tally *t = u->zoom_pid ? d->threads : d->procs;
	size_t all = fol_tally_list(t, NULL, 0), k = 0;
	const struct fol_tally_row **v = calloc(all ? all : 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	all = fol_tally_list(t, v, all);
	for (size_t i = 0; i < all; i++)
		if (v[i]->mark.faults && (!u->zoom_pid || v[i]->pid == u->zoom_pid))
			v[k++] = v[i];
	qsort_r(v, k, sizeof(*v), by_sort, (void *)&u->sort);
	*n = (int)k;
	return v;
}

static void title(const struct fol_top_ui *u, const struct fol_top_data *d, int cols)
{
	const struct fol_tally_row *all = NULL;
	char a[32], b[32];

	char line[512];
	int x = 1;

	fol_tally_list(d->all, &all, 1);
	style(u, C_TITLE, A_BOLD, 1);
	mvhline(0, 0, ' ', cols);
	put(0, 1, "foliostat top - %s", d->target);
	style(u, C_TITLE, A_BOLD, 0);
	if (all)
		put(1, 1, "last %.1f s: %" PRIu64 " faults, %s   since start: %" PRIu64 " faults, %s",
		    d->interval_s, all->last.faults, fol_fmt_ns(all->last.time_ns, a, sizeof(a)),
		    all->mark.faults, fol_fmt_ns(all->mark.time_ns, b, sizeof(b)));
	if (d->state) {
		style(u, C_WARN, A_BOLD, 1);
		put(2, x, "%s  ", d->state);
		style(u, C_WARN, A_BOLD, 0);
		x += (int)strlen(d->state) + 2;
	}
	if (u->frozen) {
		style(u, C_MARK, A_BOLD, 1);
		put(2, x, "FROZEN (f)  ");
		style(u, C_MARK, A_BOLD, 0);
		x += 12;
	}
	snprintf(line, sizeof(line), "sort: %s", sort_names[u->sort]);
	if (u->zoom_pid)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "   threads of pid %d (Esc: all processes)", u->zoom_pid);
	put(2, x, "%s", line);
	x += (int)strlen(line);
	if (d->lost) {
		style(u, C_WARN, 0, 1);
		put(2, x, "   %" PRIu64 " events lost", d->lost);
		style(u, C_WARN, 0, 0);
	}
}

static void task_row(const struct fol_top_ui *u, const struct fol_tally_row *r, int y, int sel)
{
	char comm[64], t1[32], t2[32], p99[32];
	double per = fol_tally_per_folio(&r->mark), eff = fol_tally_effectiveness(&r->mark);

	if (sel)
		style(u, C_SEL, 0, 1);
	else if (r->gone)
		style(u, C_DIM, 0, 1);
	char reuse[40];

	if (per > 0)
		snprintf(reuse, sizeof(reuse), " %11.2f %7.1f%%", per, 100 * eff);
	else
		snprintf(reuse, sizeof(reuse), " %11s %8s", "-", "-");
	put(y, 0, "%7d %-15.15s %9" PRIu64 " %10s %11" PRIu64 " %10s %10s%s%s", u->zoom_pid ? r->tid : r->pid,
	    fol_escape(r->comm, comm, sizeof(comm)), r->last.faults,
	    fol_fmt_ns_col(r->last.time_ns, 1, 10, t1, sizeof(t1)), r->mark.faults,
	    fol_fmt_ns_col(r->mark.time_ns, 1, 10, t2, sizeof(t2)),
	    fol_fmt_ns_col(fol_lat_quantile(r->mark.lat, 0.99), r->mark.faults > 0, 10, p99, sizeof(p99)),
	    reuse, r->gone ? " ended" : "");
	if (sel)
		style(u, C_SEL, 0, 0);
	else if (r->gone)
		style(u, C_DIM, 0, 0);
}

/* The rows as drawn, for j and k; and the selected one's task. */
static void remember_rows(struct fol_top_ui *u, const struct fol_tally_row **v, int n)
{
	if (FOL_GROW(u->shown, u->shown_cap, (size_t)n, 64)) {
		/* out of memory: j and k stay, the selection keeps its line */
		u->nrows = 0;
		u->sel_pid = n ? v[u->sel]->pid : 0;
		return;
	}
	u->nrows = n;
	for (int i = 0; i < n; i++)
		u->shown[i] = v[i]->pid;
	u->sel_pid = n ? v[u->sel]->pid : 0;
}

static int draw_tasks(struct fol_top_ui *u, const struct fol_top_data *d, int y, int height)
{
	int n;
	const struct fol_tally_row **v = upper_rows(u, d, &n);

	style(u, C_DIM, A_REVERSE, 1);
	put(y++, 0, "%7s %-15s %9s %10s %11s %10s %10s %11s %8s", u->zoom_pid ? "TID" : "PID",
		 "COMMAND", "FAULTS/I", "TIME/I", "FAULTS", "TIME", "P99", "REUSE/FOLIO", "EFFECT");
	style(u, C_DIM, A_REVERSE, 0);
	for (int i = 0; i < n; i++)
		if (v[i]->pid == u->sel_pid)
			u->sel = i;
	if (u->sel >= n)
		u->sel = n ? n - 1 : 0;
	remember_rows(u, v, n);
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + height - 1)
		u->top = u->sel - (height - 2);
	for (int i = u->top; i < n && i - u->top < height - 1; i++)
		task_row(u, v[i], y + i - u->top, i == u->sel);
	if (!n)
		put(y, 1, u->zoom_pid ? "pid %d: no faults, or it has ended" : "no faults yet", u->zoom_pid);
	free(v);
	return y + height - 1;
}

/* The order x class table of all faults, or of the zoomed process. */
static void draw_cells(const struct fol_top_ui *u, const struct fol_top_data *d, int y, int lines)
{
	const struct fol_tally_row *r = NULL;
	const struct fol_tally *t = u->zoom_pid ? d->procs : d->all;
	size_t n = fol_tally_list(t, NULL, 0);
	const struct fol_tally_row **v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return;
	n = fol_tally_list(t, v, n);
	for (size_t i = 0; i < n; i++)
		if (!u->zoom_pid || (int)v[i]->key == u->zoom_pid)
			r = v[i];
	free(v);
	style(u, C_DIM, A_REVERSE, 1);
	put(y++, 0, "%6s %-10s %9s %11s %10s %10s %10s %10s", "ORDER", "CLASS", "FAULTS/I", "FAULTS",
		 "TIME/I", "TIME", "MEAN", "P99");
	style(u, C_DIM, A_REVERSE, 0);
	for (int slot = 0; r && slot < FOL_NR_ORDER_SLOTS; slot++)
		for (int c = 0; c < FOL_NR_CLASSES && y < lines - 1; c++) {
			const struct fol_tally_cell *tot = &r->mark.cell[slot][c], *last = &r->last.cell[slot][c];
			char sz[16], a[32], b[32], m[32], p[32];
			uint64_t p99 = r->hist ? fol_lat_quantile(r->hist[slot][c], 0.99) : 0;

			if (!tot->faults)
				continue;
			put(y++, 0, "%6s %-10s %9" PRIu64 " %11" PRIu64 " %10s %10s %10s %10s",
				 fol_order_size(FOL_SLOT_ORDER(slot), d->page_size, sz, sizeof(sz)),
				 fol_class_name((enum fol_class)c), last->faults, tot->faults,
				 fol_fmt_ns_col(last->time_ns, 1, 10, a, sizeof(a)),
				 fol_fmt_ns_col(tot->time_ns, 1, 10, b, sizeof(b)),
				 fol_fmt_ns_col(tot->timed ? tot->time_ns / tot->timed : 0, tot->timed > 0, 10, m,
						sizeof(m)),
				 fol_fmt_ns_col(p99, p99 > 0, 10, p, sizeof(p)));
		}
}

static void draw_help(const struct fol_top_ui *u)
{
	static const char *const lines[] = {
		"foliostat top: page faults by process, folio order and class, live",
		"",
		"  j/k, arrows   select a process        Enter   its threads (zoom)",
		"  s             next sort key           Esc     back to all processes",
		"  f             freeze / go on          q       quit",
		"",
		"  /I: the last interval (-d); FAULTS, TIME: since the start. P99: fault",
		"  latency since the start. REUSE/FOLIO: write-protect reuse faults per folio",
		"  episode after fork (1 is one fault per folio); EFFECT: its inverse.",
		"",
		"  Any key closes this help.",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++)
		put(4 + (int)i, 2, "%s", lines[i]);
	(void)u;
}

/* What top adds a fault, as measured over the last interval (cmd/top.c); before the
 * first, the interval. */
static const char *cost_line(const struct fol_top_data *d, char *buf, size_t len)
{
	if (!d->intervals)
		snprintf(buf, len, "interval %.1f s", d->interval_s);
	else if (d->prog_ns < 0)
		snprintf(buf, len, "%.0f faults/s, top %.0f ns/fault (BPF not measured)", d->per_s,
			 d->self_ns);
	else
		snprintf(buf, len, "%.0f faults/s, +%.0f ns/fault: BPF %.0f, top %.0f", d->per_s,
			 d->prog_ns + d->self_ns, d->prog_ns, d->self_ns);
	return buf;
}

void fol_top_draw(struct fol_top_ui *u, const struct fol_top_data *d)
{
	int lines = LINES, cols = COLS, upper;
	char cost[160];

	erase();
	title(u, d, cols);
	if (u->help) {
		draw_help(u);
	} else {
		upper = lines > 20 ? (lines - 5) / 2 : lines - 5;
		draw_cells(u, d, draw_tasks(u, d, 3, upper) + 1, lines);
	}
	style(u, C_DIM, A_REVERSE, 1);
	mvhline(lines - 1, 0, ' ', cols);
	put(lines - 1, 1, "q quit  s sort  f %s  Enter %s  ? help   %s", u->frozen ? "go on" : "freeze",
	    u->zoom_pid ? "back" : "threads", cost_line(d, cost, sizeof(cost)));
	style(u, C_DIM, A_REVERSE, 0);
	refresh();
}

static void select_row(struct fol_top_ui *u, int i)
{
	if (i < 0 || i >= u->nrows)
		return;
	u->sel = i;
	u->sel_pid = u->shown[i];
}

/* One key: 1 when it quits. */
static int key(struct fol_top_ui *u, int ch)
{
	if (u->help && ch != ERR) {
		u->help = 0;
		return 0;
	}
	switch (ch) {
	case 'q':
	case 'Q': return 1;
	case '?': u->help = 1; break;
	case 's': u->sort = (u->sort + 1) % S_NR; break;
	case 'f': u->frozen = !u->frozen; break;
	case KEY_UP:
	case 'k': select_row(u, u->sel - 1); break;
	case KEY_DOWN:
	case 'j': select_row(u, u->sel + 1); break;
	case '\n':
	case KEY_ENTER:
		u->zoom_pid = u->zoom_pid ? 0 : u->sel_pid;
		u->sel = u->top = u->sel_pid = 0;
		break;
	case 27:
	case KEY_BACKSPACE:
	case KEY_LEFT:
		u->zoom_pid = 0;
		u->sel = u->top = u->sel_pid = 0;
		break;
	default: break;
	}
	return 0;
}

int fol_top_keys(struct fol_top_ui *u, const struct fol_top_data *d)
{
	int ch, any = 0;

	while ((ch = getch()) != ERR) {
		if (ch == KEY_RESIZE) {
			any = 1;
			continue;
		}
		if (key(u, ch))
			return 1;
		any = 1;
	}
	if (any)
		fol_top_draw(u, d);
	return 0;
}
