// SPDX-License-Identifier: GPL-2.0-only
/* A fuzz target as a plain program: runs it once on each file named, for the regression
 * inputs in make check (gcc, with or without sanitizers, no libFuzzer needed). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		buf = malloc(64 << 20);
		n = buf ? fread(buf, 1, 64 << 20, f) : 0;
		fclose(f);
		/* An input that blocks (a FIFO opened) fails the run instead of stalling it. */
		alarm(60);
		LLVMFuzzerTestOneInput(buf, n);
		alarm(0);
		free(buf);
	}
	printf("%d inputs run\n", argc - 1);
	return 0;
}
