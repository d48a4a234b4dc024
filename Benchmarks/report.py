#!/usr/bin/env python3
"""Turns the benchmark plugin's markdown output of one or more rounds into one table: for each
scenario, the median over the rounds of our p50 and of the peer's (or baseline's), the median of
the rounds' ratios (each from the two p50s of one round), every round's ratio, allocations per
element, and whether the target holds on the median ratio.
Usage: report.py ROUND_1.md [ROUND_2.md …] > RESULTS.md (Benchmarks/run writes one file a round).
report_test.py checks the round logic."""
import datetime
import os
import platform
import re
import statistics
import sys

UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def parse(path):
    """{benchmark name: {metric: p50, metric + " p90": p90}} from the plugin's markdown tables (of one round)."""
    results, name = {}, None
    with open(path, encoding="utf-8") as file:
        lines = file.readlines()
    for line in lines:
        if line.startswith("### "):
            name = line[4:].strip()
            results[name] = {}
        elif name and line.startswith("| ") and not line.startswith("| Metric"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 4:
                continue
            label = cells[0].rstrip(" *")
            match = re.match(r"(.*?) \((?:([KMG]?)|(μs|ms|ns|s))\)$", label)
            scale, metric = 1, label
            if match:
                metric = match.group(1)
                if match.group(2) is not None:
                    scale = UNITS[match.group(2)]
            try:
                results[name][metric] = float(cells[3]) * scale  # p50
                results[name][metric + " p90"] = float(cells[5]) * scale
            except (ValueError, IndexError):
                pass
    return results


def median(results, name, metric="Time (wall clock)"):
    return results.get(name, {}).get(metric)


def figure(value):
    """A time in microseconds: whole above 100, with decimals below."""
    if not value:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}"


def aggregate(rounds, measure):
    """`measure` applied to each round's results gives that round's figures (a dict, or None when
    the round lacks them). Returns the median of each figure over the rounds that have it, and
    under "ratios" each round's "ratio" (computed in that round), with "ratio" their median and
    "rounds" the number of rounds that contributed; None when no round has the figures."""
    per_round = [m for m in map(measure, rounds) if m]
    if not per_round:
        return None
    result = {}
    for key in {key for m in per_round for key in m}:
        values = [m[key] for m in per_round if m.get(key) is not None]
        result[key] = statistics.median(values) if values else None
    result["ratios"] = [m["ratio"] for m in per_round if m.get("ratio")]
    result["ratio"] = statistics.median(result["ratios"]) if result["ratios"] else None
    result["rounds"] = len(per_round)
    return result


def spread(m, total, invert=False, digits=2):
    """The rounds' ratios as the ratio column shows them (inverted for "× faster"), sorted: each
    of them up to five rounds, the range beyond; and how many rounds had them if not all."""
    values = sorted(1 / v if invert else v for v in (m or {}).get("ratios", []))
    if not values:
        return "—"
    shown = ", ".join(f"{v:,.{digits}f}" for v in values) if len(values) <= 5 else (
        f"{values[0]:,.{digits}f}–{values[-1]:,.{digits}f}")
    return shown + (f" ({len(values)} of {total} rounds)" if len(values) < total else "")


def within(limit):
    """Holds when our figure is at most `limit` times the peer's (the median of the rounds' ratios)."""
    return lambda m: m["ratio"] <= limit


def faster_by(factor):
    """Holds when the peer's figure is at least `factor` times ours (the median of the rounds' ratios)."""
    return lambda m: m["ratio"] <= 1 / factor


