"""What a signed event proves about a time-out, and the words for it (pure; protocol.md §6.5
"False time-outs seen", §11).

Shared by the live peer (p2p/protocol.py) and the audit (core/audit.py), so both judge and word
the same event the same way.

* **Fits the chain.**  A time-out certificate voted seat s out of step (phase, prev).  A signed
  event of s made for that very step (same ``prev``, same ``body.phase``) is evidence that s moved
  only if its ``seq`` is one s's chain could have held then (``chain_misfit``): above s's last
  ``seq`` in the log before the step (``Certificate.last``) and below the ``seq`` of s's next event
  in the log (``Certificate.next``).  With no later event of s in the log, the seq must be the
  first one above that last seq not taken by another signed event of s held outside the log (its
  own spool keeps every event it signed): usually the last plus one.  Anything else was signed
  afterwards: it is named, never counted as evidence.  (A seat that really timed out can always
  sign, later, a move with exactly the seq that fits; the rule leaves it nothing more: no seq
  that its own later events or held events already took.)
* **Words that say what is known.**  A certificate says that its voters held no move of the seats
  it names when they voted, nothing more: so a cut move "did not reach seats 0 and 2 before they
  voted it out, or they voted anyway" (``cut_words``) — never "although it moved".
"""

from __future__ import annotations

from typing import Iterable, Sequence


def seats_words(seats: Iterable[int], me: int | None = None) -> str:
    """'seat 2', 'seats 0 and 2', 'seats 0, 2 and 3' ('you' for ``me``)."""
    seats = list(seats)
    if not seats:
        return "nobody"
    if me is not None and me in seats:
        rest = [s for s in seats if s != me]
        return "you" if not rest else "you and %s" % seats_words(rest)
    words = [str(s) for s in seats]
    if len(words) == 1:
        return "seat " + words[0]
    return "seats %s and %s" % (", ".join(words[:-1]), words[-1])


def step_words(phase: int, label: str = "", more: str = "") -> str:
    """'phase 41 (round 4: bids and splash)', or 'phase 41' without a label; ``more`` is said in the
    parentheses too ('phase 41 (round 4: bids and splash; sequence number 17)')."""
    inside = "; ".join(x for x in (label, more) if x)
    return "phase %d (%s)" % (phase, inside) if inside else "phase %d" % phase


def first_free(last: int, held: Iterable[int] = ()) -> int:
    """The first seq above ``last`` that ``held`` (the seqs of the seat's other signed events held
    outside the log) does not take."""
    held = set(held)
    k = last + 1
    while k in held:
        k += 1
    return k


def chain_misfit(seq: int, last: int, nxt: int | None, held: Iterable[int] = ()) -> str | None:
    """None if a move with sequence number ``seq`` fits the chain of a seat whose last seq in the
    log before the step is ``last`` (-1: none) and whose next event in the log has ``nxt`` (None:
    none is logged); else the words that say why not, for the parentheses after it."""
    if seq <= last:
        return "sequence number %d; its last logged event before the step has %d" % (seq, last)
    if nxt is not None:
        if seq < nxt:
            return None
        return "sequence number %d; its next logged event has %d" % (seq, nxt)
    want = first_free(last, held)
    if seq == want:
        return None
    return "sequence number %d; %s and none after it: only %d fits" % (
        seq, "its last logged event before the step has %d" % last if last >= 0 else "none of its events is logged before the step",
        want)


def cut_words(seat: int, phase: int, label: str, voters: Sequence[int], seq: int, me: int | None = None,
              sent: tuple | None = None, more: str = "") -> str:
    """A cut move in words: whose, for which step, that the voters did not have it or voted anyway.
    ``sent``: (seconds after the step opened, the step's time) when the move is ours and we know;
    ``more``: said in the parentheses too (where it is kept)."""
    whose = "your" if seat == me else "seat %d's" % seat
    when = ""
    if sent is not None and sent[0] is not None and sent[1] is not None:
        when = ", sent %.1f s after the step opened; its time was %.0f s" % sent
    return ("%s signed move for %s did not reach %s before they voted it out, or they voted anyway "
            "(sequence number %d%s%s)" % (whose, step_words(phase, label), seats_words(voters), seq, when,
                                          "; " + more if more else ""))


def afterwards_words(seat: int, phase: int, label: str, why: str, more: str = "") -> str:
    """A move for a cut step whose seq does not fit the seat's chain (``chain_misfit``'s words)."""
    return "a move seat %d signed afterwards for %s: not evidence" % (
        seat, step_words(phase, label, why + ("; " + more if more else "")))


def illegal_words(seat: int, phase: int, label: str, seq: int, reason: str, more: str = "") -> str:
    """A signed event the rules refuse at its step."""
    return "seat %d signed an illegal move for %s: %s" % (
        seat, step_words(phase, label, "sequence number %d%s" % (seq, "; " + more if more else "")), reason)


def certificate_words(phase: int, label: str, seats: Sequence[int], voters: Sequence[int], me: int | None = None) -> str:
    """One certificate: the step, whom it voted out, who signed it."""
    return "%s: %s voted %s out" % (step_words(phase, label), seats_words(voters, me), seats_words(seats, me))
