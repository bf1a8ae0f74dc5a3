# SPDX-License-Identifier: GPL-2.0-only
"""What make bench's scripts (bench.py, bench_classes.py) share: running a program and
timing it, the workload's own phase clock, serve and bpftrace left running around a run,
and the statistics of the runs (medians, ratios, whether two sets of runs differ beyond
their spread)."""

import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request

# bpftrace's fault-latency histogram (issue 48's yardstick): page_fault_user to the
# minor-faults software event, per thread, kept in the kernel.
HIST = ('tracepoint:exceptions:page_fault_user { @s[tid] = nsecs; } '
        'software:minor-faults:1 /@s[tid]/ { @lat = hist(nsecs - @s[tid]); delete(@s[tid]); }')


def median(xs):
    """The median of the runs, None of no run (a failed phase read is None too)."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    """a / b to two places, 0 where b is none or zero (as the results file has always said)."""
    return f'{a / b:.2f}' if a is not None and b else '0.00'


def ms(ns):
    return f'{ns / 1e6:.1f}' if ns is not None else '-'


def differ(a, b):
    """Mann-Whitney's two-sided p of two sets of runs and its word: scipy, which make deps
    installs for the statistics tests."""
    from scipy.stats import mannwhitneyu
    p = mannwhitneyu(a, b, alternative='two-sided').pvalue
    return p, 'a difference' if p < 0.05 else 'no difference'


def phase_ns(path, prefix, first=False):
    """The time of the workload's phases (FOLIOSTAT_PHASES lines) whose names start with
    prefix: their sum, or the first one's; None when there is none."""
    try:
        with open(path) as f:
            ph = [json.loads(line) for line in f if line.strip()]
    except OSError:
        return None
    got = [x['end_ns'] - x['start_ns'] for x in ph if x['phase'].startswith(prefix)]
    if not got:
        return None
    return got[0] if first else sum(got)


def run(argv, env=None, stdout=subprocess.DEVNULL):
    """Runs argv to its end: (wall ns, its rusage). A failure raises with its last words."""
    err = tempfile.TemporaryFile()
    t0 = time.monotonic_ns()
    p = subprocess.Popen(argv, stdout=stdout, stderr=err, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic_ns() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        err.seek(0)
        raise RuntimeError(f'{" ".join(map(str, argv))}: exit {p.returncode}: '
                           f'{err.read().decode(errors="replace")[-300:]}')
    return wall, ru


def output(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def settle():
    """foliostat hands the kernel's tracepoint tear-down to a detached process (see
    lib/record/record.c); let it finish so that it does not slow the next run, of either
    tool."""
    while subprocess.run(['pgrep', '-x', 'foliostat-tdown'], capture_output=True).returncode == 0:
        time.sleep(0.05)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def cpu_ns(pid):
    """CPU time of every thread of pid so far (schedstat's first field, ns)."""
    total = 0
    try:
        for tid in os.listdir(f'/proc/{pid}/task'):
            with open(f'/proc/{pid}/task/{tid}/schedstat') as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total


def faults_counted(text):
    """The sum of an exposition's foliostat_faults_total samples."""
    n = 0
    for line in text.splitlines():
        name = line.split('{', 1)[0].split(' ', 1)[0]
        if name == 'foliostat_faults_total':
            n += int(float(line.rsplit(' ', 1)[1]))
    return n


def bpftrace_usable():
    """bpftrace installed (from Debian's archive if it is not) and able to load programs."""
    if subprocess.run(['sh', '-c', 'command -v bpftrace'], capture_output=True).returncode:
        subprocess.run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'bpftrace'],
                       capture_output=True, env=dict(os.environ, DEBIAN_FRONTEND='noninteractive'))
    try:
        return subprocess.run(['bpftrace', '-e', 'BEGIN { exit(); }'],
                              capture_output=True).returncode == 0
    except OSError:
        return False


class Serve:
    """foliostat serve, started and ready (its /healthz answers), stopped by SIGINT."""

    def __init__(self, fol, *opts):
        self.port = free_port()
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([fol, 'serve', *opts, '--listen', f'127.0.0.1:{self.port}'],
                                     stdout=subprocess.DEVNULL, stderr=self.err)
        for _ in range(300):
            if self.proc.poll() is not None:
                raise RuntimeError(f'serve ended: {self.errors()}')
            try:
                urllib.request.urlopen(self.url('healthz'), timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError('serve not ready in 30 s')

    def url(self, path):
        return f'http://127.0.0.1:{self.port}/{path}'

    def errors(self):
        self.err.seek(0)
        return self.err.read().decode(errors='replace')[-300:]

    def faults(self):
        with urllib.request.urlopen(self.url('metrics'), timeout=10) as r:
            return faults_counted(r.read().decode())

    def cpu(self):
        return cpu_ns(self.proc.pid)

    def stop(self):
        stop(self.proc)


def stop(proc):
    """SIGINT, as a user's ^C, then the process reaped (killed after 30 s)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Results:
    """The results file and standard output, a line at a time."""

    def __init__(self, path, append):
        self.f = open(path, 'a' if append else 'w')

    def __call__(self, line):
        print(line, flush=True)
        self.f.write(line + '\n')
        self.f.flush()