def render(paths):
    """RESULTS.md's text from the plugin's output of each round (one file per round)."""
    rounds = [parse(path) for path in paths]
    total = len(rounds)
    rows = []

    def derived(label, measure, cells, target, holds, invert=False, digits=2):
        """A row of figures computed in each round by `measure` (with their "ratio"), shown
        as `cells(medians)` gives them: (ours, peer, ratio) columns; the verdict from the medians."""
        m = aggregate(rounds, measure)
        if m:
            ours, peer, ratio = cells(m)
            verdict = "—" if target == "—" else ("holds" if holds(m) else "MISSED")
            rows.append((label, ours, peer, ratio, spread(m, total, invert, digits), "—", target, verdict))

    def flat_in_n(scenario):
        """`scenario` at N = 100,000 against N = 1,000, both 100 saves an iteration."""
        def measure(r):
            small, large = median(r, f"{scenario}-1000 Streams"), median(r, f"{scenario}-100000 Streams")
            return {"small": small / 100, "large": large / 100, "ratio": large / small} if small and large else None
        derived(f"{scenario} flat in N", measure,
                lambda m: (f"{m['large']:,.0f} per save at 100,000", f"{m['small']:,.0f} per save at 1,000", f"{m['ratio']:.2f}×"),
                "N = 100,000 within 2× of N = 1,000", within(2))

    def peak_memory(names):
        """The peak resident memory of the benchmarks `names` (small, large) and large / small."""
        def measure(r):
            small, large = (r.get(name, {}).get("Memory (resident peak)") for name in names)
            return {"small": small, "large": large, "ratio": large / small} if small and large else None
        return measure

    def saves_memory(scenario, label):
        """The peak memory of `scenario` after 10,000 saves against after 1,000."""
        derived(label, peak_memory((f"{scenario}-1000 Streams", f"{scenario}-10000 Streams")),
                lambda m: (f"{m['large'] / 1e6:,.0f} MB peak", f"{m['small'] / 1e6:,.0f} MB peak", f"{m['ratio']:.2f}×"),
                "one difference (asserted); peak memory independent of the saves", within(1.1))

    def row(scenario, ours, peer, peer_label, target, holds, elements=None, note=None, per=1):
        """Our benchmark `ours` against `peer`, per `per` operations; `holds(medians)` decides."""
        def measure(r):
            ours_t, peer_t = median(r, ours), median(r, peer) if peer else None
            allocs = r.get(ours, {}).get("Malloc (total)")
            if ours_t is None and peer_t is None:
                return None
            return {"ours": ours_t / per if ours_t else ours_t, "peer": peer_t / per if peer_t else peer_t,
                    "ratio": ours_t / peer_t if ours_t and peer_t else None,
                    "allocations": allocs / elements if allocs is not None and elements else None}
        m = aggregate(rounds, measure) or {}
        ours_t, peer_t, ratio = m.get("ours"), m.get("peer"), m.get("ratio")
        faster = bool(ratio) and ratio <= 1
        shown = (f"{1 / ratio:.1f}× faster" if faster else f"{ratio:.2f}× the {peer_label}") if ratio else "—"
        allocations = m.get("allocations")
        if target == "—":
            verdict = "—"
        elif not ours_t:
            verdict = "not run"
        elif peer and not ratio:
            verdict = "not run (no peer figure)"
        else:
            verdict = "holds" if holds(m) else "MISSED"
            if note and ours_t:
                verdict += f" {note(m)}"
        rows.append((scenario, figure(ours_t), f"{figure(peer_t)} ({peer_label})" if peer_t else "—",
                     shown, spread(m, total, invert=faster, digits=1 if faster else 2),
                     f"{allocations:.3f}" if allocations is not None else "—", target, verdict))

    n = 1_000_000
    row("S1 sequence → map → filter → sink", "S1 Streams", "S1 OpenCombine", "OpenCombine",
        "≥ 20× faster than OpenCombine", faster_by(20), n)
    row("S1 (against the hand-written loop)", "S1 Streams", "S1 loop", "loop",
        "≤ 10× the loop; 0 allocations per element",
        lambda m: m["ratio"] <= 10 and (m["allocations"] if m["allocations"] is not None else 1e9) < 0.001, n)
    row("S2 one value per request, from inside receive", "S2 Streams", "S2 OpenCombine", "OpenCombine",
        "≥ 10× faster than OpenCombine", faster_by(10), n)
    for sinks in (1, 10, 100):
        row(f"S3 PassthroughSubject.send to {sinks} sinks", f"S3-{sinks} Streams", f"S3-{sinks} OpenCombine",
            "OpenCombine", "≥ 3× faster; ≤ 30 ns per delivered value",
            lambda m: m["ratio"] <= 1 / 3 and m["ours"] * 1000 / n <= 30, n,
            note=lambda m: f"({m['ours'] * 1000 / n:.1f} ns per value)")
    for op in ("zip", "combineLatest", "merge"):
        row(f"S4 {op} of two subjects (per value, against S3's send to one sink)", f"S4-{op} Streams", "S3-1 Streams",
            "send to one sink", "≤ 2× a PassthroughSubject.send to one sink", within(2), n)
        row(f"S4 {op} of two subjects (against the hand-written loop)", f"S4-{op} Streams", "S4 loop", "loop", "—",
            None, n)
    row("S5 record → map → map → filter → map → sink", "S5 Streams", "S5 OpenCombine", "OpenCombine", "—", None, n)
    row("S5 (against S1)", "S5 Streams", "S1 Streams", "S1", "within 2× of S1", within(2), n)
    row("S5 (against the hand-written loop)", "S5 Streams", "S5 loop", "loop", "—", None, n)
    for size in (1_000, 10_000, 100_000):
        def naive(r, size=size):
            ours, naive = median(r, f"C1-{size} Streams"), median(r, f"C1-{size} naive")
            if not (ours and naive):
                return None
            per_ours, per_naive = ours / 100, naive / (10 if size == 100_000 else 100)
            return {"ours": per_ours, "peer": per_naive, "ratio": per_naive / per_ours}
        derived(f"C1 one update per save, N = {size:,} (per save)", naive,
                lambda m: (f"{m['ours']:,.0f}", f"{m['peer']:,.0f} (naive re-fetch + difference(from:))", f"{m['ratio']:.1f}× faster"),
                "≥ 100× faster than naive at N = 100,000" if size == 100_000 else "—", lambda m: m["ratio"] >= 100, digits=1)
    flat_in_n("C1")
    saves_memory("C2", "C2 1,000 vs 10,000 saves without demand, then one request")
    for k in (1, 100, 10_000):
        row(f"C3 applyingChanges, k = {k:,} of 100,000", f"C3-{k} Streams", f"C3-{k} rebuild", "map rebuild",
            "k = 1 under 1% of the rebuild" if k == 1 else "—", within(0.01))
    for k in (1, 100, 10_000):
        row(f"C3 board.rows.apply in place, k = {k:,} of 100,000", f"C3-{k} in place", f"C3-{k} rebuild", "map rebuild",
            "k = 1 under 1% of the rebuild" if k == 1 else "—", within(0.01))
    for size in (1_000, 100_000):
        row(f"V1 observable live result, one update per save, N = {size:,} (per save)", f"V1-{size} Streams",
            f"V1-{size} changesPublisher", "changesPublisher + apply in place", "≤ 1.2× the baseline", within(1.2), per=100)
    flat_in_n("V1")
    saves_memory("V2", "V2 changes(for:) in a for-await loop, 1,000 vs 10,000 saves while it is suspended")
    for k in (1, 100, 1_000):
        row(f"V3 one observed change, K = {k:,} objectPublishers (per change)", f"V3-change-{k} Streams", f"V3-change-{k} GRDB",
            "GRDB ValueObservation", "≤ GRDB at K = 1" if k == 1 else "—", within(1), per=20)
    for k in (1, 100, 1_000):
        row(f"V3 one save of 1,000 unobserved changes, K = {k:,} objectPublishers", f"V3-bulk-{k} Streams", f"V3-bulk-{k} GRDB",
            "GRDB ValueObservation", "—", None)

    def growth(small_name, large_name, per=1):
        """Our figure at a large size against a small one, in each round."""
        def measure(r):
            small, large = median(r, small_name), median(r, large_name)
            return {"small": small / per, "large": large / per, "ratio": large / small} if small and large else None
        return measure

    for kind, what in (("change", "one observed change"), ("bulk", "1,000 unobserved changes")):
        derived(f"V3 {what}: flat in K", growth(f"V3-{kind}-1 Streams", f"V3-{kind}-1000 Streams"),
                lambda m: (f"{figure(m['large'])} at K = 1,000", f"{figure(m['small'])} at K = 1", f"{m['ratio']:.2f}×"),
                "K = 1,000 within 2× of K = 1", within(2))
    row("D1 insert 100,000 objects in one save, two declared indexes (SQLite)", "D1 Streams", "D1 raw SQLite", "raw loop",
        "≤ 3× the raw loop", within(3))
    row("D1 (against GRDB's record insert)", "D1 Streams", "D1 GRDB", "GRDB", "faster than GRDB", lambda m: m["ratio"] < 1)
    row("D2 fetch 100,000 objects sorted, two declared indexes (SQLite)", "D2 Streams", "D2 raw SQLite", "raw select",
        "≤ 3× the raw select", within(3))
    row("M1 open 1,000,000 objects with an added attribute (SQLite)", "M1 Streams", "M1 plain open", "plain open",
        "≤ 3× the plain open", within(3))
    row("M2 migration that rebuilds a table of 1,000,000 objects (SQLite)", "M2 Streams", "M2 raw copy", "raw INSERT … SELECT",
        "≤ 2× the raw copy", within(2))
    row("D5 view context's latency during a 100,000-row background import of an entity no live result follows (SQLite)",
        "D5 Streams", "D5 every row brought in", "every row brought in",
        "≥ 10× less than bringing every row in", faster_by(10))

    # Q1–Q5 run many queries per iteration; the table shows one query.
    repeats = {1: 100, 2: 100, 3: 100, 4: 20, 5: 20}
    work = {1: "fetch by an indexed ==, 1 row", 2: "count(for:) of an indexed range", 3: "first page sorted by an indexed attribute, limit 20",
            4: "city == X && rank < N/10, compound index", 5: "objectPublisher(matching:) to its first value"}
    for q in range(1, 6):
        if q <= 4:
            row(f"Q{q} {work[q]} (N = 300,000, per query)", f"Q{q} Streams", f"Q{q} raw SQLite", "raw, same index",
                "≤ 3× raw SQLite", within(3), per=repeats[q])
        row(f"Q{q} (against GRDB)" if q <= 4 else f"Q5 {work[5]} (N = 300,000, per query)", f"Q{q} Streams", f"Q{q} GRDB",
            "GRDB" if q <= 4 else "GRDB ValueObservation", "faster than GRDB", lambda m: m["ratio"] < 1, per=repeats[q])
    for q in range(1, 6):
        derived(f"Q6 Q{q} at N = 1,000,000 against N = 10,000 (per query)" + (", rank < 10,000: 100 results at both" if q == 4 else ""),
                growth(f"Q6-10000-Q{q} Streams", f"Q6-1000000-Q{q} Streams", per=repeats[q]),
                lambda m: (f"{figure(m['large'])} at 1,000,000", f"{figure(m['small'])} at 10,000", f"{m['ratio']:.2f}×"),
                "within 2×: flat in the size of the store", within(2))
    derived("Q1 peak memory, N = 1,000,000 against N = 10,000 (100 queries)",
            peak_memory(("Q1mem-10000 Streams", "Q1mem-1000000 Streams")),
            lambda m: (f"{m['large'] / 1e6:,.0f} MB peak", f"{m['small'] / 1e6:,.0f} MB peak", f"{m['ratio']:.2f}×"),
            "does not depend on N", within(1.1))
    # Q7: launches (open + Q1 + close), 10 an iteration; the table shows one.
    for size in (30_000, 300_000, 1_000_000):
        row(f"Q7 launch: open a container and run Q1 (N = {size:,}, per launch)", f"Q7-{size} Streams", f"Q7-{size} GRDB",
            "GRDB open + the same query", "≤ 1.5× GRDB", within(1.5), per=10)
    derived("Q7 launch at N = 1,000,000 against N = 30,000 (per launch)", growth("Q7-30000 Streams", "Q7-1000000 Streams", per=10),
            lambda m: (f"{figure(m['large'])} at 1,000,000", f"{figure(m['small'])} at 30,000", f"{m['ratio']:.2f}×"),
            "within 1.5×: flat in the size of the store", within(1.5))
    # Q8: predicates as written, 20 queries an iteration.
    for key, what in (("a", "city == X && rank < limit / 10"), ("b", "city == X && rank < limit % 70_001")):
        row(f"Q8 {what}, as written (N = 300,000, per query)", f"Q8{key} Streams", f"Q8{key}-folded Streams",
            "value folded by hand", "≤ 1.1× the hand-folded query", within(1.1), per=20)
        row(f"Q8 {what} (against GRDB)", f"Q8{key} Streams", f"Q8{key} GRDB", "GRDB", "≤ 1× GRDB", within(1), per=20)
    row("Q8 city == X && rank % 10 == 0, arithmetic on the property in SQL (per query)", "Q8c Streams", "Q8c GRDB", "GRDB",
        "≤ 1× GRDB", within(1), per=20)
    row("Q8 city == X && a computed property, evaluated in memory on the 3,000 rows city == X narrows (per query)",
        "Q8d Streams", "Q8d-plain Streams", "plain fetch of the same rows", "—", None, per=20)

    row("D3 batch update of 100,000 of 300,000 objects by predicate", "D3 Streams", "D3 raw SQLite", "raw UPDATE … WHERE",
        "≤ 3× raw SQLite", within(3))
    row("D4 Q1 on the view context while a background context saves 100,000 inserts (per query)", "D4 Streams", "D4 idle",
        "Q1 with no save running", "not slowed by more than 2×", within(2), per=500)

    def live(ours_name, peer_name):
        """X1 and P2 in one round: p50 and p90 of save → delivery and of propagation, ours and the peer's."""
        def measure(r):
            ours, peer = r.get(ours_name, {}), r.get(peer_name, {})
            p50 = ours.get("Save to delivery")
            if p50 is None:
                return None
            figures = {"p50": p50, "p90": ours.get("Save to delivery p90"), "after": ours.get("Propagation"),
                       "after90": ours.get("Propagation p90"), "peer50": peer.get("Save to delivery"),
                       "peer90": peer.get("Save to delivery p90"), "peer_after": peer.get("Propagation"),
                       "peer_after90": peer.get("Propagation p90")}
            figures["ratio"] = p50 / figures["peer50"] if figures["peer50"] else None
            return figures
        return measure

    # X1–X3: persistent history and other processes.
    for size in (10_000, 100_000):
        def x1_cells(m):
            q = m["ratio"]
            compared = (f"{1 / q:.1f}× faster; " if q <= 1 else f"{q:.2f}× the sibling's; ") if q else ""
            return (f"{figure(m['p50'])} / {figure(m['p90'])}",
                    f"{figure(m['peer50'])} (a sibling context's save, asked → delivered)" if m["peer50"] else "—",
                    compared + f"from the save returning there: {m['after'] or 0:,.0f} / {m['after90'] or 0:,.0f}")
        derived(f"X1 a save in another process → the difference delivered here, N = {size:,} (p50 / p90, from asking the other process to save, its fsync included)",
                live(f"X1-{size} Streams", f"X1-{size} sibling"), x1_cells, "p50 ≤ 1 ms, flat in N", lambda m: m["p50"] <= 1_000)

    def flat_in_n(scenario):
        """X1 and P2: the p50 at N = 100,000 against N = 10,000."""
        def measure(r):
            small, large = (r.get(f"{scenario}-{s} Streams", {}).get("Save to delivery") for s in (10_000, 100_000))
            return {"small": small, "large": large, "ratio": large / small} if small and large else None
        derived(f"{scenario} flat in N", measure,
                lambda m: (f"{figure(m['large'])} at 100,000", f"{figure(m['small'])} at 10,000", f"{m['ratio']:.2f}×"),
                "N = 100,000 within 2× of N = 10,000", within(2))
    flat_in_n("X1")

    def x2(r):
        busy, idle = r.get("X2 Streams", {}).get("Query"), r.get("X2 idle", {}).get("Query")
        return {"busy": busy, "idle": idle, "ratio": busy / idle} if busy and idle else None
    derived("X2 view context's query (Q1) while another process imports 100,000 rows of an entity no live result follows (p50 per query)",
            x2, lambda m: (figure(m["busy"]), f"{figure(m['idle'])} (nothing running)", f"{m['ratio']:.2f}× idle"),
            "≤ 2× idle", within(2))
    row("X3 D1 with persistent history", "X3-D1 Streams", "X3-D1 no history", "same without history",
        "≤ 1.3× without history", within(1.3))
    row("X3 a single-object save with persistent history (per save)", "X3-single Streams", "X3-single no history",
        "same without history", "≤ 1.2× without history", within(1.2), per=100)
    row("T1 fetch 100,000 objects with an enum and a small Codable attribute (SQLite)", "T1fetch Streams", "T1fetch raw columns",
        "raw Int and String columns", "within 1.5× of raw Int and String columns", within(1.5), 100_000)
    row("T1 and read both attributes of each (every Codable value decoded; the raw String only counted)", "T1 Streams",
        "T1 raw columns", "raw Int and String columns", "within 1.5× of raw Int and String columns", within(1.5), 100_000)

    # P1–P3: the PostgreSQL store against hand-written libpq on the same server.
    for q in range(1, 5):
        row(f"P1 Q{q} on PostgreSQL: {work[q]} (N = 300,000, per query)", f"P1-Q{q} Streams", f"P1-Q{q} raw libpq",
            "prepared libpq query, same indexes", "≤ 2× raw libpq", within(2), per=repeats[q])
    for size in (10_000, 100_000):
        def p2_cells(m):
            return (f"{figure(m['p50'])} / {figure(m['p90'])}",
                    f"{figure(m['peer50'])} / {figure(m['peer90'])} (UPDATE + NOTIFY there → LISTEN here → read the row)" if m["peer50"] else "—",
                    (f"{m['ratio']:.1f}× the raw round trip; " if m["ratio"] else "")
                    + f"from the save returning there: {m['after'] or 0:,.0f} / {m['after90'] or 0:,.0f}"
                    + f" (raw: {m['peer_after'] or 0:,.0f} / {m['peer_after90'] or 0:,.0f})")
        derived(f"P2 a save in another process → the difference delivered here, PostgreSQL, N = {size:,} (p50 / p90, from asking the other process to save)",
                live(f"P2-{size} Streams", f"P2-{size} raw NOTIFY"), p2_cells, "p50 ≤ 1 ms, flat in N",
                lambda m: m["p50"] <= 1_000, digits=1)
    flat_in_n("P2")
    row("P3 insert 100,000 objects in one save, two declared indexes (PostgreSQL)", "P3 Streams", "P3 raw INSERT",
        "raw multi-row INSERT, 1,000 rows a statement", "≤ 2× raw", within(2))
    row("P3 (against COPY)", "P3 Streams", "P3 raw COPY", "raw COPY", "—", None)

    lines = ["# Benchmark results", "",
             f"Run on {datetime.date.today().isoformat()}; machine: {machine()}.",
             f"Release build, {total} rounds (`Benchmarks/run --rounds {total}`): every benchmark ran {total} times, each time in\n"
             "its own process with its share of the benchmark's sampling budget, odd rounds in name order and\n"
             "even rounds in reverse order (so ours and its peer swap places). Within a round, a figure is the"
             if total > 1 else
             "Release build, one round (`Benchmarks/run --rounds 1`): every benchmark ran once, in its own\n"
             "process, in name order, with its whole sampling budget. Within the round, a figure is the",
             "median (p50) wall-clock time in microseconds of that round's iterations (for X1, X2 and P2 the",
             "p50 and p90 of their own metrics), and a ratio compares two figures of that round. Each row shows",
             "the median over the rounds of each figure, the median of the rounds' ratios as its ratio, and",
             "under \"ratio per round\" every round's ratio, sorted, in the terms of the ratio column (their range",
             "beyond five rounds). Verdicts are decided on the median ratio (and on our median figure where the",
             "target names one). Allocations are malloc calls per element in our measured region (the median",
             "over the rounds).", "",
             "| scenario | ours (μs) | peer (μs) | ratio | ratio per round | allocations per element | target | verdict |",
             "| --- | ---: | ---: | --- | --- | ---: | --- | --- |"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines) + "\n"


def main(paths):
    sys.stdout.write(render(paths))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: report.py ROUND_1.md [ROUND_2.md …] > RESULTS.md")
    main(sys.argv[1:])
