// SPDX-License-Identifier: GPL-2.0-only
#include "util/order.h"

#include <stdio.h>

const char *fol_order_size(int order, unsigned page_size, char *buf, int len)
{
	unsigned long long b;

	if (order < 0) {
		snprintf(buf, (size_t)len, "unknown");
		return buf;
	}
	b = (unsigned long long)page_size << order;
	if (b >= (1ull << 30) && !(b & ((1ull << 30) - 1)))
		snprintf(buf, (size_t)len, "%lluG", b >> 30);
	else if (b >= (1ull << 20) && !(b & ((1ull << 20) - 1)))
		snprintf(buf, (size_t)len, "%lluM", b >> 20);
	else
		snprintf(buf, (size_t)len, "%lluK", b >> 10);
	return buf;
}
