#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench: foliostat against perf and bpftrace on the same workloads and events:
what recording adds to a workload, start-up, file size, lost events, the report's speed
and memory, serve's CPU and in-kernel cost per fault, and serve per fault class
(bench_classes.py). Timing lives here, never in make check.

Usage: FOLIOSTAT=./foliostat scripts/bench.py OUT (results to OUT and stdout; RUNS=N runs
of each, 5 by default, alternated; figures are medians). BENCH_ONLY= one part:
  writepass  the write-pass table, serve's CPU and in-kernel cost per fault
  kernel     only the in-kernel cost per reuse fault, serve's against bpftrace's
  serve      only serve's CPU per reuse and per allocation fault
  classes    only serve's cost per fault class (appended to OUT)
  report     the report's figures, without the recording overheads"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import bench_classes
from benchlib import (HIST, Results, Serve, bpftrace_usable, differ, median, ms, output,
                      phase_ns, ratio, run, settle, stop)

EVENTS = ['exceptions:page_fault_user', 'exceptions:page_fault_kernel', 'kmem:mm_page_alloc',
          'kmem:rss_stat', 'minor-faults', 'major-faults']
EV = [a for e in EVENTS for a in ('-e', e)]
THP = '/sys/kernel/mm/transparent_hugepage'
MTHP64 = f'{THP}/hugepages-64kB/enabled'
BPF_STATS = '/proc/sys/kernel/bpf_stats_enabled'
# bpftrace's histogram (benchlib.HIST) of the workload's faults only: the cheapest way to
# have their latency at all.
WRITEPASS_HIST = ('tracepoint:exceptions:page_fault_user /comm == "fw"/ { @s[tid] = nsecs; } '
                  'software:minor-faults:1 /comm == "fw" && @s[tid]/ { @lat = hist(nsecs - @s[tid]); '
                  'delete(@s[tid]); } END { clear(@s); }')


def size_bytes(s):
    return int(s[:-1]) << {'K': 10, 'M': 20, 'G': 30}[s[-1]]


def saved(path):
    """What a sysfs or procfs knob holds now (its [selected] word), None without it."""
    try:
        with open(path) as f:
            s = f.read().strip()
    except OSError:
        return None
    return s[s.index('[') + 1:s.index(']')] if '[' in s else s


def events_of(recording):
    """The events a recording holds, from its report's JSON "recording" object."""
    return sum(e['count'] for e in recording['events'])


