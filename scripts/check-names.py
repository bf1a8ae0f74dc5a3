#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The house's rules on names, run by make check (check-house):

- lib/ starts processes in one place: fork, exec and signal handlers only in
  lib/record/start.c (cmd/ owns signals; the workloads are programs, in cmd/workloads/);
- no source file over 1,000 lines (issue 27: a file past that is two files);
- comments name only what exists: a file of this repository by its path or its name, a
  function or identifier that the code has, or one of a library header (/usr/include,
  libperf's) or of the kernel (listed below, each with where it is). A comment that names
  a function renamed or gone sends the next reader looking for nothing.
"""
import glob
import os
import re
import subprocess
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

# Names of the kernel's (or of other projects' sources) that comments cite on purpose.
EXTERNAL = {
    'do_cow_fault', 'do_huge_pmd_anonymous_page', 'page_mkwrite', 'mm_struct', 'vm_fault_t',
    'vm_special_mapping', 'tracepoint_synchronize_unregister',	# mm/, kernel/tracepoint.c
    'map_mem_usage',				# kernel/bpf: a map's memory in fdinfo
    'exceed_none_pte', 'scan_result',		# mm/khugepaged.c's result names
    'direct_reclaim_end',			# vmscan:mm_vmscan_direct_reclaim_end
    'tty_nr',					# proc(5): /proc/PID/stat's field
    'split_deferred',				# an mTHP size's stats/ file
    'sample_id',				# perf_event_open(2): the sample_id trailer
    'map_ip',					# tools/perf: struct map's map_ip()
    'dwfl_module_addrsym.c',			# elfutils' libdwfl source
    'compare-kernels.sh', 'select_lowest',	# mmtests
    'foo_total', 'wp_1234',			# examples in comments
    'irq_work', 'syscall_trace_enter',		# kernel/bpf/mmap_unlock_work.h, trace/trace.h
    'pagefault_disable',			# include/linux/uaccess.h
    'pin_user_pages',				# mm/gup.c
    'histogram_quantile',			# PromQL
    'fault_around_bytes',			# mm/memory.c's debugfs knob
}
MAX_LINES = 1000
PROCESS_CALLS = re.compile(r'\b(fork|vfork|clone3?|exec[lv]p?e?|posix_spawnp?|signal|sigaction)\s*\(')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def sources():
    pats = ['lib/*/*.[ch]', 'lib/record/bpf/*.c', 'cmd/*.[ch]', 'cmd/*/*.[ch]', 'tui/*.[ch]',
            'tests/unit/*.[ch]', 'tests/fuzz/*.[ch]']
    return sorted(f for p in pats for f in glob.glob(p))


def main():
    bad = []
    files = sources()
    text = {f: open(f, encoding='utf-8').read() for f in files}
    code = {f: COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), t) for f, t in text.items()}
    words = set()
    for c in code.values():
        words.update(re.findall(r'\b[A-Za-z_]\w*\b', c))
    for f, t in text.items():
        if t.count('\n') > MAX_LINES:
            bad.append(f'{f}: {t.count(chr(10))} lines: split it along its seams (at most {MAX_LINES})')
    for f, c in code.items():
        # BPF programs (lib/record/bpf/) run in the kernel: theirs are tracepoint names.
        if f.startswith('lib/') and f != 'lib/record/start.c' and not f.startswith('lib/record/bpf/'):
            for m in PROCESS_CALLS.finditer(STRING.sub('""', c)):
                line = c.count('\n', 0, m.start()) + 1
                bad.append(f'{f}:{line}: {m.group(1)}() in lib/: processes start in '
                           'lib/record/start.c only, signals are cmd/\'s')
    ours = set(subprocess.run(['git', 'ls-files', '-co', '--exclude-standard'], capture_output=True,
                              text=True).stdout.split())
    basenames = {os.path.basename(p) for p in ours}
    words |= {os.path.splitext(b)[0] for b in basenames}
    tops = {p.split('/')[0] + '/' for p in ours if '/' in p}
    unknown = {}
    for f, t in text.items():
        for m in COMMENT.finditer(t):
            line = t.count('\n', 0, m.start()) + 1
            c = m.group(0)
            for name in re.findall(r'(?<![\w./<-])([\w][\w./-]*\.(?:c|h|md|sh|py|t))\b', c):
                if name in EXTERNAL:
                    continue
                if any(name.startswith(top) for top in tops):
                    if name not in ours:
                        bad.append(f'{f}:{line}: the comment names {name}, which is not in the repository')
                elif '/' not in name and name not in basenames:
                    bad.append(f'{f}:{line}: the comment names {name}: no file of that name here')
            for name in set(re.findall(r'\b([A-Za-z_]\w*)\(\)', c)) | set(
                    re.findall(r'(?<![\w./:-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w/-]|\.\w)', c)):
                if name not in words and name not in EXTERNAL:
                    unknown.setdefault(name, []).append(f'{f}:{line}')
    if unknown:
        inc = [d for d in ('/usr/include', 'deps/libperf/include') if os.path.isdir(d)]
        found = subprocess.run(['grep', '-rhowF', *sum((['-e', n] for n in unknown), []), *inc],
                               capture_output=True, text=True).stdout.split()
        for name in sorted(set(unknown) - set(found)):
            for where in unknown[name]:
                bad.append(f'{where}: the comment names {name}, which nothing here defines '
                           '(renamed or gone? a kernel name goes into EXTERNAL)')
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f'ok - {len(files)} files of at most {MAX_LINES} lines; lib/ starts processes in one '
          'place; comments name what exists')
    return 0


if __name__ == '__main__':
    sys.exit(main())
