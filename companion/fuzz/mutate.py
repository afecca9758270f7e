"""Mutations: from a good input, the bad ones a bad sector, a hand edit or a noisy line make.

Every mutation is drawn from a ``random.Random``, so a seed gives the same cases
again. ``mutate_bytes`` knows nothing of the format; ``mutate_json`` replaces one
node of a JSON document with a value of the wrong kind, so the input gets past
the parser and into the code that trusts it.
"""

from __future__ import annotations

import json
import random
from typing import Any

# Tokens that have broken parsers before: numbers out of range, NaN, deep nesting,
# control and non-ASCII characters, long runs, empty and half structures.
NASTY: tuple[bytes, ...] = (
    b"\x00", b"\xff\xfe", b"\xed\xa0\x80", b"\r", b"\n", b"\r\n", b"\t", b"\x1b[2J",
    b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-0", b"99999999999999999999999", b"-1",
    b"0", b"65536", b"4294967296", b"0x10", b"null", b"true", b"false", b"[]", b"{}", b'""',
    b'"', b"'", b"\\", b"{", b"}", b"[", b"]", b",", b":", b"*", b"=", b"#", b"@", b"!",
    "é".encode(), "\u202e".encode(), "🂡".encode(), b"A" * 5000, b"[" * 3000, b"{\"a\":" * 2000,
    b"  ", b"north", b"south", b"R11", b"R0", b"flag10", b"flag0", b"CASTLE", b"AL",
)

JSON_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1.5, 10**30, float("nan"), float("inf"), "", "x" * 3000,
    "north", "R7", "R11", [], {}, [None], {"": None}, [[[[[]]]]], "\u202e",
)


def mutate_bytes(data: bytes, rng: random.Random, others: list[bytes] | None = None,
                 ) -> bytes:
    """One to four byte-level changes: flips, cuts, repeats, nasty tokens, splices."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        kind = rng.randrange(8)
        if kind == 0 and out:  # flip bits of a few bytes
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(out))
                out[i] ^= 1 << rng.randrange(8)
        elif kind == 1:  # cut a span out
            del out[at:at + rng.randint(1, 64)]
        elif kind == 2:  # repeat a span
            span = out[at:at + rng.randint(1, 256)]
            out[at:at] = span * rng.randint(1, 20)
        elif kind == 3:  # a nasty token in the middle
            out[at:at] = rng.choice(NASTY)
        elif kind == 4:  # a token over a word
            end = at
            while end < len(out) and chr(out[end]).isalnum():
                end += 1
            out[at:end] = rng.choice(NASTY)
        elif kind == 5:  # cut short: a torn write
            del out[at:]
        elif kind == 6 and others:  # the head of one input on the tail of another
            other = rng.choice(others)
            out = out[:at] + other[rng.randint(0, len(other)):]
        else:  # random bytes
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 32)))
    return bytes(out)


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*here, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*here, i))
    return found


def mutate_json(document: Any, rng: random.Random) -> Any:
    """``document`` (decoded JSON) with one to three nodes replaced, dropped or added."""
    doc = json.loads(json.dumps(document))
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            return rng.choice(JSON_VALUES)
        path = rng.choice(paths)
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        kind = rng.randrange(4)
        if kind == 0:
            parent[last] = rng.choice(JSON_VALUES)
        elif kind == 1:
            del parent[last]
        elif kind == 2 and isinstance(parent, dict):
            parent[rng.choice(["extra", "", "type", "format", "n", "flags"])] = rng.choice(
                JSON_VALUES)
        else:  # the value of another node in its place: right kind, wrong place
            source = doc
            for step in rng.choice(paths):
                source = source[step]
            parent[last] = json.loads(json.dumps(source))
    return doc


def json_text(document: Any, rng: random.Random) -> bytes:
    """A mutated JSON document as text, sometimes with NaN or deep nesting left in."""
    text = json.dumps(mutate_json(document, rng), separators=(",", ":"))
    if rng.random() < 0.1:
        text = "[" * 50000 + text + "]" * 50000
    return text.encode("utf-8", "surrogatepass")
