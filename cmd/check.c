#include <stdio.h>

#include "cmd.h"

int cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 1;
}
