// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target for the file reader: make fuzz (clang). Seed: tests/golden/small.data */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_one.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/foliostat-fuzz.%d", getpid());
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	fuzz_one_file(path);
	unlink(path);
	return 0;
}
