# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Sourced by the three check-kernels scripts: a guest's work directory, its initramfs, its
# boot under QEMU's software emulation, what its console says between @@ markers, and the
# checks of what scripts/guest-init.sh ran in it (the busybox guests, x86-64 and arm64).
# A check prints "ok: ..." or "FAIL: ..." under the guest's "== PACKAGE" line and returns
# 1 on a failure; the caller counts them and says the verdict.
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

# guest_start NAME: as root, a work directory W (mode 0777: the guests' own users write
# there), removed at exit unless KEEP is set, with the paths in guest_remove and after
# any background job (a virtiofsd, a guest) is stopped.
guest_remove=()
guest_start() {
	[ "$(id -u)" -eq 0 ] || { echo "$1: run as root (apt-get, qemu's devices)"; exit 1; }
	guest_name=$1
	W=$(mktemp -d "/tmp/foliostat-$1.XXXXXX")
	chmod 0777 "$W"
	trap guest_cleanup EXIT
}
guest_cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	[ ${#guest_remove[@]} -eq 0 ] || rm -rf "${guest_remove[@]}"
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}

# guest_kernel META [ARCH]: the kernel package of META unpacked in W; prints the package,
# or says why not (as the script) and returns 1.
guest_kernel() {
	kernel_package "$1" "$W" "${2:-}" 2> >(sed "s/^/$guest_name: /" >&2)
}

# guest_vmlinuz PACKAGE: its kernel image, unpacked by guest_kernel.
guest_vmlinuz() {
	ls "$W/$1"/boot/vmlinuz-* | head -n 1
}

# guest_root DIR BUSYBOX APPLET...: an initramfs's tree of a static busybox and links to
# the applets the init uses.
guest_root() {
	local r=$1 bb=$2 a
	shift 2
	rm -rf "$r"
	mkdir -p "$r"/{bin,proc,sys,dev,tmp}
	cp "$bb" "$r/bin/busybox"
	for a in "$@"; do ln -s busybox "$r/bin/$a"; done
}

# guest_libs ROOT ELF TRIPLET OBJDUMP: every shared object ELF needs, found by their
# DT_NEEDED entries (ldd cannot run another architecture's binary), copied to ROOT's
# /usr/lib/TRIPLET, and the dynamic loader beside.
guest_libs() {
	local r=$1 elf=$2 t=$3 objdump=$4 lib interp
	mkdir -p "$r/usr/lib/$t"
	[ -e "$r/lib" ] || ln -s usr/lib "$r/lib"
	for lib in $("$objdump" -p "$elf" | awk '/NEEDED/ {print $2}'); do
		[ -e "$r/usr/lib/$t/$lib" ] && continue
		cp -L "/usr/lib/$t/$lib" "$r/usr/lib/$t/$lib" || { echo "$guest_name: no /usr/lib/$t/$lib"; return 1; }
		guest_libs "$r" "/usr/lib/$t/$lib" "$t" "$objdump" || return 1
	done
	# The interpreter the program names (/lib64/ld-linux-x86-64.so.2, /lib/ld-linux-aarch64.so.1).
	interp=$(readelf -l "$elf" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	[ -z "$interp" ] || [ -e "$r$interp" ] || { mkdir -p "$r$(dirname "$interp")" && cp -L "/usr/lib/$t/$(basename "$interp")" "$r$interp"; }
}

# guest_checks_root DIR FOLIOSTAT TRIPLET OBJDUMP BUSYBOX: the busybox guests' tree:
# foliostat (and as fw, the workload under its own name, as in the host tests), its
# libraries, and scripts/guest-init.sh as /init.
guest_checks_root() {
	local r=$1 f=$2 t=$3
	guest_root "$r" "$5" sh mount mkdir cat echo sleep grep sed head tail wc ls poweroff sync uname date kill cut base64
	cp "$f" "$r/bin/foliostat"
	cp "$f" "$r/bin/fw"
	guest_libs "$r" "$f" "$t" "$4" || return 1
	sed "/^export PATH=/s|@TRIPLET@|$t|" "$(dirname "${BASH_SOURCE[0]}")/guest-init.sh" >"$r/init"
	chmod +x "$r/init"
}

# guest_pack DIR OUT: the tree as a gzipped initramfs.
guest_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

# guest_boot LOG TIMEOUT QEMU...: the guest run to its end or TIMEOUT seconds, its console
# in LOG and, without carriage returns, LOG.txt.
guest_boot() {
	local log=$1 limit=$2 start
	shift 2
	start=$(date +%s)
	timeout "$limit" "$@" </dev/null >"$log" 2>&1 || true
	tr -d '\r' <"$log" >"$log.txt"
	echo "   booted and ran in $(($(date +%s) - start)) s (software emulation: times are not speeds)"
}

# guest_panicked LOG.txt: whether the kernel panicked, its last words said if so.
guest_panicked() {
	grep -q "Kernel panic" "$1" || return 1
	echo "   WARNING: the guest kernel panicked; its last lines:"
	grep -E "RIP:|pc :|Kernel panic|Oops|invalid opcode|general protection" "$1" | head -5 | sed 's/^/   | /'
}

# guest_done LOG.txt: the guest reached its completion marker; its last lines if not.
guest_done() {
	if grep -q "Kernel panic" "$1" || ! grep -q "^@@DONE" "$1"; then
		echo "   FAIL: no completion marker (panic, hang or past the time limit); the console's last lines:"
		tail -n 20 "$1" | sed 's/^/   | /'
		return 1
	fi
}

# guest_mark LOG.txt NAME: the value of the first "@@NAME value" line.
guest_mark() {
	grep -ao "@@$2 .*" "$1" | head -n 1 | cut -d' ' -f2-
}

# guest_block LOG.txt NAME: the lines between @@NAME-BEGIN and @@NAME-END.
guest_block() {
	sed -n "/^@@$2-BEGIN/,/^@@$2-END/p" "$1" | sed '1d;$d'
}

# guest_report LOG.txt JSON: the guest's report --json of its recording, to JSON, and what
# the recording was (kernel, exit, methods); or why there is none.
guest_report() {
	local log=$1 j=$2
	guest_block "$log" JSON >"$j"
	if ! jq -e .schema "$j" >/dev/null 2>&1; then
		echo "   FAIL: no JSON report; record exit $(guest_mark "$log" RECORD-RC), its messages:"
		guest_block "$log" RECORD-ERR | head -20 | sed 's/^/   | /'
		echo "   the console's lines around it:"
		grep -v '^@@' "$log" | grep -aiE 'oops|bug|segfault|killed|error|warn' | head -10 | sed 's/^/   | /'
		return 1
	fi
	echo "   kernel $(guest_mark "$log" KERNEL), record exit $(guest_mark "$log" RECORD-RC), latency method $(jq -r .recording.latency_method "$j"), fault path $(jq -r '.recording.fault_path + (if .recording.fault_path_why then " (" + .recording.fault_path_why + ")" else "" end)' "$j")"
	guest_block "$log" CHECK | grep -E "kprobe|MISSING|page_fault_user|mTHP 64kB|PMD THP" | sed 's/^ */   check: /'
	echo "   events: $(jq -r '[.recording.events[] | select(.name != "tracking") | "\(.name)=\(.count)"] | join(" ")' "$j")"
	jq -r '.recording.warnings[] | "   warning: " + .' "$j"
	echo "   faults by order and class:"
	jq -r '.orders[] | "     order \(.order): " + ([.faults | to_entries[] | "\(.key)=\(.value)"] | join(" "))' "$j"
	jq -r '.orders[] | select(.reuse.folios > 0) | "     reuse, order \(.order): \(.reuse.folios) folios, \(.reuse.faults) faults, \(.reuse.faults_per_folio) per folio"' "$j"
}

# guest_geometry JSON KERNEL MIN-COPIES: what the fork-reuse of 32M must show, from each
# kernel's mm/memory.c: before 6.13, wp_can_reuse_anon_folio() refuses every large folio,
# so each write to a page of a large folio after fork() is a copy (wp_copy, a new 4K
# folio), never a reuse: at least MIN-COPIES of the 8192 writes (the sampled method may
# read a few as another class).
guest_geometry() {
	local j=$1 kver=$2 min=$3 copies a ru
	copies=$(jq '[.orders[] | select(.order == 0) | .faults.wp_copy // 0] | add // 0' "$j")
	case "$kver" in
	6.12.*)
		a=$(jq '[.orders[] | select(.order == 4) | .faults.anon_alloc // 0][0] // 0' "$j")
		ru=$(jq '[.orders[] | select(.order == 4) | .reuse.faults][0] // 0' "$j")
		# A little of the process's other anonymous memory (ld.so's and libc's data) can
		# take a 64K folio too while 64K is "always": seen 512 to 514 over many boots.
		if [ "$a" -ge 511 ] && [ "$a" -le 520 ] && [ "$copies" -ge "$min" ] && [ "$ru" -eq 0 ]; then
			echo "   ok: 64K mTHP fork-reuse of 32M: $a folios of 64K; each of their 16 pages takes one write fault after fork, a copy ($copies wp_copy on 4K), no reuse"
			return 0
		fi
		echo "   FAIL: 64K mTHP fork-reuse of 32M: $a 64K folios (want 512), $copies copies (want $min+), $ru reuse faults (want 0)"
		;;
	6.1.*)
		if jq -e '.recording.warnings | any(test("no multi-size THP"))' "$j" >/dev/null; then
			echo "   ok: the report says this kernel has no mTHP sizes"
		else
			echo "   FAIL: the report does not say the mTHP sizes are missing"
			return 1
		fi
		a=$(jq '[.orders[] | select(.order == 9) | .faults.anon_alloc // 0][0] // 0' "$j")
		if [ "$a" -eq 16 ] && [ "$copies" -ge "$min" ]; then
			echo "   ok: PTE-mapped THP of 32M: 16 folios of 2M; every page's write after fork is a copy ($copies wp_copy)"
			return 0
		fi
		echo "   FAIL: PTE-mapped THP of 32M: $a folios of 2M (want 16), $copies copies (want $min+)"
		;;
	*) echo "   FAIL: kernel release '$kver' is neither 6.1 nor 6.12" ;;
	esac
	return 1
}

