"""``bench loop`` prints its figures as one JSON object."""

from __future__ import annotations

import json

import pytest

from companion.bench import main


@pytest.mark.slow
def test_bench_loop_prints_latency_and_memory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loop", "--changes", "3", "--fps", "30"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["timed_changes"] >= 1
    assert 0 < figures["latency_ms_median"] <= figures["latency_ms_p95"]
    assert 50 < figures["peak_rss_mb"] < 2000
    assert figures["confident_wrong_rulings"] == 0
