"""``bench soak``: one session (one camera, vision path and lights) over several games."""

from __future__ import annotations

import json

import pytest

from companion.bench import main


@pytest.mark.slow
def test_bench_soak_prints_memory_latency_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soak", "--games", "2", "--changes", "3", "--fps", "30"]) == 0
    out = capsys.readouterr()
    figures = json.loads(out.out)
    assert figures["games"] == 2 and figures["errors"] == 0
    assert 50 < figures["rss_mb_start"] < 2000 and 50 < figures["rss_mb_end"] < 2000
    assert figures["timed_changes"] >= 4  # both games' changes, on the one vision path
    assert 0 < figures["latency_ms_median"] <= figures["latency_ms_p99"]
    games = [json.loads(line) for line in out.err.splitlines() if line.startswith("{")]
    assert [g["journal_equals_script"] for g in games] == [True, True]