# guest_kprobes LOG.txt: foliostat's kprobes on do_wp_page recorded (an entry and a return
# for each of the 2048 writes of 8M), there during a run, and gone after it, also after
# SIGINT.
guest_kprobes() {
	local log=$1 ke kr
	if ! grep -aq "@@KPROBE-RC" "$log"; then
		echo "   FAIL: the kernel has no kprobe events, but Debian's should"
		return 1
	fi
	ke=$(guest_mark "$log" KPROBE-ENTRIES) kr=$(guest_mark "$log" KPROBE-RETURNS)
	echo "   kprobes: $ke do_wp_page entries, $kr returns; e.g. $(guest_mark "$log" KPROBE-SAMPLE | sed 's/^ *//')"
	if [ "$(guest_mark "$log" KPROBE-RC)" = 0 ] && [ "${ke:-0}" -ge 2048 ] && [ "${kr:-0}" -ge 2048 ] &&
		[ "$(guest_mark "$log" KPROBE-LEFT)" = 0 ] && [ "$(guest_mark "$log" KPROBE-DURING)" = 2 ] &&
		[ "$(guest_mark "$log" KPROBE-LEFT-INT)" = 0 ]; then
		echo "   ok: kprobe events created (2 during a run), recorded, and removed after the run and after SIGINT"
		return 0
	fi
	echo "   FAIL: kprobes: rc $(guest_mark "$log" KPROBE-RC), entries $ke, returns $kr (want 2048+ each), left $(guest_mark "$log" KPROBE-LEFT), during $(guest_mark "$log" KPROBE-DURING), left after SIGINT $(guest_mark "$log" KPROBE-LEFT-INT)"
	return 1
}

