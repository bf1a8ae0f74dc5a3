// SPDX-License-Identifier: GPL-2.0-only
/* The report's outputs by name: a new one is a renderer file and a row here. */
#include "report/report.h"

#include <string.h>

const struct fol_report_format fol_report_formats[] = {
	{ "text", fol_render_text },
	{ "json", fol_render_json },
	{ "csv", fol_render_csv },
	{ "openmetrics", fol_render_openmetrics },
	{ "prometheus", fol_render_prometheus },
	{ "folded", fol_render_folded },
	{ NULL, NULL },
};

const struct fol_report_format *fol_report_format(const char *name)
{
	for (const struct fol_report_format *f = fol_report_formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}
