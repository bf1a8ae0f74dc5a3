// SPDX-License-Identifier: GPL-2.0-only
#include "util/errors.h"

#include <string.h>

static const char *const texts[] = {
	[FOL_E_NOT_RECORDING - FOL_E_NOT_RECORDING] = "not a foliostat recording",
	[FOL_E_DAMAGED_HEADER - FOL_E_NOT_RECORDING] = "the file header is damaged",
	[FOL_E_NEWER_FORMAT - FOL_E_NOT_RECORDING] = "written by a newer foliostat",
	[FOL_E_NO_METADATA - FOL_E_NOT_RECORDING] = "no usable metadata or event descriptions",
	[FOL_E_BAD_METADATA - FOL_E_NOT_RECORDING] = "malformed metadata",
	[FOL_E_BAD_FORMAT - FOL_E_NOT_RECORDING] = "not a tracepoint format",
	[FOL_E_NOT_ARCHIVE - FOL_E_NOT_RECORDING] = "not a foliostat archive (foliostat archive makes one)",
};

const char *fol_strerror(int err)
{
	int e = err < 0 ? -err : err;

	if (e >= FOL_E_NOT_RECORDING && e < FOL_E_END)
		return texts[e - FOL_E_NOT_RECORDING];
	return strerror(e);
}
