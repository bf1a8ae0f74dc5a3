# foliostat: one non-recursive Makefile.
#   make                 build ./foliostat (installs missing dependencies first)
#   make check           unit tests, golden tests and live tests
#   make run             record and report the default workload
#   make bench           benchmarks (results in bench-results.txt)
#   V=1                  show commands; SANITIZE=address,undefined  build with sanitizers

CC ?= cc
PKGS := libtraceevent libtracefs libcjson ncursesw libdeflate
LIBPERF := deps/libperf
comma := ,
BUILD := build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers
CFLAGS += -DFOL_VERSION=\"0.1.0\" -D_GNU_SOURCE -Ilib -Itui -I$(LIBPERF)/include
CFLAGS += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS += -MMD -MP
LDLIBS += $(LIBPERF)/lib/libperf.a $(LIBPERF)/lib/libapi.a
LDLIBS += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif

# A known leak inside libperf (see the file) must not fail sanitizer runs.
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRCS := $(wildcard lib/*.c)
CMD_SRCS := $(wildcard cmd/*.c)
TUI_SRCS := $(wildcard tui/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/%.o)
TUI_OBJS := $(TUI_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
FUZZ_BIN := $(BUILD)/tests/fuzz/fuzz_reader

BIN := foliostat$(if $(SANITIZE),-san)

.PHONY: all deps check check-unit check-golden check-tui check-live check-kernels run bench clean fuzz mutate
all: $(BIN)

deps: $(LIBPERF)/.stamp
$(LIBPERF)/.stamp: scripts/install-deps.sh scripts/build-libperf.sh
	$(Q)./scripts/install-deps.sh
	$(Q)touch $@

$(BUILD)/%.o: %.c | $(LIBPERF)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BIN): $(CMD_OBJS) $(TUI_OBJS) $(LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs cmocka)

check-unit: $(UNIT_BINS)
	$(Q)set -e; for t in $(UNIT_BINS); do echo "# $$t"; CMOCKA_MESSAGE_OUTPUT=stdout $$t; done

check-golden: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) prove tests/golden/*.t

# The workloads run unsanitized: ASan's own mappings would change their memory geometry.
check-live: $(BIN)
	$(Q)$(if $(SANITIZE),$(MAKE) --no-print-directory SANITIZE= all)
	$(Q)FOLIOSTAT=./$(BIN) WORKLOAD_BIN=./foliostat prove tests/live/*.t

check-tui: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) prove tests/tui/*.t

check: check-unit check-golden check-tui check-live

run: $(BIN)
	$(Q)./$(BIN) record && ./$(BIN) report

# The live checks inside Debian's 6.1 and 6.12 kernels under QEMU (see the script).
check-kernels: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) ./scripts/check-kernels.sh

bench: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) ./scripts/bench.sh bench-results.txt

clean:
	rm -rf build build-* foliostat foliostat-san

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# libFuzzer on the file reader (needs clang: apt-get install clang).
fuzz: | $(LIBPERF)/.stamp
	@command -v clang >/dev/null || { echo "make fuzz needs clang: apt-get install clang"; exit 1; }
	@mkdir -p build-fuzz/tests/fuzz
	clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE -DFOL_VERSION=\"fuzz\" \
		-Ilib -I$(LIBPERF)/include $(shell pkg-config --cflags $(PKGS)) \
		tests/fuzz/fuzz_reader.c $(filter-out lib/record.c lib/check.c,$(LIB_SRCS)) \
		-o $(FUZZ_BIN:build/%=build-fuzz/%) $(shell pkg-config --libs $(PKGS)) -lm
	@mkdir -p build-fuzz/corpus && cp tests/golden/small.data build-fuzz/corpus/
	./build-fuzz/tests/fuzz/fuzz_reader -max_total_time=$${FUZZ_SECONDS:-60} build-fuzz/corpus

# Mutation check of the core rules (scripts/mutate.sh): every mutant must be killed.
mutate: | $(LIBPERF)/.stamp
	$(Q)./scripts/mutate.sh