class Bench:
    """One run of the bench: its parts write their figures through w, their recordings in
    tmp; the workload is a copy of foliostat named fw (bpftrace's filter, perf's comm)."""

    def __init__(self, fol, w, tmp):
        self.fol, self.w, self.tmp = fol, w, tmp
        self.runs = int(os.environ.get('RUNS', '5'))
        self.size = os.environ.get('SIZE', '256M')
        self.fw = self.path('fw')
        shutil.copy(fol, self.fw)
        self.bpftrace = bpftrace_usable()
        # The 64K policy and the BPF run-time statistics are changed: main puts them back.
        self.old64, self.old_stats = saved(MTHP64), saved(BPF_STATS) or '0'

    def path(self, name):
        return os.path.join(self.tmp, name)

    def workload(self, *args):
        return [self.fw, 'workload', *args]

    def phased(self, wl):
        """wl with its phases to a file of their own (emptied), and the file: through env,
        since foliostat record sets the variable for the workload it records."""
        ph = self.path('ph')
        if os.path.exists(ph):
            os.unlink(ph)
        return ['/usr/bin/env', f'FOLIOSTAT_PHASES={ph}', *wl], ph

    def report_json(self, data):
        return json.loads(output([self.fol, 'report', '--json', '-i', data]))

    def samples(self, data):
        return events_of(self.report_json(data)['recording'])

    def record(self, data, argv, *opts):
        return run([self.fol, 'record', '-q', *opts, '-o', data, '--', *argv])

    def perf_record(self, data, argv):
        return run(['perf', 'record', '-q', '-c', '1', '-d', *EV, '-o', data, '--', *argv])

    def header(self):
        self.w(f'# foliostat bench, {time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, '
               f'{os.uname().release}, {os.cpu_count()} CPUs')
        self.w('# workloads: fork-reuse of 64K mTHP (128M, 256M, 256M in 4 threads) and of '
               f'PTE-mapped 2M THP; events: {" ".join(EVENTS)}')
        self.w(f'# runs: {self.runs}, alternated; figures are medians')

    def writepass(self):
        """The write pass of a 64K-mTHP fork-reuse (issue 16's yardstick): the workload's
        own timing of the pass, bare and under each way of measuring its faults, runs
        alternated; then serve's CPU and the programs' in-kernel cost per fault."""
        wl = self.workload('fork-reuse', '--size', '256M', '--policy', 'mthp')
        tools = ['bare', 'foliostat_record', 'foliostat_record_samples', 'foliostat_stat',
                 'perf_record', 'serve_bpf', 'serve_streamed', 'serve_samples']
        if self.bpftrace:
            tools.append('bpftrace')
        passes = {t: [] for t in tools}
        serve = {t: [] for t in tools if t.startswith('serve')}
        for _ in range(self.runs):
            for t in tools:
                argv, ph = self.phased(wl)
                if t.startswith('serve'):
                    serve[t].append(self.serve_around(t, argv))
                else:
                    self.writepass_run(t, argv)
                settle()
                passes[t].append(phase_ns(ph, 'reuse', first=True))
        faults = sum(o['faults'].get('wp_reuse', 0) for o in self.report_json(self.path('wp.data'))['orders'])
        self.writepass_table(passes, faults)
        self.writepass_serve_cpu(serve)
        self.serve_marginal()
        self.kernel_marginal()
        if not self.bpftrace:
            self.w('# bpftrace: not run (not installable, or BPF unavailable here)')

    def writepass_run(self, tool, wl):
        if tool == 'bare':
            run(wl)
        elif tool == 'foliostat_record':
            self.record(self.path('wp.data'), wl)
        elif tool == 'foliostat_record_samples':
            self.record(self.path('wps.data'), wl, '--fault-path', 'samples')
        elif tool == 'foliostat_stat':
            run([self.fol, 'stat', '-q', '--', *wl])
        elif tool == 'perf_record':
            self.perf_record(self.path('wpp.data'), wl)
        elif tool == 'bpftrace':
            run(['bpftrace', '-e', WRITEPASS_HIST, '-c', ' '.join(wl)])

    def serve_around(self, tool, wl):
        """serve -a left running around one workload (issue 28, point 5): started before it,
        stopped once its counts settle (every task's faults: the scrapes' own never stop).
        Its CPU ns over the run and the faults it counted. bpf: kernel decisions on (the
        default); streamed: every fault to the model; samples: the samples path."""
        name = tool[len('serve_'):]
        opts = ['--fault-path', 'bpf', '--no-kernel-decisions'] if name == 'streamed' else ['--fault-path', name]
        s = Serve(self.fol, *opts)
        try:
            c0, n0 = s.cpu(), s.faults()
            run(wl)
            # Settled when a scrape finds fewer than 2000 new faults (curl's own, the machine's).
            m, n = -1000000, 0
            for _ in range(50):
                if n - m < 2000:
                    break
                m = n
                time.sleep(0.3)
                n = s.faults()
            return s.cpu() - c0, n - n0
        finally:
            s.stop()

    def writepass_table(self, passes, faults):
        bare = median(passes['bare'])
        bpf = median(passes.get('bpftrace', []))
        self.w(f'# write pass of fork-reuse 256M, 64K mTHP: {faults} reuse faults; medians of '
               f'{self.runs} alternated runs')
        r = self.report_json(self.path('wp.data'))['recording']
        why = f' ({r["fault_path_why"]})' if r.get('fault_path_why') else ''
        self.w(f'# foliostat_record: fault path {r["fault_path"]}{why}')
        self.w(f'# {"tool":<26} {"pass ms":>9} {"x bare":>8} {"x bpftrace":>11} {"added/fault us":>16}')
        for t in ['bare', 'bpftrace', 'perf_record', 'foliostat_record_samples', 'foliostat_record',
                  'foliostat_stat', 'serve_samples', 'serve_streamed', 'serve_bpf']:
            m = median(passes.get(t, []))
            if m is None:
                continue
            added = f'{(m - bare) / faults / 1e3:.2f}' if faults else '0.00'
            self.w(f'# {t:<26} {ms(m):>9} {ratio(m, bare):>8} {ratio(m, bpf) if bpf else "-":>11} {added:>16}')
            self.w(f'writepass.ms.{t} {ms(m)}')
        # Is a difference from bpftrace more than the runs' spread?
        if not bpf:
            return
        b = [x for x in passes['bpftrace'] if x is not None]
        for t in ['foliostat_record', 'foliostat_record_samples', 'foliostat_stat', 'serve_samples',
                  'serve_streamed', 'serve_bpf']:
            a = [x for x in passes[t] if x is not None]
            if not a or not b:
                continue
            p, word = differ(a, b)
            d = statistics.median(a) / statistics.median(b) - 1
            self.w(f'# {t} against bpftrace: {100 * d:+.1f}% (Mann-Whitney p = {p:.2f}, '
                   f'{len(a)} and {len(b)} runs: {word} beyond the spread)')

    def writepass_serve_cpu(self, serve):
        """serve's own CPU: seconds per million faults it counted (the whole machine's over
        the run), and what that is of one CPU at 50,000 faults per second."""
        for t in ['serve_samples', 'serve_streamed', 'serve_bpf']:
            name = t[len('serve_'):]
            cpm = median([c / 1e9 / n * 1e6 for c, n in serve[t] if n > 0])
            if cpm is None:
                continue
            self.w(f'writepass.serve_cpu_s_per_million_faults.{name} {cpm:g}')
            self.w(f'writepass.serve_cpu_share_at_50k_faults_per_s.{name} {cpm * 0.05 * 100:.1f}%')

    def marginal(self, what, faults, small, large):
        """serve's CPU per fault of a kind, without its fixed costs (its start, the
        workload's own start, its scrapes): the CPU serve takes over a larger run of a
        workload less that over a smaller one, per the faults between; streamed (every
        fault to the model) and with kernel decisions. Runs alternated, medians."""
        got = {(n, s): [] for n in ('streamed', 'bpf') for s in ('small', 'large')}
        for _ in range(self.runs):
            for name in ('streamed', 'bpf'):
                for size, args in (('small', small), ('large', large)):
                    s = Serve(self.fol, *(['--no-kernel-decisions'] if name == 'streamed' else []))
                    try:
                        time.sleep(5)  # its start: /proc read, the programs loaded
                        c0 = s.cpu()
                        run(self.workload(*args))
                        time.sleep(2)
                        got[name, size].append(s.cpu() - c0)
                    finally:
                        s.stop()
        for name in ('streamed', 'bpf'):
            c = (median(got[name, 'large']) - median(got[name, 'small'])) / 1e9 / faults * 1e6
            self.w(f'writepass.serve_marginal_cpu_s_per_million_{what}_faults.{name} {c:.3f}')
            self.w(f'writepass.serve_marginal_cpu_share_at_50k_{what}_faults_per_s.{name} {c * 0.05 * 100:.2f}%')

    def serve_marginal(self):
        """Reuse faults: fork-loop of 9 write passes less 1, 8 passes' reuse faults (64K
        folios, 16 reuse faults each). Allocation faults: populate of 1G in 4K pages less 64M."""
        per = size_bytes('256M') // 65536
        self.marginal('reuse', 8 * per * 16,
                      ['fork-loop', '--loops', '1', '--size', '256M', '--policy', 'mthp'],
                      ['fork-loop', '--loops', '9', '--size', '256M', '--policy', 'mthp'])
        self.marginal('alloc', (size_bytes('1G') - size_bytes('64M')) // 4096,
                      ['populate', '--size', '64M', '--policy', 'small'],
                      ['populate', '--size', '1G', '--policy', 'small'])

    def kernel_marginal(self):
        """The in-kernel cost of a reuse fault, which the workload's faulting task pays and
        no CPU time of serve shows: serve's BPF programs against bpftrace's histogram's,
        their run time as the kernel measures it (kernel.bpf_stats_enabled: the same two
        clock reads around every program of either, so both figures hold them). Over
        fork-loop of 9 write passes less 1, per 8 passes' reuse faults, as serve_marginal.
        The tool's programs are those loaded since it started; bpftrace's workload waits
        for a file so that the count starts after bpftrace has loaded them."""
        faults = 8 * (size_bytes('256M') // 65536) * 16
        tools = ['serve'] + (['bpftrace'] if self.bpftrace else [])
        got = {t: [] for t in tools}
        with open(BPF_STATS, 'w') as f:
            f.write('1')
        for _ in range(self.runs):
            for t in tools:
                ran = {loops: self.kernel_run(t, loops) for loops in (1, 9)}
                got[t].append((ran[9] - ran[1]) / faults)
        with open(BPF_STATS, 'w') as f:
            f.write(self.old_stats)
        for t in tools:
            self.w(f'writepass.kernel_marginal_ns_per_reuse_fault.{t} {median(got[t]):.0f}')
        if 'bpftrace' not in got:
            return
        a, b = got['serve'], got['bpftrace']
        p, word = differ(a, b)
        self.w(f"# serve's programs against bpftrace's, per reuse fault: "
               f'{statistics.median(a) - statistics.median(b):+.0f} ns (runs {min(a):.0f}-{max(a):.0f} '
               f'against {min(b):.0f}-{max(b):.0f}; Mann-Whitney p = {p:.2f}: {word} beyond the spread)')

    def kernel_run(self, tool, loops):
        """The run time (ns) of the programs tool loaded, over one fork-loop of loops passes."""
        wl = self.workload('fork-loop', '--loops', str(loops), '--size', '256M', '--policy', 'mthp')

        def progs():
            return {p['id']: p.get('run_time_ns', 0) for p in json.loads(output(['bpftool', 'prog', 'show', '-j']))}
        before = progs()
        go, done = self.path('go'), self.path('done')
        for f in (go, done):
            if os.path.exists(f):
                os.unlink(f)
        if tool == 'serve':
            proc = Serve(self.fol).proc
        else:
            gate = self.path('gate.sh')
            with open(gate, 'w') as f:
                f.write(f'while [ ! -e {go} ]; do sleep 0.1; done\n{" ".join(wl)} >/dev/null\n'
                        f'touch {done}\nsleep 1\n')
            proc = subprocess.Popen(['bpftrace', '-e', HIST, '-c', f'/bin/sh {gate}'],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(300):
                if set(progs()) - set(before):
                    break
                time.sleep(0.1)
            time.sleep(0.5)
        try:
            ids = set(progs()) - set(before)
            t0 = sum(v for k, v in progs().items() if k in ids)
            if tool == 'serve':
                run(wl)
            else:
                open(go, 'w').close()
                for _ in range(600):
                    if os.path.exists(done):
                        break
                    time.sleep(0.1)
            return sum(v for k, v in progs().items() if k in ids) - t0
        finally:
            stop(proc)

    def overhead(self, name, wl):
        """Workload wall time bare, under foliostat, under perf record -c 1 -d, runs
        alternated; and the write pass as the workload times it: the cost of tracing each
        fault, without the tools' start-up and tear-down."""
        wall = {t: [] for t in ('bare', 'foliostat', 'perf')}
        phase = {t: [] for t in wall}
        for _ in range(self.runs):
            for t in wall:
                argv, ph = self.phased(wl)
                if t == 'bare':
                    ns, _ = run(argv)
                elif t == 'foliostat':
                    ns, _ = self.record(self.path('f.data'), argv, *EV)
                    settle()
                else:
                    ns, _ = self.perf_record(self.path('p.data'), argv)
                wall[t].append(ns)
                phase[t].append(phase_ns(ph, 'reuse', first=True))
        for t in wall:
            self.w(f'{name}.reuse_phase_ms.{t} {ms(median(phase[t]))}')
        self.w(f'{name}.reuse_phase.ratio.foliostat_over_perf {ratio(median(phase["foliostat"]), median(phase["perf"]))}')
        m = {t: median(wall[t]) for t in wall}
        for t in wall:
            self.w(f'{name}.wall_ms.{t} {ms(m[t])}')
        self.w(f'{name}.overhead_ms.foliostat {ms(m["foliostat"] - m["bare"])}')
        self.w(f'{name}.overhead_ms.perf {ms(m["perf"] - m["bare"])}')
        self.w(f'{name}.ratio.foliostat_over_perf {ratio(m["foliostat"], m["perf"])}')
        self.w(f'{name}.lost.foliostat {self.report_json(self.path("f.data"))["recording"]["lost_events"]}')

    def startup(self):
        """Start-up and tear-down around a command that does nothing."""
        f, p = [], []
        for _ in range(self.runs * 2):
            f.append(self.record(self.path('t.data'), ['true'], *EV)[0])
            settle()
            p.append(self.perf_record(self.path('tp.data'), ['true'])[0])
        self.w(f'startup_ms.foliostat {ms(median(f))}')
        self.w(f'startup_ms.perf {ms(median(p))}')
        self.w(f'startup.ratio.perf_over_foliostat {ratio(median(p), median(f))}')

    def files(self):
        """File size and events, from the last recordings of the workload; then the default
        recording (all default events) at default buffer sizes: its lost events."""
        fd, pd = self.path('f.data'), self.path('p.data')
        rec = self.report_json(fd)['recording']
        fev = self.fev = events_of(rec)
        pev = self.pev = len(output(['perf', 'script', '-i', pd, '-F', 'event']).splitlines())
        fsz, psz = os.path.getsize(fd), os.path.getsize(pd)
        self.w(f'file.events.foliostat {fev}')
        self.w(f'file.events.perf {pev}')
        self.w(f'file.bytes.foliostat {fsz}')
        self.w(f'file.bytes.perf {psz}')
        self.w(f'file.bytes_per_event.foliostat {ratio(fsz, fev)}')
        self.w(f'file.bytes_per_event.perf {ratio(psz, pev)}')
        self.w(f'lost.foliostat {rec["lost_events"]}')
        dd = self.path('d.data')
        self.record(dd, self.workload('fork-reuse', '--size', self.size))
        settle()
        rec = self.report_json(dd)['recording']
        self.w(f'default_events.samples {events_of(rec)}')
        self.w(f'default_events.lost {rec["lost_events"]}')
        self.w(f'default_events.file_bytes {os.path.getsize(dd)}')

    def peak(self, argv, env=None):
        """One run's wall ns and peak RSS (kB) by /usr/bin/time: a child of this process
        would count the interpreter's own (exec keeps the high-water mark of the memory it
        replaces, and subprocess starts a program from a vfork of this one)."""
        rss = self.path('rss')
        wall, _ = run(['/usr/bin/time', '-f', '%M', '-o', rss, *argv], env=env)
        with open(rss) as f:
            return wall, int(f.read().split()[-1])

    def timed(self, argv, env=None):
        """Median ns and peak RSS (kB) of RUNS runs."""
        got = [self.peak(argv, env=env) for _ in range(self.runs)]
        return median([g[0] for g in got]), median([g[1] for g in got])

    def report(self):
        """Report throughput and peak memory: foliostat report --json against perf script,
        the same events. The report keeps what it works out once (inflated debug files, the
        kernel's symbols) in the user's cache: a run first fills it, the runs timed read
        it; the same again with FOLIOSTAT_NO_CACHE, as a first report after an upgrade or
        on a new recording pays. The events per second are of those files() counted."""
        fd, pd = self.path('f.data'), self.path('p.data')
        run([self.fol, 'report', '--json', '-i', fd])
        rf, mf = self.timed([self.fol, 'report', '--json', '-i', fd])
        rp, mp = self.timed(['perf', 'script', '-i', pd])
        rn, _ = self.timed([self.fol, 'report', '--json', '-i', fd], env=dict(os.environ, FOLIOSTAT_NO_CACHE='1'))
        self.w(f"# report: '{self.fol} report --json -i f.data' against 'perf script -i p.data', "
               f'fork-reuse {self.size} recorded by each with -e {" ".join(EVENTS)} (perf: -c 1 -d)')
        self.w(f'report.ms.foliostat_no_cache {ms(rn)}')
        self.w(f'report.ms.foliostat {ms(rf)}')
        self.w(f'report.ms.perf_script {ms(rp)}')
        self.w(f'report.events_per_s.foliostat {self.fev * 1e9 / rf:.0f}')
        self.w(f'report.events_per_s.perf_script {self.pev * 1e9 / rp:.0f}')
        self.w(f'report.speedup.foliostat_over_perf_script {ratio(rp, rf)}')
        self.w(f'report.peak_rss_kb.foliostat {mf:.0f}')
        self.w(f'report.peak_rss_kb.perf_script {mp:.0f}')
        # The same at 4x the events (1G), where start-up costs weigh less.
        fb, pb = self.path('fb.data'), self.path('pb.data')
        self.record(fb, self.workload('fork-reuse', '--size', '1G'), *EV)
        settle()
        self.perf_record(pb, self.workload('fork-reuse', '--size', '1G'))
        rf, _ = self.timed([self.fol, 'report', '--json', '-i', fb])
        rp, _ = self.timed(['perf', 'script', '-i', pb])
        self.w(f'report_1G.events {self.samples(fb)}')
        self.w(f'report_1G.ms.foliostat {ms(rf)}')
        self.w(f'report_1G.ms.perf_script {ms(rp)}')
        self.w(f'report_1G.speedup.foliostat_over_perf_script {ratio(rp, rf)}')

    def build(self):
        """A real program: a make -j2 build of this project (hundreds of processes, each
        with its own address space and libraries), recorded by both tools with the same
        events. The report against foliostat's own script of the file and perf report of
        perf's, and how soon the TUI shows its first screen (tmux, polled every 10 ms)."""
        top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        src, bd, pbd = self.path('src'), self.path('build.data'), self.path('pbuild.data')
        os.mkdir(src)
        git = subprocess.Popen(['git', '-C', top, 'archive', '--format=tar', 'HEAD'], stdout=subprocess.PIPE)
        subprocess.run(['tar', '-x', '-C', src], stdin=git.stdout, check=True)
        git.stdout.close()
        if git.wait():
            raise RuntimeError('git archive failed')
        os.symlink(os.path.join(top, 'deps'), os.path.join(src, 'deps'))
        make = ['make', '-s', '-C', src, '-j2', 'foliostat']
        self.record(bd, make, *EV)
        settle()
        run(['make', '-s', '-C', src, 'clean'])
        self.perf_record(pbd, make)
        run([self.fol, 'report', '-i', bd])  # fills the user's cache (see report)
        bt, btm = self.timed([self.fol, 'report', '-i', bd])
        bn, _ = self.timed([self.fol, 'report', '-i', bd], env=dict(os.environ, FOLIOSTAT_NO_CACHE='1'))
        bj, bjm = self.timed([self.fol, 'report', '--json', '-i', bd])
        bs, _ = self.timed([self.fol, 'script', '-i', bd])
        bp, bpm = self.timed(['perf', 'report', '--stdio', '--sort', 'dso,sym', '-i', pbd])
        j = self.report_json(bd)
        self.w("# build: 'foliostat report -i build.data' (and --json, script) against 'perf report "
               "--stdio --sort dso,sym -i pbuild.data'; 'foliostat tui -i build.data' in tmux until its Overview shows")
        self.w(f'# a make -j2 build of foliostat: {os.path.getsize(bd)} bytes, '
               f'{sum(e["count"] for e in j["recording"]["events"])} samples, {j["totals"]["processes"]} processes')
        self.w(f'build.report.ms.foliostat {ms(bt)}')
        self.w(f'build.report.ms.foliostat_no_cache {ms(bn)}')
        self.w(f'build.report_json.ms.foliostat {ms(bj)}')
        self.w(f'build.script.ms.foliostat {ms(bs)}')
        self.w(f'build.report.ms.perf_report_dso_sym {ms(bp)}')
        self.w(f'build.report.over_script {ratio(bt, bs)}')
        self.w(f'build.report_json.over_script {ratio(bj, bs)}')
        self.w(f'build.speedup.foliostat_over_perf_report {ratio(bp, bt)}')
        self.w(f'build.report.peak_rss_kb.foliostat {btm:.0f}')
        self.w(f'build.report_json.peak_rss_kb.foliostat {bjm:.0f}')
        self.w(f'build.report.peak_rss_kb.perf_report {bpm:.0f}')
        if shutil.which('tmux'):
            self.w(f'build.tui_first_screen.ms {ms(median([self.tui_first_screen(bd) for _ in range(self.runs)]))}')

    def tui_first_screen(self, data):
        def tmux(*args):
            return subprocess.run(['tmux', *args], capture_output=True, text=True)
        tmux('kill-session', '-t', 'fbench')
        t0 = time.monotonic_ns()
        tmux('new-session', '-d', '-s', 'fbench', '-x', '120', '-y', '40', f'{self.fol} tui -i {data}')
        while 'Overview' not in tmux('capture-pane', '-p', '-t', 'fbench').stdout:
            time.sleep(0.01)
        t = time.monotonic_ns() - t0
        tmux('kill-session', '-t', 'fbench')
        return t

    def memory(self):
        """Memory against recording length: a recording 8x longer must not need 8x the
        memory. PTE-mapped 2M THP: 8x the faults of the same kind on 8x the (few) folios."""
        got = {}
        for size in ('128M', '1G'):
            d = self.path(f'mem{size}.data')
            self.record(d, self.workload('fork-reuse', '--size', size))
            settle()
            got[size] = (self.samples(d), self.peak([self.fol, 'report', '--json', '-i', d])[1])
        self.w("# memory: peak RSS (/usr/bin/time -f %M) of 'foliostat report --json' of fork-reuse 128M and 1G")
        for size in got:
            self.w(f'memory.events.{size} {got[size][0]}')
        for size in got:
            self.w(f'memory.peak_rss_kb.{size} {got[size][1]}')

    def main(self, only):
        if only == 'classes':
            return self.classes()
        self.header()
        if only == 'report':
            # The report's figures only: one recording of the workload by each tool.
            wl = self.workload('fork-reuse', '--size', self.size)
            self.record(self.path('f.data'), wl, *EV)
            settle()
            self.perf_record(self.path('p.data'), wl)
        elif self.old64 is None:
            self.w('# no 64K mTHP on this kernel: no write pass, no serve or kernel figures per reuse fault')
            if only in ('kernel', 'serve', 'writepass'):
                return
        else:
            self.mthp64('always')
            if only == 'kernel':
                return self.kernel_marginal()
            if only == 'serve':
                return self.serve_marginal()
            self.writepass()
            if only == 'writepass':
                return
            for name, args in (('record_64k_128M', ['--size', '128M']), ('record_64k_256M', ['--size', '256M']),
                               ('record_64k_256M_4threads', ['--size', '256M', '--threads', '4'])):
                self.overhead(name, self.workload('fork-reuse', *args, '--policy', 'mthp'))
            self.mthp64(self.old64)
        if only != 'report':
            self.overhead('record_ptethp_256M', self.workload('fork-reuse', '--size', self.size))
            self.startup()
        self.files()
        self.report()
        self.build()
        self.memory()
        if only != 'report':
            self.classes()

    def classes(self):
        """serve's cost per fault class, beside the floor (empty programs on its hooks),
        bpftrace's histogram and perf stat (issue 48): bench_classes.py."""
        bench_classes.bench(self.fol, self.w, self.runs, *bench_classes.chosen())

    def mthp64(self, policy):
        with open(MTHP64, 'w') as f:
            f.write(policy)


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith('-')):
        sys.exit(__doc__)
    out = sys.argv[1] if len(sys.argv) == 2 else 'bench-results.txt'
    only = os.environ.get('BENCH_ONLY', '')
    if only not in ('', 'writepass', 'kernel', 'serve', 'classes', 'report'):
        sys.exit(f'bench: BENCH_ONLY={only}: one of writepass, kernel, serve, classes, report')
    if not shutil.which('perf'):
        sys.exit('bench: perf is needed (apt-get install linux-perf)')
    if os.geteuid() != 0:
        sys.exit('bench: run as root')
    fol = os.path.abspath(os.environ.get('FOLIOSTAT', './foliostat'))
    w = Results(out, append=only == 'classes')
    with tempfile.TemporaryDirectory(prefix='foliostat-bench.') as tmp:
        b = Bench(fol, w, tmp)
        try:
            b.main(only)
        finally:
            if b.old64 is not None:
                b.mthp64(b.old64)
            if os.path.exists(BPF_STATS):
                with open(BPF_STATS, 'w') as f:
                    f.write(b.old_stats)


if __name__ == '__main__':
    main()
