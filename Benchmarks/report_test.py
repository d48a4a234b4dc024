#!/usr/bin/env python3
"""Checks report.py's round logic on made-up plugin output (no timing is measured or asserted).
Run by hand: python3 Benchmarks/report_test.py"""
import os
import tempfile
import unittest

import report


def plugin_output(benchmarks):
    """The plugin's markdown for {name: {metric label: (p50, p90)}}, as `Benchmarks/run` keeps it."""
    lines = ["## Baseline 'Current_run'", "", "## StreamsBenchmarks", ""]
    for name, metrics in benchmarks.items():
        lines += [f"### {name}", "", "| Metric | p0 | p25 | p50 | p75 | p90 | p99 | p100 | Samples |",
                  "|:---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for label, (p50, p90) in metrics.items():
            lines.append(f"| {label} | 0 | 0 | {p50} | 0 | {p90} | 0 | 0 | 10 |")
        lines.append("")
    return "\n".join(lines) + "\n"


def wall(p50):
    return {"Time (wall clock) (μs) *": (p50, p50)}


class RoundsTest(unittest.TestCase):
    def render(self, *rounds):
        """report.render of one file per round; returns {scenario: cells} and the header."""
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for index, benchmarks in enumerate(rounds):
                path = os.path.join(folder, f"round-{index + 1}.md")
                with open(path, "w", encoding="utf-8") as file:
                    file.write(plugin_output(benchmarks))
                paths.append(path)
            text = report.render(paths)
        rows = {}
        for line in text.splitlines():
            if line.startswith("| ") and not line.startswith("| scenario") and not line.startswith("| ---"):
                cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
                rows[cells[0]] = cells
        return rows, text

    P1Q1 = "P1 Q1 on PostgreSQL: fetch by an indexed ==, 1 row (N = 300,000, per query)"

    def test_the_ratio_is_the_median_of_the_rounds_ratios_not_the_ratio_of_the_medians(self):
        # Ratios 2, 3 and 1: their median is 2 (holds ≤ 2×); the medians' ratio would be 1.2.
        rows, text = self.render(
            {"P1-Q1 Streams": wall(100), "P1-Q1 raw libpq": wall(50)},
            {"P1-Q1 Streams": wall(300), "P1-Q1 raw libpq": wall(100)},
            {"P1-Q1 Streams": wall(120), "P1-Q1 raw libpq": wall(120)})
        scenario, ours, peer, ratio, per_round, _, target, verdict = rows[self.P1Q1]
        self.assertEqual(ours, "1.20")  # the median of 1.00, 3.00 and 1.20 per query
        self.assertEqual(peer, "1.00 (prepared libpq query, same indexes)")
        self.assertEqual(ratio, "2.00× the prepared libpq query, same indexes")
        self.assertEqual(per_round, "1.00, 2.00, 3.00")
        self.assertEqual(verdict, "holds")
        self.assertIn("Release build, 3 rounds", text)

    def test_the_verdict_follows_the_median_ratio(self):
        # One round at 3.5× would miss ≤ 2× alone; the median of the three holds, and vice versa.
        rows, _ = self.render(
            {"P1-Q1 Streams": wall(350), "P1-Q1 raw libpq": wall(100)},
            {"P1-Q1 Streams": wall(150), "P1-Q1 raw libpq": wall(100)},
            {"P1-Q1 Streams": wall(110), "P1-Q1 raw libpq": wall(100)})
        self.assertEqual(rows[self.P1Q1][3], "1.50× the prepared libpq query, same indexes")
        self.assertEqual(rows[self.P1Q1][7], "holds")
        rows, _ = self.render(
            {"P1-Q1 Streams": wall(350), "P1-Q1 raw libpq": wall(100)},
            {"P1-Q1 Streams": wall(250), "P1-Q1 raw libpq": wall(100)},
            {"P1-Q1 Streams": wall(110), "P1-Q1 raw libpq": wall(100)})
        self.assertEqual(rows[self.P1Q1][7], "MISSED")

    def test_a_faster_row_shows_its_rounds_in_the_same_terms(self):
        rows, _ = self.render(
            {"S1 Streams": wall(10), "S1 OpenCombine": wall(300)},
            {"S1 Streams": wall(20), "S1 OpenCombine": wall(200)},
            {"S1 Streams": wall(10), "S1 OpenCombine": wall(250)})
        cells = rows["S1 sequence → map → filter → sink"]
        self.assertEqual(cells[3], "25.0× faster")
        self.assertEqual(cells[4], "10.0, 25.0, 30.0")
        self.assertEqual(cells[7], "holds")

    def test_a_round_without_the_pair_is_left_out_and_said(self):
        rows, _ = self.render(
            {"P1-Q1 Streams": wall(100), "P1-Q1 raw libpq": wall(100)},
            {"P1-Q1 Streams": wall(300)},
            {"P1-Q1 Streams": wall(300), "P1-Q1 raw libpq": wall(100)})
        self.assertEqual(rows[self.P1Q1][4], "1.00, 3.00 (2 of 3 rounds)")
        self.assertEqual(rows[self.P1Q1][3], "2.00× the prepared libpq query, same indexes")

    def test_one_round_reports_that_rounds_figures(self):
        rows, text = self.render({"P1-Q1 Streams": wall(150), "P1-Q1 raw libpq": wall(100)})
        self.assertEqual(rows[self.P1Q1][1:5], ["1.50", "1.00 (prepared libpq query, same indexes)",
                                                "1.50× the prepared libpq query, same indexes", "1.50"])
        self.assertIn("Release build, one round", text)

    def test_a_filtered_run_says_what_did_not_run(self):
        rows, _ = self.render({"P1-Q1 Streams": wall(150)}, {"P1-Q1 Streams": wall(150)})
        self.assertEqual(rows[self.P1Q1][7], "not run (no peer figure)")
        self.assertEqual(rows["S1 sequence → map → filter → sink"][7], "not run")
        self.assertNotIn("C1 flat in N", rows)  # derived rows appear only with their figures

    def render_pairs(self, small_name, large_name, measure, figures):
        """Rounds of two benchmarks each, with `measure` of the (small, large) `figures` of each round."""
        return self.render(*({small_name: measure(small), large_name: measure(large)} for small, large in figures))[0]

    def test_derived_rows_take_the_median_of_each_rounds_ratio(self):
        cells = self.render_pairs("C1-1000 Streams", "C1-100000 Streams", wall, [(100, 150), (200, 500), (100, 300)])["C1 flat in N"]
        self.assertEqual(cells[1:5], ["3 per save at 100,000", "1 per save at 1,000", "2.50×", "1.50, 2.50, 3.00"])
        self.assertEqual(cells[7], "MISSED")

    def test_peak_memory_rows_compare_within_each_round(self):
        memory = lambda peak: {"Memory (resident peak) (M) *": (peak, peak)}
        rows = self.render_pairs("C2-1000 Streams", "C2-10000 Streams", memory, [(40, 44), (50, 50), (60, 90)])
        cells = rows["C2 1,000 vs 10,000 saves without demand, then one request"]
        self.assertEqual(cells[1:5], ["50 MB peak", "50 MB peak", "1.10×", "1.00, 1.10, 1.50"])
        self.assertEqual(cells[7], "holds")

    def test_custom_metrics_take_their_p50_and_p90_per_round(self):
        def live(p50, p90):
            return {"Save to delivery (μs) *": (p50, p90), "Propagation (μs) *": (p50 / 2, p90 / 2)}
        round_ = lambda ours, raw: {"P2-10000 Streams": live(*ours), "P2-10000 raw NOTIFY": live(*raw)}
        rows, _ = self.render(round_((800, 900), (200, 300)), round_((1200, 1500), (200, 250)), round_((900, 1000), (450, 500)))
        cells = [cells for name, cells in rows.items() if name.startswith("P2 a save") and "10,000" in name][0]
        self.assertEqual(cells[1], "900 / 1,000")
        self.assertTrue(cells[3].startswith("4.0× the raw round trip"), cells[3])  # ratios 4, 6 and 2
        self.assertEqual(cells[4], "2.0, 4.0, 6.0")
        self.assertEqual(cells[7], "holds")  # median p50 900 ≤ 1 ms


if __name__ == "__main__":
    unittest.main()
