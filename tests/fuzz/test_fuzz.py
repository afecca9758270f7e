"""Every input surface fuzzed: hypothesis on the ones cheap to run in-process, the hand-
picked corpus (tests/fuzz/corpus/SURFACE/) on all, and the bench's own workers (a process
each, a memory limit, hangs cut short) on the serial line, the firmware and images.

Every input must be taken or refused with a one-line message naming the file (exit status
1) — never a traceback, a hang or a crash of the running companion.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.fuzz.bench import Worker, run_surface
from companion.fuzz.bench import main as bench_main
from companion.fuzz.lines import FirmwareSession
from companion.fuzz.worker import SURFACES, make_case, run_case

CORPUS = Path(__file__).parent / "corpus"
KNOWN = Path(__file__).parent / "known"
IN_PROCESS = ["position", "record", "journal", "settings", "profile", "command"]
FUZZ = settings(max_examples=40, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    folder = tmp_path_factory.mktemp("seeds")
    return {name: SURFACES[name].seeds(folder / name) for name in IN_PROCESS}


def _clean(name: str, data: bytes, folder: Path) -> None:
    answer = run_case(SURFACES[name], data, folder)
    assert answer["result"] == "clean", f"{name}: {data[:120]!r}: {answer.get('detail')}"


@pytest.mark.parametrize("name", IN_PROCESS)
@FUZZ
@given(data=st.data())
def test_spoilt_inputs_are_taken_or_refused_cleanly(
        name: str, data: st.DataObject, seeds: dict[str, list[bytes]], tmp_path: Path) -> None:
    good = seeds[name]
    rng = data.draw(st.randoms(use_true_random=False))
    spoilt = SURFACES[name].mutate(data.draw(st.sampled_from(good)), rng, good)
    _clean(name, spoilt, tmp_path / "case")


@pytest.mark.parametrize("name", ["position", "journal", "settings", "record", "command"])
@FUZZ
@given(raw=st.binary(max_size=2000) | st.text(max_size=500).map(str.encode))
def test_any_bytes_are_refused_cleanly(name: str, raw: bytes, tmp_path: Path) -> None:
    _clean(name, raw, tmp_path / "case")


def _corpus(*names: str) -> list[tuple[str, Path]]:
    return [(d.name, f) for d in sorted(CORPUS.iterdir()) if d.name in names
            for f in sorted(d.iterdir())]


@pytest.mark.parametrize(("name", "path"), _corpus(*IN_PROCESS),
                         ids=lambda v: v.name if isinstance(v, Path) else v)
def test_the_corpus(name: str, path: Path, tmp_path: Path) -> None:
    _clean(name, path.read_bytes(), tmp_path / "case")


def test_the_firmware_corpus_under_micropython(tmp_path: Path) -> None:
    session = FirmwareSession(tmp_path)
    try:
        for _, path in _corpus("serial-firmware"):
            assert session.feed(path.read_bytes()) == "clean", (path.name, session.stderr())
    finally:
        session.close()


@pytest.mark.parametrize("name", ["serial-host", "serial-firmware", "command"])
def test_the_running_parts_go_on(name: str) -> None:
    """Lines into the host's serial link (on a real pty, the firmware at the far end),
    into the firmware under MicroPython, and typed: each must leave them answering."""
    say: list[str] = []
    figures = run_surface(SURFACES[name], 150, 17, 10.0, None, say)
    assert figures["clean"] == 150, say[:3]


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has stopped; only its parent's wait is missing


def test_a_stopped_worker_leaves_no_firmware_running() -> None:
    # The serial-host worker runs the firmware under the unix port beside it.
    worker = Worker(SURFACES["serial-host"], 0, None)
    try:
        worker.ask(_corpus("serial-host")[0][1], 10.0)
        assert worker.proc is not None
        pid = worker.proc.pid
        started = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        assert started  # the firmware
    finally:
        worker.close()
    # The kill reaches the firmware when the kernel next runs it: on a busy machine a
    # moment later.
    deadline = time.monotonic() + 5.0
    while [p for p in started if _running(int(p))] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in started if _running(int(p))]


@pytest.mark.parametrize("name", ["serial-host", "serial-firmware", "command"])
def test_a_fuzz_run_leaves_no_folders_behind(name: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # Workers, the firmware beside them and the games they play all write files.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    say: list[str] = []
    assert run_surface(SURFACES[name], 3, 17, 10.0, None, say)["clean"] == 3, say
    assert not list(tmp_path.iterdir())


def test_the_serial_host_corpus() -> None:
    worker = Worker(SURFACES["serial-host"], 0, None)
    try:
        for _, path in _corpus("serial-host"):
            answer = worker.ask(path, 10.0)
            assert answer["result"] == "clean", (path.name, answer.get("detail"))
    finally:
        worker.close()


def test_images_never_escape() -> None:
    """Pictures for read and photos for enroll, in a worker with a memory limit: no
    traceback, no hang. (Whether a refusal names the file: see the known escape below.)"""
    say: list[str] = []
    figures = run_surface(SURFACES["image"], 40, 5, 30.0, None, say)
    assert figures["tracebacks"] == 0 and figures["hangs"] == 0, say[:3]
    assert all("cannot calibrate" in line for line in say), say[:3]


def test_read_names_the_image_it_cannot_calibrate(tmp_path: Path) -> None:
    _clean("image", (CORPUS / "image" / "one-pixel.png").read_bytes(), tmp_path)


def test_an_image_claiming_to_be_huge_is_refused() -> None:
    code = (f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({1 << 30}, {1 << 30}))\n"
            "from vision.cli import main; import sys; sys.exit(main(['read', sys.argv[1]]))")
    path = KNOWN / "image-claims-30000x30000.jpg"
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and str(path) in lines[0], done.stderr


def test_the_bench_prints_a_line_per_surface(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["--cases", "12", "--seed", "3", "--surface", "position",
                       "--surface", "journal"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"seed": 3}
    assert [line["surface"] for line in lines[1:]] == ["position", "journal"]
    for line in lines[1:]:
        assert line["cases"] == line["clean"] == 12
        assert line["tracebacks"] == line["hangs"] == line["unclear"] == 0


def test_the_fuzzer_finds_an_escape(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With parse_position as it was when the issue was filed (the JSON decoder's
    RecursionError let through), the position surface finds the traceback."""
    import companion.records.adjudicate as adjudicate

    guarded = adjudicate.parse_position

    def as_it_was(source: str | bytes) -> object:
        json.loads(source)  # RecursionError on deep nesting, nothing to catch it
        return guarded(source)

    monkeypatch.setattr(adjudicate, "parse_position", as_it_was)
    surface = SURFACES["position"]
    seeds = surface.seeds(tmp_path)
    results = [run_case(surface, make_case(surface, seeds, 7, i), tmp_path / "case")
               for i in range(80)]
    assert any(r["result"] == "traceback" and "RecursionError" in str(r["detail"])
               for r in results)
