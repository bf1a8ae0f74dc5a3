# SPDX-License-Identifier: GPL-2.0-only
# foliostat: one non-recursive Makefile.
#   make deps            install what foliostat needs (Debian packages; libperf built into
#                        deps/ from Debian's kernel source, ~150 MB downloaded once)
#   make                 build ./foliostat
#   make run             deps, then record and report the default workload
#   make check           deps, then unit, golden, TUI, live and fuzz tests
#   make check-kernels   the live checks in Debian's 6.1 and 6.12 kernels under QEMU:
#                        x86-64, and arm64 with a cross-built foliostat (CROSS=arm64)
#   make check-kernels-live  the whole live suite inside the same x86-64 kernels
#                        (this machine's root shared read-only; slow: see README)
#   make install         PREFIX=/usr/local DESTDIR= : binary, man pages, bash completion
#   make bench           benchmarks (results in bench-results.txt), then serve's 30-minute
#                        soak (SOAK_MINUTES=): its memory must stay flat
#   V=1                  show commands; SANITIZE=address,undefined  build with sanitizers
#   DEVELOPER=1          warnings are errors (CI and developers; .ci/run sets it)
#   TEST_TIMEOUT=900     seconds a golden, TUI or live test may take before it is failed
#   CFLAGS=...           optimisation and debugging flags (default -O2 -g, frame pointers
#                        kept: record -g unwinds the built-in workloads by them); what foliostat
#                        needs is added in ALL_CFLAGS whatever CFLAGS says

CC ?= cc
PKGS := libtraceevent libtracefs libcjson ncursesw libdeflate gsl libdw
PKG_CONFIG := pkg-config
LIBPERF := deps/libperf
comma := ,
BUILD := build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))
GSL_LIBS :=
# CROSS=arm64: foliostat for arm64 (scripts/check-kernels-arm64.sh), from Debian's cross
# compiler and the arm64 libraries installed beside the native ones (multiarch). GSL's
# -dev package cannot be installed for two architectures: its headers are the native
# ones, its arm64 libraries are named.
ifeq ($(CROSS),arm64)
CC := aarch64-linux-gnu-gcc
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
PKGS := $(filter-out gsl,$(PKGS))
# Nor is libmicrohttpd's: the arm64 build has no serve.
HTTP_CFLAGS := -DFOL_NO_HTTP
GSL_LIBS := /usr/lib/aarch64-linux-gnu/libgsl.so.27 /usr/lib/aarch64-linux-gnu/libgslcblas.so.0
LIBPERF := deps/libperf-arm64
BUILD := build-arm64
endif
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
# The version, from one place: debian/changelog's first entry (the package's too).
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)

# The BPF fault path (lib/record/bpf_faults.c): its programs, lib/record/bpf/faults.bpf.c (the
# pairing: every program), decide.bpf.c (kernel decisions), file.bpf.c (file folios) and
# settings.bpf.c, compiled by clang, linked into one object and embedded as a libbpf skeleton. NO_BPF=1 builds without it (the cross build does:
# Debian's arm64 libbpf is not installed beside the native one); record then takes the
# plain path and says why.
ifeq ($(CROSS),arm64)
NO_BPF := 1
endif
ifeq ($(NO_BPF),)
PKGS += libbpf
BPF_SKEL := $(BUILD)/lib/record/bpf/faults.skel.h
BPF_CFLAGS := -I$(BUILD)/lib/record/bpf
else
BPF_CFLAGS := -DFOL_NO_BPF
endif

CFLAGS = -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
ALL_CFLAGS = $(CFLAGS) -std=gnu11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers
ALL_CFLAGS += $(if $(DEVELOPER),-Werror)
ALL_CFLAGS += -DFOL_VERSION=\"$(VERSION)\" -D_GNU_SOURCE -Ilib -Itui -I$(BUILD) -I$(LIBPERF)/include
ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
ALL_CFLAGS += -MMD -MP $(BPF_CFLAGS) $(HTTP_CFLAGS)
# serve opens libmicrohttpd when it starts (cmd/serve.c says why): its header, not its
# library.
HTTP_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags libmicrohttpd 2>/dev/null)
LDLIBS += $(LIBPERF)/lib/libperf.a $(LIBPERF)/lib/libapi.a
LDLIBS += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) $(GSL_LIBS) -lm
ifneq ($(SANITIZE),)
# GCC's undefined leaves out float-cast-overflow (clang's has it): a double from a file
# cast to an integer out of range is exactly what the fuzzer finds (a -1 file inode).
SANITIZE_ALL = $(SANITIZE)$(if $(findstring undefined,$(SANITIZE)),$(comma)float-cast-overflow)
ALL_CFLAGS += -fsanitize=$(SANITIZE_ALL) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE_ALL)
# A pointer kept across a map's change is a use after free there (u64map.c).
ALL_CFLAGS += $(if $(findstring address,$(SANITIZE)),-DFOL_U64MAP_MOVES)
endif

