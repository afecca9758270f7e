"""linereader.py under MicroPython."""

from linereader import TOO_LONG, LineReader


def test_lines_split_across_reads():
    r = LineReader(10)
    assert r.feed(b"ab") == []
    assert r.feed(b"c\nde") == [b"abc"]
    assert r.feed(b"\r\n") == [b"de"]


def test_empty_lines_are_skipped():
    assert LineReader(10).feed(b"\n\r\n\nx\n") == [b"x"]


def test_line_at_the_limit_passes_one_over_does_not():
    r = LineReader(4)
    assert r.feed(b"1234\n") == [b"1234"]
    assert r.feed(b"12345\n") == [TOO_LONG]


def test_nothing_of_a_long_line_survives():
    r = LineReader(4)
    assert r.feed(b"123456789 tail\nok\n") == [TOO_LONG, b"ok"]
