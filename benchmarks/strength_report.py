#!/usr/bin/env python3
"""Tables and the picture of docs/strength.md from the arena results in docs/strength/.

Reads ``docs/strength/<name>.json`` (written by ``benchmarks/strength_ladder.sh``, one arena
run per game) and ``<name>.run.json`` (when and how long), with the extra runs of
``benchmarks/strength_top.sh`` and ``benchmarks/strength_more.sh`` where there are any, prints
the markdown tables, and writes ``docs/strength/ladder_elo.svg`` and ``ladder_return.svg``:
each game's rating (Bradley–Terry on wins, Elo scale; and the least-squares rating on returns;
``random`` = 0) against the search budget, one line per rollout policy, the heuristic bot as a
dashed line. Standard library only.

Usage::

    python3 benchmarks/strength_report.py > /tmp/tables.md
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "docs" / "strength"
ORDER = [
    "pokeros",
    "prediction_chess",
    "poker_chess",
    "holdem_chess",
    "holdem_chess_6",
    "detective_poker",
]
SPEC = re.compile(r"ismcts\(iterations=(\d+),rollout=(\w+)\)")


def against_heuristic_rows(pairs: list[dict], opponent: str = "") -> list[str]:
    """A table row for each pair against the heuristic: games, mean return (✓ when its interval
    is above 0), win rate and their intervals; ``opponent`` is the cell, if any, after the bot."""
    return [
        f"| `{p['bot']}` | {opponent}{p['games']} | {p['mean']:+.3f}"
        f"{' ✓' if p['mean_ci'][0] > 0 else ''} | "
        f"{p['mean_ci'][0]:+.3f} to {p['mean_ci'][1]:+.3f} | {p['win_rate']:.3f} | "
        f"{p['win_ci'][0]:.3f} to {p['win_ci'][1]:.3f} |"
        for p in pairs
        if p["opponent"] == "heuristic"
    ]


def read_result(stem: str) -> tuple[dict, dict] | None:
    """The arena result ``<stem>.json`` in docs/strength/ and its ``<stem>.run.json`` (when and
    how long; empty if missing), or None if there is no result."""
    path = DIR / f"{stem}.json"
    if not path.exists():
        return None
    run_path = DIR / f"{stem}.run.json"
    run = json.loads(run_path.read_text()) if run_path.exists() else {}
    return json.loads(path.read_text()), run


def top_table(name: str, suffix: str = "top") -> str:
    """The extra run ``<name>_<suffix>.json`` of ``benchmarks/strength_top.sh``, if any."""
    found = read_result(f"{name}_{suffix}")
    if found is None:
        return ""
    r, run = found
    title = "Top rung" if suffix == "top" else "Confirmation run"
    lines = [
        (
            f"{title} (`benchmarks/strength_top.sh`): {r['deals']} deals × {r['seatings']} "
            f"seatings, seed {r['seed']}; started {run.get('started', '?')}, "
            f"{run.get('seconds', '?')} s, load after {run.get('load_after', '?')}.\n"
        ),
        "| bot | against | games | mean return | 95% interval | win rate | 95% interval |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    lines += against_heuristic_rows(r["pairs"], "`heuristic` | ")
    return "\n".join(lines) + "\n"


def more_table(name: str) -> str:
    """The runs ``<name>_policy.json`` and ``<name>_belief.json`` of
    ``benchmarks/strength_more.sh`` (the shipped policy and the belief-weighted search, each
    against the heuristic on the ladder's deals), if any, as one table."""
    rows, runs = [], []
    for kind in ("policy", "belief"):
        found = read_result(f"{name}_{kind}")
        if found is None:
            continue
        r, run = found
        runs.append(
            f"{kind}: {r['deals']} deals × {r['seatings']} seatings, seed {r['seed']}, started "
            f"{run.get('started', '?')}, {run.get('seconds', '?')} s, load after "
            f"{run.get('load_after', '?')}"
        )
        rows += against_heuristic_rows(r["pairs"], "`heuristic` | ")
    if not rows:
        return ""
    lines = [
        f"Beyond the ladder (`benchmarks/strength_more.sh`; {'; '.join(runs)}).\n",
        "| bot | against | games | mean return | 95% interval | win rate | 95% interval |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    return "\n".join(lines + rows) + "\n"


def load() -> list[tuple[str, dict, dict]]:
    out = []
    for name in ORDER:
        found = read_result(name)
        if found is not None:
            out.append((name, *found))
    return out


def tables(results: list[tuple[str, dict, dict]]) -> str:
    lines = []
    for name, r, run in results:
        lines.append(f"### {r['game']}\n")
        lines.append(
            f"{r['deals']} deals per pair × {r['seatings']} seatings, seed {r['seed']}; "
            f"started {run.get('started', '?')}, {run.get('seconds', '?')} s on "
            f"{run.get('cpus', '?')} cores ({run.get('cpu', '?')}), load after "
            f"{run.get('load_after', '?')}.\n"
        )
        lines.append("| bot | rating (Elo) | 95% interval | return rating | 95% interval |")
        lines.append("|---|---:|---|---:|---|")
        for x in r["ratings"]:
            ret = (
                f"{x['return_rating']:+.3f} | {x['return_ci'][0]:+.3f} to {x['return_ci'][1]:+.3f}"
                if "return_rating" in x
                else "– | –"
            )
            lines.append(
                f"| `{x['bot']}` | {x['rating']:.0f} | {x['ci'][0]:.0f} to {x['ci'][1]:.0f} "
                f"| {ret} |"
            )
        lines.append("")
        lines.append(
            "| against `heuristic` | games | mean return | 95% interval | win rate | 95% interval |"
        )
        lines.append("|---|---:|---:|---|---:|---|")
        lines += against_heuristic_rows(r["pairs"])
        lines.append("")
        for extra in (top_table(name, "top"), top_table(name, "confirm"), more_table(name)):
            if extra:
                lines.append(extra)
    return "\n".join(lines)


def svg(results: list[tuple[str, dict, dict]], key: str) -> str:
    """The ladder picture of rating ``key`` (``rating`` or ``return_rating``)."""
    ci_key = "ci" if key == "rating" else "return_ci"
    cols, w, h = 3, 300, 230
    rows = math.ceil(len(results) / cols)
    left, top, pw, ph = 48, 34, 230, 150
    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * w}" height="{rows * h + 46}" '
            'font-family="sans-serif" font-size="11">'
        ),
        '<rect width="100%" height="100%" fill="white"/>',
    ]
    colours = {"heuristic": "#c0392b", "random": "#2471a3"}
    for k, (_name, r, _) in enumerate(results):
        ox, oy = (k % cols) * w, (k // cols) * h
        ratings = {x["bot"]: x for x in r["ratings"]}
        lines: dict[str, list[tuple[int, float, tuple[float, float]]]] = {}
        for bot, x in ratings.items():
            m = SPEC.fullmatch(bot)
            if m:
                lines.setdefault(m.group(2), []).append((int(m.group(1)), x[key], x[ci_key]))
        values = [x[key] for x in r["ratings"]] + [c for x in r["ratings"] for c in x[ci_key]]
        lo, hi = min([*values, 0.0]), max([*values, 0.0])
        pad = (hi - lo) * 0.08 or 50
        lo, hi = lo - pad, hi + pad

        def px(it: float, ox: float = ox) -> float:
            return ox + left + (math.log10(it) - 1.8) / (4.2 - 1.8) * pw

        def py(v: float, oy: float = oy, lo: float = lo, hi: float = hi) -> float:
            return oy + top + ph - (v - lo) / (hi - lo) * ph

        out.append(f'<text x="{ox + left}" y="{oy + 20}" font-weight="bold">{r["game"]}</text>')
        out.append(
            f'<rect x="{ox + left}" y="{oy + top}" width="{pw}" height="{ph}" '
            f'fill="none" stroke="#999"/>'
        )
        for it in (100, 1000, 10000):
            out.append(
                f'<text x="{px(it):.1f}" y="{oy + top + ph + 14}" text-anchor="middle">{it}</text>'
            )
        step = 10 ** math.floor(math.log10(hi - lo))
        if (hi - lo) / step < 3:
            step /= 2
        digits = max(0, -math.floor(math.log10(step)))
        v = math.ceil(lo / step) * step
        while v <= hi:
            out.append(
                f'<text x="{ox + left - 4}" y="{py(v) + 4:.1f}" text-anchor="end">'
                f"{v:.{digits}f}</text>"
            )
            out.append(
                f'<line x1="{ox + left}" x2="{ox + left + pw}" y1="{py(v):.1f}" y2="{py(v):.1f}" '
                f'stroke="#eee"/>'
            )
            v += step
        for label, value, colour in (("random", 0.0, "#777"), ("heuristic", None, "#000")):
            if value is None:
                value = ratings["heuristic"][key]
            out.append(
                f'<line x1="{ox + left}" x2="{ox + left + pw}" y1="{py(value):.1f}" '
                f'y2="{py(value):.1f}" stroke="{colour}" stroke-dasharray="4 3"/>'
            )
            # The heuristic's label goes under its line when it would cover random's.
            below = label == "heuristic" and abs(py(value) - py(0.0)) < 14
            out.append(
                f'<text x="{ox + left + pw - 2}" y="{py(value) + (12 if below else -3):.1f}" '
                f'text-anchor="end" fill="{colour}">{label}</text>'
            )
        for rollout, points in lines.items():
            points.sort()
            colour = colours.get(rollout, "#333")
            path = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, v, _ in points)
            out.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
            for i, v, (a, b) in points:
                out.append(
                    f'<line x1="{px(i):.1f}" x2="{px(i):.1f}" y1="{py(a):.1f}" y2="{py(b):.1f}" '
                    f'stroke="{colour}"/>'
                )
                out.append(f'<circle cx="{px(i):.1f}" cy="{py(v):.1f}" r="3" fill="{colour}"/>')
    y = rows * h + 16
    what = (
        "Bradley–Terry rating (Elo, random = 0)"
        if key == "rating"
        else "return rating (mean margin, random = 0)"
    )
    out.append(
        f'<text x="10" y="{y}">IS-MCTS {what}, 95% bootstrap intervals, '
        f"against iterations per move:</text>"
    )
    y += 16
    out.append(f'<text x="10" y="{y}" fill="{colours["heuristic"]}">heuristic rollouts</text>')
    out.append(f'<text x="130" y="{y}" fill="{colours["random"]}">random rollouts</text>')
    out.append(f'<text x="240" y="{y}">dashed: the heuristic bot and random</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    results = load()
    if not results:
        sys.exit("no results in docs/strength/: run benchmarks/strength_ladder.sh first")
    (DIR / "ladder_elo.svg").write_text(svg(results, "rating"))
    with_returns = [x for x in results if "return_rating" in x[1]["ratings"][0]]
    if with_returns:
        (DIR / "ladder_return.svg").write_text(svg(with_returns, "return_rating"))
    print(tables(results))


if __name__ == "__main__":
    main()
