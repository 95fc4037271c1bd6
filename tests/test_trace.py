"""The benchmark trace (EASEL_TRACE; p2p/trace.py), the part alone: its lines, and when they are due."""

from __future__ import annotations

import json

from p2p.trace import TRACE_FLUSH, Trace


def test_the_lines_are_one_json_object_per_record_then_forgotten():
    t = Trace()
    t.note("sign", [b"\x01\x02"], 5.0, 0.25)
    t.note("apply", [b"\x01\x02", b"\xff"], 6.0, 0.5)
    lines = [json.loads(x) for x in t.take()]
    assert lines == [{"k": "sign", "e": ["0102"], "t": 5.0, "c": 0.25},
                     {"k": "apply", "e": ["0102", "ff"], "t": 6.0, "c": 0.5}]
    assert t.take() == []


def test_the_last_take_adds_the_peak_memory():
    t = Trace()
    assert [json.loads(x) for x in t.take(mem=(9.0, 1234))] == [{"k": "mem", "e": [], "t": 9.0, "maxrss_kb": 1234}]
    t.note("sign", [b"\x00"], 1.0, 0.0)
    assert [json.loads(x)["k"] for x in t.take(mem=(9.0, None))] == ["sign", "mem"]


def test_lines_are_due_a_flush_interval_after_the_last_flush():
    t = Trace()
    assert t.flush_at() == TRACE_FLUSH
    t.note("sign", [b"\x00"], 1.0, 0.0)
    assert t.due(100.0)
    t.take(now=100.0)
    assert t.flush_at() == 100.0 + TRACE_FLUSH
    t.note("sign", [b"\x00"], 1.0, 0.0)
    assert not t.due(100.0 + TRACE_FLUSH / 2) and t.due(100.0 + TRACE_FLUSH)


def test_a_flush_with_nothing_gathered_still_moves_the_next_one_on():
    """A table waiting for a person traces nothing: the flush is due all the same and takes no
    line, and the next one is a flush interval later, so the ticker (which wakes at ``flush_at``)
    sleeps instead of waking again at once (it used to spin, ~15,000 wake-ups a second)."""
    t = Trace()
    assert t.due(100.0)
    assert t.take(now=100.0) == []
    assert not t.due(100.0) and t.flush_at() == 100.0 + TRACE_FLUSH
