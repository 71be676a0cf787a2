"""benchmarks/slow_spectators.py keeps running: a small run (two matches, 40 spectators that
never read) against the real server prints one well-formed JSON object, with every stream's
ending counted and the server flags passed through. No timing or memory is asserted."""

from __future__ import annotations

import json
from pathlib import Path

from run_util import run_python

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "slow_spectators.py"


def test_small_run_prints_well_formed_json():
    proc = run_python(
        SCRIPT,
        "--matches",
        "2",
        "--spectators",
        "40",
        "--per-connection",
        "15",
        "--server-arg=--watch-buffer-kib=16",
        "--json",
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    result = json.loads(proc.stdout)
    for key in (
        "idle_rss_mib",
        "subscribed_rss_mib",
        "peak_rss_mib",
        "peak_minus_idle_mib",
        "after_games_rss_mib",
        "after_read_out_rss_mib",
        "mib_read_out",
    ):
        assert isinstance(result[key], float), key
    assert result["idle_rss_mib"] > 0 and result["peak_rss_mib"] > 0
    assert result["samples"] >= 3
    assert (result["spectators"], result["connections"]) == (40, 3)
    assert sum(result["streams_by_status"].values()) == 40
    assert result["streams_cut_off"] == result["streams_by_status"].get("RESOURCE_EXHAUSTED", 0)
    assert result["streams_ended_ok"] == result["streams_by_status"].get("OK", 0)
    # A six-player Detective Poker match sends megabytes of views; a spectator that does not
    # read is cut off far before that (16 KiB of events behind, a 64 KiB window).
    assert result["streams_cut_off"] == 40, result["streams_by_status"]
    assert result["events_read_out"] >= 40  # at least the view as of subscribing, each
    assert (result["matches"], result["matches_finished"]) == (2, 2)
    assert result["actions"] > 0 and result["drive_seconds"] > 0
    assert result["errors"] == [] and result["server_exit_code"] == 0
    assert result["game"] == "detective_poker" and result["seats"][0] == "human"
    assert "slow_spectators.py" in result["command"]
    server = result["server_command"]
    assert "--database memory" in server and "--address 127.0.0.1:0" in server
    assert server.endswith("--watch-buffer-kib=16")


def test_bad_arguments_are_refused():
    for args, message in (
        (["--matches", "0"], "--matches"),
        (["--spectators", "-1"], "--spectators"),
        (["--param", "players"], "NAME=VALUE"),
    ):
        proc = run_python(SCRIPT, *args, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr
