// SPDX-License-Identifier: GPL-2.0-only
/* Apart from the drawing code: terminfo's header defines lines, columns and a few
 * hundred more names as macros. */
#include "tui_priv.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <term.h>

int tui_term_usable(int fd, const char *what, char *err, size_t errlen)
{
	const char *term = getenv("TERM");
	char *cup;
	int e = 0;

	if (setupterm(NULL, fd, &e) != OK) {
		snprintf(err, errlen, "%s cannot draw on this terminal: TERM=%s is %s", what,
			 term ? term : "unset", e == 0 ? "not in the terminfo database" : "unknown");
		return -ENOTTY;
	}
	cup = tigetstr("cup");
	del_curterm(cur_term);
	if (!cup || cup == (char *)-1) {
		snprintf(err, errlen, "%s cannot draw on this terminal: TERM=%s cannot move its "
				      "cursor (set TERM to your terminal's type: xterm-256color, screen, "
				      "tmux, linux)", what, term ? term : "unset");
		return -ENOTTY;
	}
	return 0;
}