# A known leak inside libperf (see the file) must not fail sanitizer runs.
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRCS := $(wildcard lib/*/*.c)
CMD_SRCS := $(wildcard cmd/*.c cmd/*/*.c)
TUI_SRCS := $(wildcard tui/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/%.o)
TUI_OBJS := $(TUI_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

BIN := foliostat$(if $(SANITIZE),-san)$(if $(CROSS),-$(CROSS))

.PHONY: all deps test-deps deb check-fresh check check-all check-house check-unit check-fuzz check-golden check-tui check-live \
	check-kernels check-kernels-live run bench clean fuzz fuzz-run mutate install uninstall need-deps FORCE
all: $(BIN)

# Installs only what is missing; again after the scripts change. deps: what building and
# running needs; test-deps: what the tests need besides (install-deps.sh says which).
deps: $(LIBPERF)/.stamp
$(LIBPERF)/.stamp: scripts/install-deps.sh scripts/build-libperf.sh
	$(Q)./scripts/install-deps.sh
	$(Q)touch $@
test-deps: deps/.test-stamp
deps/.test-stamp: scripts/install-deps.sh | deps
	$(Q)./scripts/install-deps.sh test
	$(Q)touch $@

need-deps:
	$(Q)test -e $(LIBPERF)/.stamp || { echo "foliostat: run 'make deps' first (as root: Debian \
packages, and libperf built from Debian's kernel source into deps/)" >&2; exit 1; }

$(BUILD)/%.o: %.c | need-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# -I for <asm/types.h>, which Debian keeps under the multiarch directory.
$(BUILD)/lib/record/bpf/%.bpf.o: lib/record/bpf/%.bpf.c lib/data/bpf_record.h lib/record/bpf/kernel.bpf.h \
				  lib/record/bpf/decide.bpf.h lib/record/bpf/file.bpf.h lib/record/bpf/settings.bpf.h | need-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BPF     $<")
	$(Q)clang -O2 -g -Wall $(if $(DEVELOPER),-Werror) -target bpf -mcpu=v3 -I/usr/include/$(shell gcc -print-multiarch) -Ilib -c -o $@ $<

# One object of the fault path's sources, linked by libbpf's static linker.
$(BUILD)/lib/record/bpf/faults.linked.o: $(BUILD)/lib/record/bpf/faults.bpf.o $(BUILD)/lib/record/bpf/decide.bpf.o \
					 $(BUILD)/lib/record/bpf/file.bpf.o $(BUILD)/lib/record/bpf/settings.bpf.o
	$(Q)bpftool gen object $@ $^

$(BUILD)/lib/record/bpf/faults.skel.h: $(BUILD)/lib/record/bpf/faults.linked.o
	$(Q)bpftool gen skeleton $< name fol_faults_bpf >$@.tmp && mv $@.tmp $@

$(BUILD)/lib/record/bpf_faults.o: $(BPF_SKEL)

# The commit built from, for --version: rewritten only when it changes, so that a build
# of the same tree relinks nothing. Outside a git checkout (a source package), none.
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
$(BUILD)/commit.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define FOL_COMMIT "$(if $(COMMIT:-dirty=),$(COMMIT),unknown)"' >$@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
FORCE:
$(BUILD)/cmd/main.o: $(BUILD)/commit.h

$(BIN): $(CMD_OBJS) $(TUI_OBJS) $(LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A unit test links only the objects of its stage and the stages before it
# (scripts/unit-stage.sh): a stage that called a later one's function would not link in
# its own tests, the wall of lib/README.md held by the linker too.
unit_objs = $(foreach s,$(shell scripts/unit-stage.sh tests/unit/$(1).c),$(filter $(BUILD)/lib/$(s)/%,$(LIB_OBJS)))
.SECONDEXPANSION:
$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $$(call unit_objs,$$*)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs cmocka)

# test_decide runs the fault path's programs on this machine (tests/unit/bpfhost): built by
# the host's compiler against stand-ins for libbpf's headers, the names that libc or the
# model's test helpers hold too prefixed, the settings writable (no const).
BPFHOST_OBJS := $(addprefix $(BUILD)/tests/unit/bpfhost/,bpfhost.o faults.o decide.o settings.o)
BPFHOST_FLAGS = -Itests/unit/bpfhost -Ilib/record/bpf -Wno-attributes -Wno-unused-parameter
$(BUILD)/tests/unit/bpfhost/%.o: lib/record/bpf/%.bpf.c | need-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (host)")
	$(Q)$(CC) $(BPFHOST_FLAGS) $(ALL_CFLAGS) -Dconst= -Dalloc=bpfp_alloc -Dfork=bpfp_fork \
		-Dexec=bpfp_exec -Drss=bpfp_rss -DLICENSE=LICENSE_$* -c -o $@ $<
$(BUILD)/tests/unit/bpfhost/bpfhost.o: tests/unit/bpfhost/bpfhost.c | need-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BPFHOST_FLAGS) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/tests/unit/test_decide: $(BPFHOST_OBJS)

