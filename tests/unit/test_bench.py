#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's arithmetic (scripts/benchlib.py, bench.py): what its figures are made of,
checked without a kernel, since the bench itself runs only by hand."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
import bench  # noqa: E402
import benchlib  # noqa: E402


class Figures(unittest.TestCase):
    def test_median_skips_failed_runs(self):
        self.assertEqual(benchlib.median([5, None, 1, 3]), 3)
        self.assertEqual(benchlib.median([4, 1, 3, 2]), 2.5)
        self.assertIsNone(benchlib.median([None]))

    def test_ratio_and_ms(self):
        self.assertEqual(benchlib.ratio(3, 2), '1.50')
        self.assertEqual(benchlib.ratio(3, 0), '0.00')
        self.assertEqual(benchlib.ratio(None, 2), '0.00')
        self.assertEqual(benchlib.ms(1234567), '1.2')
        self.assertEqual(benchlib.ms(None), '-')

    def test_phases(self):
        with tempfile.NamedTemporaryFile('w', delete=False) as f:
            f.write('{"phase": "populate", "start_ns": 0, "end_ns": 10}\n\n'
                    '{"phase": "reuse x1", "start_ns": 10, "end_ns": 15}\n'
                    '{"phase": "reuse x2", "start_ns": 20, "end_ns": 27}\n')
        try:
            self.assertEqual(benchlib.phase_ns(f.name, 'reuse'), 12)
            self.assertEqual(benchlib.phase_ns(f.name, 'reuse', first=True), 5)
            self.assertEqual(benchlib.phase_ns(f.name, 'populate'), 10)
            self.assertIsNone(benchlib.phase_ns(f.name, 'swapin'))
        finally:
            os.unlink(f.name)
        self.assertIsNone(benchlib.phase_ns('/nonexistent/phases', 'reuse'))

    def test_faults_counted(self):
        text = ('# HELP foliostat_faults_total Faults.\n'
                '# TYPE foliostat_faults_total counter\n'
                'foliostat_faults_total{order="0",class="anon_alloc"} 1000\n'
                'foliostat_faults_total{order="4",class="wp_reuse"} 2.5e3\n'
                'foliostat_faults_by_cgroup_total{cgroup="/a"} 7\n'
                'foliostat_faults_total_created 9\n'
                'foliostat_fault_seconds_sum 3\n')
        self.assertEqual(benchlib.faults_counted(text), 3500)

    def test_differ(self):
        p, word = benchlib.differ([1, 2, 3, 4, 5, 6], [11, 12, 13, 14, 15, 16])
        self.assertLess(p, 0.05)
        self.assertEqual(word, 'a difference')
        p, word = benchlib.differ([1, 3, 5, 7, 9], [2, 4, 6, 8, 10])
        self.assertGreater(p, 0.05)
        self.assertEqual(word, 'no difference')

    def test_saved_knob(self):
        with tempfile.NamedTemporaryFile('w', delete=False) as f:
            f.write('always inherit [never] madvise\n')
        try:
            self.assertEqual(bench.saved(f.name), 'never')
            with open(f.name, 'w') as g:
                g.write('0\n')
            self.assertEqual(bench.saved(f.name), '0')
        finally:
            os.unlink(f.name)
        self.assertIsNone(bench.saved('/nonexistent/enabled'))

    def test_sizes(self):
        self.assertEqual(bench.size_bytes('256M') // 65536, 4096)
        self.assertEqual(bench.size_bytes('1G') - bench.size_bytes('64M'), 960 << 20)


if __name__ == '__main__':
    unittest.main()
