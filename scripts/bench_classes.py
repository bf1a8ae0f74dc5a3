#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's cost of serve per fault class (issue 48), beside the floor and the others.

For each class a pair of runs of one built-in workload that differ only in that class's
faults (more pages, more passes, or the swap-in added), timed by the workload's own phase
of those faults (FOLIOSTAT_PHASES: the populate, the write passes, the swap-in), so that
neither exec, nor the region's teardown, nor the forks are in the figure: the cost of a
tool per fault is its pair's difference of phase time, less the bare pair's, over the
faults between (the kernel's count: the workload's minor and major faults, from wait4).
Serve's own CPU per fault is the CPU its threads took over each run (schedstat, ns), the
large run's less the small's, over the same faults. The tools, each started once a round and left running around both runs:

  floor         empty BPF programs (bpftrace, bodies {}) on every hook serve uses: what
                any per-fault program there costs before it does anything
  bpftrace      issue 48's fault-latency histogram (two probes, in-kernel histogram)
  perf_stat     perf stat -a of the fault events serve reads (counting, no samples)
  serve         foliostat serve (kernel decisions, the default)
  serve_s100    foliostat serve --sample 100

Rounds alternate the tools; figures are medians over rounds, each tool's paired with the
bare runs of its round, with their spread. Usage:
bench_classes.py FOLIOSTAT OUT (RUNS=N rounds, 5 by default; CLASSES=alloc,reuse,...;
TOOLS=floor,serve,...: only those, beside bare).
Appends to OUT and prints the same."""

import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import HIST, Results, Serve, bpftrace_usable, cpu_ns, phase_ns, run, stop

# Every hook serve's programs use (bpftool perf show of a serve, and the two software
# events its exit programs are on).
FLOOR_HOOKS = [
    'tracepoint:exceptions:page_fault_user', 'tracepoint:exceptions:page_fault_kernel',
    'software:minor-faults:1', 'software:major-faults:1',
    'tracepoint:kmem:mm_page_alloc', 'tracepoint:kmem:rss_stat',
    'tracepoint:filemap:mm_filemap_add_to_page_cache',
    'tracepoint:syscalls:sys_enter_munmap', 'tracepoint:syscalls:sys_enter_mremap',
    'tracepoint:syscalls:sys_exit_mremap', 'tracepoint:syscalls:sys_enter_madvise',
    'tracepoint:syscalls:sys_enter_mmap', 'tracepoint:sched:sched_process_fork',
    'tracepoint:sched:sched_process_exec', 'tracepoint:sched:sched_process_exit',
    'tracepoint:mmap_lock:mmap_lock_acquire_returned',
] + ['tracepoint:syscalls:sys_exit_' + c for c in (
    # the mapping calls' exits, where the VMAs serve's threads keep go out of date
    'mmap', 'munmap', 'brk', 'madvise', 'mprotect', 'pkey_mprotect', 'mlock', 'mlock2',
    'munlock', 'mlockall', 'munlockall', 'shmat', 'shmdt')]
PERF_EVENTS = 'exceptions:page_fault_user,exceptions:page_fault_kernel,minor-faults,' \
              'major-faults,kmem:mm_page_alloc,kmem:rss_stat'
TOOLS = ['bare', 'floor', 'bpftrace', 'perf_stat', 'serve', 'serve_s100']


class Tool:
    """One tool left running around a pair of runs: started, ready, stopped."""

    def __init__(self, name, fol):
        self.name, self.fol, self.proc, self.err = name, fol, None, None

    def start(self):
        if self.name == 'bare':
            return
        self.err = tempfile.TemporaryFile()
        if self.name.startswith('serve'):
            self.proc = Serve(self.fol, *(['--sample', '100'] if self.name == 'serve_s100' else [])).proc
            return
        if self.name == 'perf_stat':
            self.proc = subprocess.Popen(['perf', 'stat', '-a', '-e', PERF_EVENTS],
                                         stdout=subprocess.DEVNULL, stderr=self.err)
            time.sleep(1.5)
            return
        prog = HIST if self.name == 'bpftrace' else ' '.join(h + ' {}' for h in FLOOR_HOOKS)
        self.proc = subprocess.Popen(['bpftrace', '-e', prog], stdout=subprocess.PIPE,
                                     stderr=self.err, text=True)
        # "Attaching N probes..." comes before the attaching: a moment after it, all are.
        self.proc.stdout.readline()
        time.sleep(1.5)
        if self.proc.poll() is not None:
            raise RuntimeError(f'{self.name} ended: {self.errors()}')

    def errors(self):
        self.err.seek(0)
        return self.err.read().decode(errors='replace')[-300:]

    def cpu(self):
        return cpu_ns(self.proc.pid) if self.proc and self.name.startswith('serve') else 0

    def stop(self):
        if self.proc:
            stop(self.proc)
        self.proc = None


def phase_run(argv, phase, tmp):
    """The time of the workload's phases whose names start with phase (ns), and its
    faults (minor + major, with its children's)."""
    lines = os.path.join(tmp, 'phases')
    _, ru = run(argv, env=dict(os.environ, FOLIOSTAT_PHASES=lines))
    return phase_ns(lines, phase) or 0, ru.ru_minflt + ru.ru_majflt


def cache_4k(path, size):
    """path, size bytes, in the page cache as 4K folios: read 4K at a time with
    POSIX_FADV_RANDOM (no readahead, whose folios are large on filesystems that allow
    them), after DONTNEED dropped what was cached. Fault-around then maps 16 pages a
    fault, not a whole large folio."""
    if not os.path.exists(path) or os.path.getsize(path) < size:
        with open(path, 'wb') as f:
            for _ in range(size >> 20):
                f.write(os.urandom(1 << 20))
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        while os.read(fd, 4096):
            pass
    finally:
        os.close(fd)


def zram_usable():
    return os.path.exists('/sys/block/zram0') or \
        subprocess.run(['modprobe', 'zram'], capture_output=True).returncode == 0


def classes(fw, tmp):
    """Per class: (small, large) workload argv, what the large one adds, the phase."""
    wl = [fw, 'workload']
    path = os.path.join(tmp, 'file.dat')
    swp = os.path.join(tmp, 'swap')
    c = {
        'alloc': (wl + ['populate', '--size', '64M', '--policy', 'small'],
                  wl + ['populate', '--size', '512M', '--policy', 'small'],
                  '448M of 4K first touches (anon_alloc)', 'populate'),
        'reuse': (wl + ['fork-loop', '--loops', '1', '--size', '128M', '--policy', 'small'],
                  wl + ['fork-loop', '--loops', '5', '--size', '128M', '--policy', 'small'],
                  '4 more write passes of 128M of 4K folios after a fork (wp_reuse)', 'reuse x'),
        'zero': (wl + ['populate', '--size', '64M', '--policy', 'small', '--populate-read'],
                 wl + ['populate', '--size', '512M', '--policy', 'small', '--populate-read'],
                 '448M of 4K loads (anon_zero where the kernel maps the zero page)', 'populate'),
        'file': (wl + ['populate', '--size', '128M', '--populate-file', path],
                 wl + ['populate', '--size', '1G', '--populate-file', path],
                 '896M of a cached file, 4K folios, mapped private and loaded (file)', 'populate'),
        'swapin': (wl + ['pageout', '--size', '256M', '--policy', 'small', '--zram'],
                   wl + ['pageout', '--size', '256M', '--policy', 'small', '--zram', '--swapin'],
                   '256M of 4K pages read back from zram (swap_in)', 'swapin'),
        # A swap file leaves the pages in the swap cache (zram's swap-ins bypass it):
        # swap-ins that allocate nothing.
        'swapcache': (wl + ['pageout', '--size', '256M', '--policy', 'small', '--swapfile', swp],
                      wl + ['pageout', '--size', '256M', '--policy', 'small', '--swapfile', swp,
                            '--swapin'],
                      '256M of 4K pages read back from the swap cache (swap_in)', 'swapin'),
    }
    return c, path


def measure(fol, tools, small, large, phase, rounds, tmp):
    """Per tool, per round: (large - small) phase ns, faults, serve CPU ns."""
    out = {t: [] for t in tools}
    for r in range(rounds):
        order = tools if r % 2 == 0 else list(reversed(tools))
        for name in order:
            tool = Tool(name, fol)
            tool.start()
            try:
                got = {}
                for which, argv in (('small', small), ('large', large)) if r % 2 == 0 else \
                        (('large', large), ('small', small)):
                    c0 = tool.cpu()
                    wall, faults = phase_run(argv, phase, tmp)
                    # What serve still reads of this run's faults: until its CPU rests.
                    time.sleep(0.3 if name.startswith('serve') else 0)
                    got[which] = (wall, faults, tool.cpu() - c0)
            finally:
                tool.stop()
            out[name].append(tuple(got['large'][i] - got['small'][i] for i in range(3)))
    return out


def report(cls, what, res, w):
    """Each tool's added time per fault paired with the bare run of the same round (a
    round's runs are minutes apart at most: the machine's drift, page zeroing, the page
    cache, cancels), the median over rounds, and their spread."""
    faults = statistics.median(d[1] for d in res['bare'])
    w(f'# {cls}: {what}; {faults:.0f} faults between the pair (median of {len(res["bare"])})')
    w(f'# {"tool":<11} {"added ns/fault":>15} {"(rounds min..max)":>18} {"own CPU ns/fault":>17} '
      f'{"total":>8} {"x floor":>8} {"x bpftrace":>10} {"CPU at 50k/s":>13}')
    rows = {}
    for name, ds in res.items():
        if name == 'bare':
            continue
        per = [(d[0] - b[0]) / faults for d, b in zip(ds, res['bare'])]
        added = statistics.median(per)
        own = statistics.median(d[2] / d[1] for d in ds if d[1] > 0)
        rows[name] = (added, own, added + own, min(per), max(per))
    floor = rows.get('floor', (0, 0, 0, 0, 0))[2]
    hist = rows.get('bpftrace', (0, 0, 0, 0, 0))[2]
    for name, (added, own, total, lo, hi) in rows.items():
        xf = f'{total / floor:.2f}' if floor > 0 else '-'
        xb = f'{total / hist:.2f}' if hist > 0 else '-'
        share = total * 50000 / 1e9 * 100
        spread = f'{lo:.0f}..{hi:.0f}'
        w(f'  {name:<11} {added:15.0f} {spread:>18} {own:17.0f} {total:8.0f} {xf:>8} {xb:>10} '
          f'{share:12.2f}%')
        w(f'classes.{cls}.{name}.added_ns_per_fault {added:.0f}')
        w(f'classes.{cls}.{name}.own_cpu_ns_per_fault {own:.0f}')
        w(f'classes.{cls}.{name}.cpu_share_at_50k_faults_per_s {share:.2f}%')


def bench(fol, w, rounds, want, tools):
    """The classes in want, each measured with the tools (bare first), to w."""
    tools = ['bare'] + [t for t in tools if t != 'bare']
    notes = []
    if not bpftrace_usable():
        tools = [t for t in tools if t not in ('floor', 'bpftrace')]
        notes.append('bpftrace: not run (not installable, or BPF unavailable here)')
    with tempfile.TemporaryDirectory(prefix='foliostat-classes.', dir='/var/tmp') as tmp:
        fw = os.path.join(tmp, 'fw')
        subprocess.run(['cp', fol, fw], check=True)
        table, path = classes(fw, tmp)
        w(f'# serve per fault class against the floor (empty programs on its hooks), '
          f'bpftrace\'s histogram and perf stat; {rounds} rounds, tools alternated, medians')
        for n in notes:
            w(f'# {n}')
        for cls in want:
            small, large, what, phase = table[cls]
            if cls == 'file':
                cache_4k(path, 1 << 30)
            if cls == 'swapin' and not zram_usable():
                w('# swapin: skipped: no zram here (modprobe zram failed)')
                continue
            # File faults are few (fault-around maps 16 pages a fault; its size is
            # debugfs', locked here) and their runs spread: three times the rounds.
            res = measure(fol, tools, small, large, phase, rounds * (3 if cls == 'file' else 1), tmp)
            report(cls, what, res, w)


def chosen():
    """The classes and tools CLASSES= and TOOLS= choose: all by default."""
    return (os.environ.get('CLASSES', 'alloc,reuse,zero,file,swapin,swapcache').split(','),
            os.environ.get('TOOLS', ','.join(TOOLS)).split(','))


def main():
    bench(os.path.abspath(sys.argv[1]), Results(sys.argv[2], append=True),
          int(os.environ.get('RUNS', '5')), *chosen())


if __name__ == '__main__':
    main()