# The house's rules that a reader would otherwise check by hand: lib/'s stages include
# only earlier ones (lib/README.md); processes start in one place; comments name what
# exists; commit messages are git's (a short subject, a body).
check-house: $(BUILD)/lib/record/bpf/faults.linked.o
	$(Q)./scripts/check-includes.sh
	$(Q)./scripts/check-names.py
	$(Q)./scripts/check-commits.sh
	$(Q)./scripts/check-bpf-stack.py $<

# The statistics' expected values are scipy's: regenerated and compared each time.
check-unit: $(UNIT_BINS)
	$(Q)tests/unit/stats_reference.py | diff -u tests/unit/stats_reference.h - \
		|| { echo "tests/unit/stats_reference.h differs from scipy's values" >&2; exit 1; }
	$(Q)tests/unit/test_bench.py
	$(Q)$(PROVE) tests/unit/guest.t
	$(Q)set -e; for t in $(UNIT_BINS); do echo "# $$t"; CMOCKA_MESSAGE_OUTPUT=stdout $$t; done

# A test that hangs fails on its own instead of using up CI's time (a FIFO reader left
# waiting did, once): the slowest live test takes ~1 minute here, ~3 sanitized.
TEST_TIMEOUT ?= 900
PROVE = prove --timer --exec 'timeout -k 10 $(TEST_TIMEOUT) bash'