# guest_khugepaged LOG.txt: khugepaged's collapses of the workload's 4M attributed to it
# equal the kernel's thp_collapse_alloc, and its scan sleep is put back; nothing to check
# where the kernel has no khugepaged.
guest_khugepaged() {
	local log=$1 n
	grep -aq "@@KH-RC" "$log" || return 0
	n=$(guest_block "$log" KH | jq '.collapse.khugepaged.collapses.succeeded // 0' 2>/dev/null || echo none)
	echo "   khugepaged: exit $(guest_mark "$log" KH-RC), $n collapses of the workload's memory in its report, thp_collapse_alloc +$(guest_mark "$log" KH-ALLOC)"
	if [ "$(guest_mark "$log" KH-RC)" = 0 ] && [ "$n" = "$(guest_mark "$log" KH-ALLOC)" ] && [ "$n" -ge 2 ] 2>/dev/null &&
		[ "$(guest_mark "$log" KH-SLEEP)" = 10000 ]; then
		echo "   ok: khugepaged's collapses attributed to the workload = the kernel's count; its sleep put back"
		return 0
	fi
	echo "   FAIL: khugepaged: exit $(guest_mark "$log" KH-RC), $n attributed, +$(guest_mark "$log" KH-ALLOC) counted, scan sleep now $(guest_mark "$log" KH-SLEEP)"
	return 1
}

# guest_verdict FAILED: the script's last line, and its status.
guest_verdict() {
	if [ "$1" -ne 0 ]; then
		echo "$guest_name: FAILED${KEEP:+ (logs kept in $W)}"
		exit 1
	fi
	echo "$guest_name: all kernels passed"
}
