"""Spectators (protocol.md §9.8; p2p/spectators.py), the part alone: who is admitted and what each
spectator is sent, with no socket (tests/test_watch.py watches real tables over TLS)."""

from __future__ import annotations

from core.encoding import decode
from p2p.limits import MAX_SPECTATORS, SPECTATOR_KEEPALIVE
from p2p.spectators import Spectators, is_request


def _frames(feed, entries: list) -> list:
    out = []
    while (f := feed.entry(entries)) is not None:
        out.append(decode(f))
    return out


def test_only_the_exact_watch_request_is_one():
    assert is_request(["watch", 1])
    for bad in (["watch", 2], ["watch", True], ["watch", 1.0], ["watch"], ["watch", 1, 1], ("watch", 1), "watch", None,
                ["hello", 1]):
        assert not is_request(bad), bad


def test_a_request_is_admitted_until_the_cap_and_counted_until_it_leaves():
    s = Spectators(True)
    assert s.enabled and s.count == 0
    assert s.admit(["watch", 1], limit=2) is None and s.admit(["watch", 1], limit=2) is None
    assert s.count == 2
    full = s.admit(["watch", 1], limit=2)
    assert full is not None and full.limit == "MAX_SPECTATORS" and s.count == 2
    assert decode(full.reply) == ["refused", "this seat already has 2 spectators"]
    s.left()
    assert s.count == 1 and s.admit(["watch", 1], limit=2) is None and s.count == 2
    assert Spectators(True).admit(["watch", 1], limit=MAX_SPECTATORS) is None
    assert not Spectators(False).enabled


def test_anything_but_a_request_is_closed_without_a_word_and_not_counted():
    s = Spectators(True)
    r = s.admit(["hello", 1, b"", [], []], limit=8)
    assert r is not None and r.limit == "SPECTATOR" and r.reply is None and s.count == 0
    # even at the cap a frame that is no request gets no answer
    assert Spectators(True).admit(["nope"], limit=0).reply is None


def test_a_feed_sends_the_genesis_then_each_entry_once_in_order():
    feed = Spectators(True).feed(now=100.0)
    log = [b"g", b"e1", b"e2"]
    assert _frames(feed, log) == [["genesis", b"g"], ["entry", b"e1"], ["entry", b"e2"]]
    assert _frames(feed, log) == []
    log.append(b"e3")
    assert _frames(feed, log) == [["entry", b"e3"]]


def test_the_commitments_are_sent_only_when_they_change():
    feed = Spectators(True).feed(now=0.0)
    _frames(feed, [b"g"])
    assert feed.sealed([]) is None                   # nothing sealed, nothing said
    assert decode(feed.sealed([b"c1"])) == ["sealed", [b"c1"]]
    assert feed.sealed([b"c1"]) is None
    assert decode(feed.sealed([b"c1", b"c2"])) == ["sealed", [b"c1", b"c2"]]
    assert decode(feed.sealed([])) == ["sealed", []]  # the step closed: its commitments are in the log


def test_the_count_is_told_first_on_a_change_and_at_the_keep_alive():
    feed = Spectators(True).feed(now=0.0)
    assert decode(feed.watching(1, now=0.0)) == ["watching", 1]       # after the first batch
    assert feed.watching(1, now=SPECTATOR_KEEPALIVE - 0.1) is None
    assert decode(feed.watching(2, now=1.0)) == ["watching", 2]        # a change, at once
    assert feed.watching(2, now=1.0 + SPECTATOR_KEEPALIVE - 0.1) is None
    assert decode(feed.watching(2, now=1.0 + SPECTATOR_KEEPALIVE)) == ["watching", 2]


def test_a_feed_ends_when_the_log_is_cut_back_or_the_game_is_over_and_all_is_sent():
    feed = Spectators(True).feed(now=0.0)
    log = [b"g", b"e1", b"e2"]
    _frames(feed, log)
    assert not feed.cut(log) and not feed.cut(log + [b"e3"])
    assert feed.cut(log[:2])                             # a repair cut our log: the spectator starts again
    assert not feed.finished(log, over=False)
    assert not feed.finished(log + [b"e3"], over=True)   # the last entry is still to be sent
    assert feed.finished(log, over=True)


def test_the_seats_addresses_are_sent_after_the_genesis_and_again_when_they_change():
    feed = Spectators(True).feed(now=0.0)
    roster = [["", 4000], ["198.18.0.11", 4001]]
    assert feed.addrs(roster) is None                 # nothing before the genesis
    _frames(feed, [b"g"])
    assert decode(feed.addrs(roster)) == ["addrs", [["", 4000], ["198.18.0.11", 4001]]]
    assert feed.addrs([list(a) for a in roster]) is None
    roster[1] = ["198.18.0.111", 4001]                # seat 1 came back at another address (a dial-back)
    assert decode(feed.addrs(roster)) == ["addrs", [["", 4000], ["198.18.0.111", 4001]]]