check-golden: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) $(PROVE) tests/golden/*.t

# The workloads run unsanitized: ASan's own mappings would change their memory geometry.
check-live: $(BIN)
	$(Q)$(if $(SANITIZE),$(MAKE) --no-print-directory SANITIZE= all)
	$(Q)FOLIOSTAT=./$(BIN) WORKLOAD_BIN=./foliostat $(PROVE) tests/live/*.t

check-tui: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) $(PROVE) tests/tui/*.t

# The fuzzers last: the PTE-mapped THP checks of tests/live/04 failed three times in runs
# right after them (~1 GB of fuzzer memory churned) and never in 20 runs without: the
# likely cause is fragmentation or reclaim touching the THPs the test counts.
check: deps test-deps
	$(Q)$(MAKE) --no-print-directory check-all
check-all: check-house check-unit check-golden check-tui check-live check-fuzz

run: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(Q)./$(BIN) record && ./$(BIN) report

# The README's way in on a bare Debian 12 (a debootstrap chroot): make run from a clone,
# make deb, the package installed and run (scripts/check-fresh.sh).
check-fresh:
	$(Q)./scripts/check-fresh.sh

# A Debian package from debian/ (scripts/build-deb.sh): foliostat_VERSION_ARCH.deb here.
deb: deps
	$(Q)./scripts/build-deb.sh

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/foliostat
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 scripts/foliostat-completion.bash $(DESTDIR)$(COMPLETIONDIR)/foliostat

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/foliostat $(DESTDIR)$(COMPLETIONDIR)/foliostat
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))

# The live checks inside Debian's 6.1 and 6.12 kernels under QEMU (see the scripts):
# x86-64 guests from a busybox initramfs (and the compare across kernels), the whole live
# suite in both x86-64 kernels side by side, then arm64 guests (a cross-built foliostat;
# skipped, saying why, where the cross packages cannot be installed).
check-kernels: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) ./scripts/check-kernels.sh
	$(Q)FOLIOSTAT=./$(BIN) ./scripts/check-kernels-live.sh
	$(Q)./scripts/check-kernels-arm64.sh

# Only the live suite in the guest kernels (KERNELS=, TESTS= choose; TIMEOUT= per kernel).
check-kernels-live: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) ./scripts/check-kernels-live.sh

bench: $(BIN)
	$(Q)FOLIOSTAT=./$(BIN) ./scripts/bench.py bench-results.txt
	$(Q)FOLIOSTAT=./$(BIN) ./scripts/soak.sh bench-results.txt

clean:
	rm -rf build build-* foliostat foliostat-san foliostat-arm64

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Fuzzing. Six libFuzzer targets (tests/fuzz/): reader (whole files, as read), chunks
# (chunks written back with right CRCs), events (event descriptions), records (perf record
# streams), archive (foliostat archive's files, extracted), debuglink (ELF files under a
# symfs, their debug links followed). make check runs the crashers kept under tests/fuzz/regress/TARGET/ through a
# gcc build of each target (sanitized with SANITIZE=...), then each target under libFuzzer
# for FUZZ_CHECK_SECONDS; make fuzz runs them for FUZZ_SECONDS each. Crashes land in
# build-fuzz/artifacts/.
FUZZ_TARGETS := reader chunks events records archive debuglink
FUZZ_CHECK_SECONDS ?= 8
FUZZ_SECONDS ?= 60
# The fuzzers link no libperf: the modules that open events stay out, and serve's pull of
# the programs' counts from a running recorder.
FUZZ_LIB_SRCS := $(filter-out lib/record/% lib/live/kcounts.c,$(LIB_SRCS))
FUZZ_RUNNERS := $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz/run_%)
# Deferred (=): expanded at parse time, its pkg-config would complain on a machine that has
# not run make deps yet, before make run installs the packages.
FUZZ_CLANG = clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-std=gnu11 -D_GNU_SOURCE -DFOL_VERSION=\"fuzz\" -Ilib -I$(LIBPERF)/include $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)

$(BUILD)/tests/fuzz/run_%: tests/fuzz/run_files.c tests/fuzz/fuzz_%.c $(LIB_OBJS) tests/fuzz/harness.h tests/fuzz/fuzz_one.h \
		tests/fuzz/json_mutator.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ tests/fuzz/run_files.c tests/fuzz/fuzz_$*.c $(LIB_OBJS) $(LDLIBS)

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_SRCS) tests/fuzz/harness.h tests/fuzz/fuzz_one.h \
		tests/fuzz/json_mutator.h | need-deps
	@mkdir -p build-fuzz
	@$(if $(Q),echo "  CLANG   $@")
	$(Q)$(FUZZ_CLANG) tests/fuzz/fuzz_$*.c $(FUZZ_LIB_SRCS) -o $@ $(shell pkg-config --libs $(PKGS)) -lm

build-fuzz/fuzz_seeds: tests/fuzz/fuzz_seeds.c $(LIB_OBJS)
	@mkdir -p build-fuzz
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

build-fuzz/seeds/.stamp: build-fuzz/fuzz_seeds tests/golden/small.data tests/golden/bpf.data \
		tests/fuzz/debuglink_seeds.py
	$(Q)rm -rf build-fuzz/seeds && mkdir -p build-fuzz/seeds
	$(Q)./build-fuzz/fuzz_seeds tests/golden/small.data build-fuzz/seeds
	$(Q)tests/fuzz/debuglink_seeds.py build-fuzz/seeds/debuglink
	$(Q)mkdir -p build-fuzz/seeds/reader && cp tests/golden/small.data tests/golden/bpf.data build-fuzz/seeds/reader/
	$(Q)touch $@

# FUZZ_TIME=seconds per target
define run_libfuzzer
	$(Q)set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p build-fuzz/corpus/$$t build-fuzz/artifacts tests/fuzz/regress/$$t; \
		echo "# libFuzzer: $$t for $(1) s"; \
		./build-fuzz/fuzz_$$t -max_total_time=$(1) -timeout=20 -rss_limit_mb=2048 -max_len=262144 \
			-dict=tests/fuzz/json.dict \
			-artifact_prefix=build-fuzz/artifacts/$$t- -print_final_stats=1 \
			build-fuzz/corpus/$$t build-fuzz/seeds/$$t tests/fuzz/regress/$$t 2>build-fuzz/$$t.log \
			|| { tail -40 build-fuzz/$$t.log; echo "fuzz $$t: crash; the input is in build-fuzz/artifacts/"; exit 1; }; \
		grep -aE "stat::number_of_executed_units|stat::peak_rss_mb" build-fuzz/$$t.log | tr '\n' ' '; echo; \
	done
endef

check-fuzz: $(FUZZ_RUNNERS)
	$(Q)set -e; for t in $(FUZZ_TARGETS); do \
		files=$$(find tests/fuzz/regress/$$t -type f 2>/dev/null | sort); \
		printf '# regression inputs, %s: ' $$t; $(BUILD)/tests/fuzz/run_$$t $$files; \
	done
	$(Q)if command -v clang >/dev/null; then \
		$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=build-fuzz/fuzz_%) build-fuzz/seeds/.stamp && \
		$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=$(FUZZ_CHECK_SECONDS); \
	else echo "# libFuzzer skipped: no clang (scripts/install-deps.sh installs it)"; fi

fuzz-run:
	$(call run_libfuzzer,$(FUZZ_TIME))

fuzz: test-deps $(FUZZ_TARGETS:%=build-fuzz/fuzz_%) build-fuzz/seeds/.stamp
	$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=$(FUZZ_SECONDS)

# Mutation check of the core rules (scripts/mutate.sh): every mutant must be killed.
mutate: test-deps
	$(Q)./scripts/mutate.sh
