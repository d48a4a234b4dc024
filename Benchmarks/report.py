#!/usr/bin/env python3
"""Turns the benchmark plugin's markdown output into one table: for each scenario, our median,
the peer's (or baseline's) median from the same run, the ratio, allocations per element, and
whether the target holds. Usage: report.py RUN_OUTPUT.md > RESULTS.md"""
import datetime
import os
import platform
import re
import sys

UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def parse(path):
    """{benchmark name: {metric: p50}} from the plugin's markdown tables."""
    results, name = {}, None
    for line in open(path, encoding="utf-8"):
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


def main(path):
    r = parse(path)
    rows = []

    def flat_in_n(scenario):
        """`scenario` at N = 100,000 against N = 1,000, both 100 saves an iteration."""
        small, large = median(r, f"{scenario}-1000 Streams"), median(r, f"{scenario}-100000 Streams")
        if small and large:
            per_small, per_large = small / 100, large / 100
            rows.append((f"{scenario} flat in N", f"{per_large:,.0f} per save at 100,000", f"{per_small:,.0f} per save at 1,000",
                         f"{per_large / per_small:.2f}×", "—", "N = 100,000 within 2× of N = 1,000",
                         "holds" if per_large <= 2 * per_small else "MISSED"))

    def saves_memory(scenario, label):
        """The peak memory of `scenario` after 10,000 saves against after 1,000."""
        m1, m10 = (r.get(f"{scenario}-{s} Streams", {}).get("Memory (resident peak)") for s in (1_000, 10_000))
        if m1 and m10:
            rows.append((label, f"{m10 / 1e6:,.0f} MB peak", f"{m1 / 1e6:,.0f} MB peak", f"{m10 / m1:.2f}×", "—",
                         "one difference (asserted); peak memory independent of the saves",
                         "holds" if m10 <= m1 * 1.1 else "MISSED"))

    def row(scenario, ours, peer, peer_label, target, holds, elements=None, note="", per=1):
        ours_t, peer_t = median(r, ours), median(r, peer) if peer else None
        ours_t = ours_t / per if ours_t else ours_t
        peer_t = peer_t / per if peer_t else peer_t
        ratio = f"{peer_t / ours_t:.1f}× faster" if ours_t and peer_t and peer_t >= ours_t else (
            f"{ours_t / peer_t:.2f}× the {peer_label}" if ours_t and peer_t else "—")
        allocs = r.get(ours, {}).get("Malloc (total)")
        per_element = f"{allocs / elements:.3f}" if allocs is not None and elements else "—"
        if target == "—":
            verdict = "—"
        elif not ours_t and not peer_t:
            verdict = "not run"
        else:
            verdict = "holds" if (ours_t and (peer_t or not peer) and holds(ours_t, peer_t)) else "MISSED"
        rows.append((scenario, figure(ours_t), f"{figure(peer_t)} ({peer_label})" if peer_t else "—",
                     ratio, per_element, target, verdict + (f" {note}" if note else "")))

    n = 1_000_000
    row("S1 sequence → map → filter → sink", "S1 Streams", "S1 OpenCombine", "OpenCombine",
        "≥ 20× faster than OpenCombine", lambda o, p: p / o >= 20, n)
    row("S1 (against the hand-written loop)", "S1 Streams", "S1 loop", "loop",
        "≤ 10× the loop; 0 allocations per element",
        lambda o, p: o / p <= 10 and r["S1 Streams"].get("Malloc (total)", 1e9) / n < 0.001, n)
    row("S2 one value per request, from inside receive", "S2 Streams", "S2 OpenCombine", "OpenCombine",
        "≥ 10× faster than OpenCombine", lambda o, p: p / o >= 10, n)
    for sinks in (1, 10, 100):
        row(f"S3 PassthroughSubject.send to {sinks} sinks", f"S3-{sinks} Streams", f"S3-{sinks} OpenCombine",
            "OpenCombine", "≥ 3× faster; ≤ 30 ns per delivered value",
            lambda o, p: p / o >= 3 and o * 1000 / n <= 30, n,
            note=f"({median(r, f'S3-{sinks} Streams') * 1000 / n:.1f} ns per value)" if median(r, f"S3-{sinks} Streams") else "")
    for op in ("zip", "combineLatest", "merge"):
        row(f"S4 {op} of two subjects (per value, against S3's send to one sink)", f"S4-{op} Streams", "S3-1 Streams",
            "send to one sink", "≤ 2× a PassthroughSubject.send to one sink", lambda o, p: o / p <= 2, n)
        row(f"S4 {op} of two subjects (against the hand-written loop)", f"S4-{op} Streams", "S4 loop", "loop", "—",
            lambda o, p: True, n)
    row("S5 record → map → map → filter → map → sink", "S5 Streams", "S5 OpenCombine", "OpenCombine",
        "—", lambda o, p: True, n)
    row("S5 (against S1)", "S5 Streams", "S1 Streams", "S1", "within 2× of S1",
        lambda o, p: o / p <= 2, n)
    row("S5 (against the hand-written loop)", "S5 Streams", "S5 loop", "loop", "—", lambda o, p: True, n)
    for size in (1_000, 10_000, 100_000):
        naive_saves = 10 if size == 100_000 else 100
        ours, naive = median(r, f"C1-{size} Streams"), median(r, f"C1-{size} naive")
        if ours and naive:
            per_ours, per_naive = ours / 100, naive / naive_saves
            holds = per_naive / per_ours >= 100 if size == 100_000 else True
            rows.append((f"C1 one update per save, N = {size:,} (per save)", f"{per_ours:,.0f}",
                         f"{per_naive:,.0f} (naive re-fetch + difference(from:))", f"{per_naive / per_ours:.1f}× faster", "—",
                         "≥ 100× faster than naive at N = 100,000" if size == 100_000 else "—",
                         ("holds" if holds else "MISSED") if size == 100_000 else "—"))
    flat_in_n("C1")
    saves_memory("C2", "C2 1,000 vs 10,000 saves without demand, then one request")
    for k in (1, 100, 10_000):
        row(f"C3 applyingChanges, k = {k:,} of 100,000", f"C3-{k} Streams", f"C3-{k} rebuild", "map rebuild",
            "k = 1 under 1% of the rebuild" if k == 1 else "—",
            (lambda o, p: o <= p / 100) if k == 1 else (lambda o, p: True))
    for k in (1, 100, 10_000):
        row(f"C3 board.rows.apply in place, k = {k:,} of 100,000", f"C3-{k} in place", f"C3-{k} rebuild", "map rebuild",
            "k = 1 under 1% of the rebuild" if k == 1 else "—",
            (lambda o, p: o <= p / 100) if k == 1 else (lambda o, p: True))
    for size in (1_000, 100_000):
        row(f"V1 observable live result, one update per save, N = {size:,} (per save)", f"V1-{size} Streams",
            f"V1-{size} changesPublisher", "changesPublisher + apply in place", "≤ 1.2× the baseline",
            lambda o, p: o / p <= 1.2, per=100)
    flat_in_n("V1")
    saves_memory("V2", "V2 changes(for:) in a for-await loop, 1,000 vs 10,000 saves while it is suspended")
    for k in (1, 100, 1_000):
        row(f"V3 one observed change, K = {k:,} objectPublishers (per change)", f"V3-change-{k} Streams", f"V3-change-{k} GRDB",
            "GRDB ValueObservation", "≤ GRDB at K = 1" if k == 1 else "—",
            (lambda o, p: o <= p) if k == 1 else (lambda o, p: True), per=20)
    for k in (1, 100, 1_000):
        row(f"V3 one save of 1,000 unobserved changes, K = {k:,} objectPublishers", f"V3-bulk-{k} Streams", f"V3-bulk-{k} GRDB",
            "GRDB ValueObservation", "—", lambda o, p: True)
    for kind, what in (("change", "one observed change"), ("bulk", "1,000 unobserved changes")):
        one, many = median(r, f"V3-{kind}-1 Streams"), median(r, f"V3-{kind}-1000 Streams")
        if one and many:
            rows.append((f"V3 {what}: flat in K", f"{figure(many)} at K = 1,000", f"{figure(one)} at K = 1", f"{many / one:.2f}×", "—",
                         "K = 1,000 within 2× of K = 1", "holds" if many <= 2 * one else "MISSED"))
    row("D1 insert 100,000 objects in one save, two declared indexes (SQLite)", "D1 Streams", "D1 raw SQLite", "raw loop",
        "≤ 3× the raw loop", lambda o, p: o / p <= 3)
    row("D1 (against GRDB's record insert)", "D1 Streams", "D1 GRDB", "GRDB", "faster than GRDB", lambda o, p: o < p)
    row("D2 fetch 100,000 objects sorted, two declared indexes (SQLite)", "D2 Streams", "D2 raw SQLite", "raw select",
        "≤ 3× the raw select", lambda o, p: o / p <= 3)
    row("M1 open 1,000,000 objects with an added attribute (SQLite)", "M1 Streams", "M1 plain open", "plain open",
        "≤ 3× the plain open", lambda o, p: o / p <= 3)
    row("M2 migration that rebuilds a table of 1,000,000 objects (SQLite)", "M2 Streams", "M2 raw copy", "raw INSERT … SELECT",
        "≤ 2× the raw copy", lambda o, p: o / p <= 2)
    row("D5 view context's latency during a 100,000-row background import of an entity no live result follows (SQLite)",
        "D5 Streams", "D5 every row brought in", "every row brought in",
        "≥ 10× less than bringing every row in", lambda o, p: p / o >= 10)

    # Q1–Q5 run many queries per iteration; the table shows one query.
    repeats = {1: 100, 2: 100, 3: 100, 4: 20, 5: 20}
    work = {1: "fetch by an indexed ==, 1 row", 2: "count(for:) of an indexed range", 3: "first page sorted by an indexed attribute, limit 20",
            4: "city == X && rank < N/10, compound index", 5: "objectPublisher(matching:) to its first value"}
    for q in range(1, 6):
        if q <= 4:
            row(f"Q{q} {work[q]} (N = 300,000, per query)", f"Q{q} Streams", f"Q{q} raw SQLite", "raw, same index",
                "≤ 3× raw SQLite", lambda o, p: o / p <= 3, per=repeats[q])
        row(f"Q{q} (against GRDB)" if q <= 4 else f"Q5 {work[5]} (N = 300,000, per query)", f"Q{q} Streams", f"Q{q} GRDB",
            "GRDB" if q <= 4 else "GRDB ValueObservation", "faster than GRDB", lambda o, p: o < p, per=repeats[q])
    for q in range(1, 6):
        small, large = median(r, f"Q6-10000-Q{q} Streams"), median(r, f"Q6-1000000-Q{q} Streams")
        if small and large:
            small, large = small / repeats[q], large / repeats[q]
            rows.append((f"Q6 Q{q} at N = 1,000,000 against N = 10,000 (per query)" + (", rank < 10,000: 100 results at both" if q == 4 else ""),
                         f"{figure(large)} at 1,000,000", f"{figure(small)} at 10,000", f"{large / small:.2f}×", "—",
                         "within 2×: flat in the size of the store", "holds" if large <= 2 * small else "MISSED"))
    m_small, m_large = (r.get(f"Q1mem-{n} Streams", {}).get("Memory (resident peak)") for n in (10_000, 1_000_000))
    if m_small and m_large:
        rows.append(("Q1 peak memory, N = 1,000,000 against N = 10,000 (100 queries)", f"{m_large / 1e6:,.0f} MB peak",
                     f"{m_small / 1e6:,.0f} MB peak", f"{m_large / m_small:.2f}×", "—", "does not depend on N",
                     "holds" if m_large <= m_small * 1.1 else "MISSED"))
    # Q7: launches (open + Q1 + close), 10 an iteration; the table shows one.
    for size in (30_000, 300_000, 1_000_000):
        row(f"Q7 launch: open a container and run Q1 (N = {size:,}, per launch)", f"Q7-{size} Streams", f"Q7-{size} GRDB",
            "GRDB open + the same query", "≤ 1.5× GRDB", lambda o, p: o / p <= 1.5, per=10)
    q7_small, q7_large = median(r, "Q7-30000 Streams"), median(r, "Q7-1000000 Streams")
    if q7_small and q7_large:
        rows.append(("Q7 launch at N = 1,000,000 against N = 30,000 (per launch)", f"{figure(q7_large / 10)} at 1,000,000",
                     f"{figure(q7_small / 10)} at 30,000", f"{q7_large / q7_small:.2f}×", "—",
                     "within 1.5×: flat in the size of the store", "holds" if q7_large <= 1.5 * q7_small else "MISSED"))
    # Q8: predicates as written, 20 queries an iteration.
    for key, what in (("a", "city == X && rank < limit / 10"), ("b", "city == X && rank < limit % 70_001")):
        row(f"Q8 {what}, as written (N = 300,000, per query)", f"Q8{key} Streams", f"Q8{key}-folded Streams",
            "value folded by hand", "≤ 1.1× the hand-folded query", lambda o, p: o / p <= 1.1, per=20)
        row(f"Q8 {what} (against GRDB)", f"Q8{key} Streams", f"Q8{key} GRDB", "GRDB", "≤ 1× GRDB", lambda o, p: o <= p, per=20)
    row("Q8 city == X && rank % 10 == 0, arithmetic on the property in SQL (per query)", "Q8c Streams", "Q8c GRDB", "GRDB",
        "≤ 1× GRDB", lambda o, p: o <= p, per=20)
    row("Q8 city == X && a computed property, evaluated in memory on the 3,000 rows city == X narrows (per query)",
        "Q8d Streams", "Q8d-plain Streams", "plain fetch of the same rows", "—", lambda o, p: True, per=20)

    row("D3 batch update of 100,000 of 300,000 objects by predicate", "D3 Streams", "D3 raw SQLite", "raw UPDATE … WHERE",
        "≤ 3× raw SQLite", lambda o, p: o / p <= 3)
    row(f"D4 Q1 on the view context while a background context saves 100,000 inserts (per query)", "D4 Streams", "D4 idle",
        "Q1 with no save running", "not slowed by more than 2×", lambda o, p: o / p <= 2, per=500)
    # X1–X3: persistent history and other processes.
    for size in (10_000, 100_000):
        ours = r.get(f"X1-{size} Streams", {})
        sibling = r.get(f"X1-{size} sibling", {})
        p50, p90 = ours.get("Save to delivery"), ours.get("Save to delivery p90")
        if p50 is not None:
            after, after90 = ours.get("Propagation"), ours.get("Propagation p90")
            ask_sibling = sibling.get("Save to delivery")
            rows.append((f"X1 a save in another process → the difference delivered here, N = {size:,} (p50 / p90, from asking the other process to save, its fsync included)",
                         f"{figure(p50)} / {figure(p90)}",
                         f"{figure(ask_sibling)} (a sibling context's save, asked → delivered)" if ask_sibling else "—",
                         (f"{ask_sibling / p50:.1f}× faster; " if ask_sibling else "")
                         + f"from the save returning there: {after or 0:,.0f} / {after90 or 0:,.0f}", "—",
                         "p50 ≤ 1 ms, flat in N", "holds" if p50 <= 1_000 else "MISSED"))
    def flat_in_n(scenario):
        """X1 and P2: the p50 at N = 100,000 against N = 10,000."""
        small, large = (r.get(f"{scenario}-{s} Streams", {}).get("Save to delivery") for s in (10_000, 100_000))
        if small and large:
            rows.append((f"{scenario} flat in N", f"{figure(large)} at 100,000", f"{figure(small)} at 10,000", f"{large / small:.2f}×", "—",
                         "N = 100,000 within 2× of N = 10,000", "holds" if large <= 2 * small else "MISSED"))
    flat_in_n("X1")
    busy, idle = r.get("X2 Streams", {}).get("Query"), r.get("X2 idle", {}).get("Query")
    if busy and idle:
        rows.append(("X2 view context's query (Q1) while another process imports 100,000 rows of an entity no live result follows (p50 per query)",
                     figure(busy), f"{figure(idle)} (nothing running)", f"{busy / idle:.2f}× idle", "—", "≤ 2× idle",
                     "holds" if busy <= 2 * idle else "MISSED"))
    row("X3 D1 with persistent history", "X3-D1 Streams", "X3-D1 no history", "same without history",
        "≤ 1.3× without history", lambda o, p: o / p <= 1.3)
    row("X3 a single-object save with persistent history (per save)", "X3-single Streams", "X3-single no history",
        "same without history", "≤ 1.2× without history", lambda o, p: o / p <= 1.2, per=100)
    row("T1 fetch 100,000 objects with an enum and a small Codable attribute (SQLite)", "T1fetch Streams", "T1fetch raw columns",
        "raw Int and String columns", "within 1.5× of raw Int and String columns", lambda o, p: o / p <= 1.5, 100_000)
    row("T1 and read both attributes of each (every Codable value decoded; the raw String only counted)", "T1 Streams",
        "T1 raw columns", "raw Int and String columns", "within 1.5× of raw Int and String columns", lambda o, p: o / p <= 1.5,
        100_000)

    # P1–P3: the PostgreSQL store against hand-written libpq on the same server.
    for q in range(1, 5):
        row(f"P1 Q{q} on PostgreSQL: {work[q]} (N = 300,000, per query)", f"P1-Q{q} Streams", f"P1-Q{q} raw libpq",
            "prepared libpq query, same indexes", "≤ 2× raw libpq", lambda o, p: o / p <= 2, per=repeats[q])
    for size in (10_000, 100_000):
        ours, raw = r.get(f"P2-{size} Streams", {}), r.get(f"P2-{size} raw NOTIFY", {})
        p50, p90 = ours.get("Save to delivery"), ours.get("Save to delivery p90")
        if p50 is not None:
            raw50, raw90 = raw.get("Save to delivery"), raw.get("Save to delivery p90")
            after, after90 = ours.get("Propagation"), ours.get("Propagation p90")
            raw_after, raw_after90 = raw.get("Propagation"), raw.get("Propagation p90")
            rows.append((f"P2 a save in another process → the difference delivered here, PostgreSQL, N = {size:,} (p50 / p90, from asking the other process to save)",
                         f"{figure(p50)} / {figure(p90)}",
                         f"{figure(raw50)} / {figure(raw90)} (UPDATE + NOTIFY there → LISTEN here → read the row)" if raw50 else "—",
                         (f"{p50 / raw50:.1f}× the raw round trip; " if raw50 else "")
                         + f"from the save returning there: {after or 0:,.0f} / {after90 or 0:,.0f} (raw: {raw_after or 0:,.0f} / {raw_after90 or 0:,.0f})", "—",
                         "p50 ≤ 1 ms, flat in N", "holds" if p50 <= 1_000 else "MISSED"))
    flat_in_n("P2")
    row("P3 insert 100,000 objects in one save, two declared indexes (PostgreSQL)", "P3 Streams", "P3 raw INSERT",
        "raw multi-row INSERT, 1,000 rows a statement", "≤ 2× raw", lambda o, p: o / p <= 2)
    row("P3 (against COPY)", "P3 Streams", "P3 raw COPY", "raw COPY", "—", lambda o, p: True)

    print("# Benchmark results\n")
    print(f"Run on {datetime.date.today().isoformat()}; machine: {machine()}.")
    print("Release build; every figure is the median (p50) wall-clock time in microseconds of the")
    print("iterations of one run, ours and the peer's measured in the same run. Allocations are")
    print("malloc calls per element in our measured region.\n")
    print("| scenario | ours (μs) | peer (μs) | ratio | allocations per element | target | verdict |")
    print("| --- | ---: | ---: | --- | ---: | --- | --- |")
    for cells in rows:
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
