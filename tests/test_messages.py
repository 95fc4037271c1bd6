"""The peer protocol's messages (p2p/messages.py): one encode and one decode per message type, the
bytes protocol.md §9.5 gives, and every malformed shape refused with the error its sender is
disconnected for."""

from __future__ import annotations

import pytest

from core.encoding import CanonicalError, encode
from p2p.leaving import NoteError
from p2p.messages import PROTOCOL, Entry, Have, Hello, Leaving, Proof, ProtocolError, Vote, decode

GID = b"g" * 32
N = 4
HAVE = [[b"k" * 32, 3, b"i" * 8], [b"l" * 32, -1, b""]]
CERTS = [[2, b"c" * 8]]


def test_every_message_is_the_array_protocol_md_gives_and_decodes_to_itself():
    msgs = [
        (Hello(GID, HAVE, CERTS), ["hello", PROTOCOL, GID, HAVE, CERTS]),
        (Have(HAVE, CERTS), ["have", HAVE, CERTS]),
        (Entry(b"raw"), ["entry", b"raw"]),
        (Vote(5, b"p" * 32, (1, 3), 0, b"s" * 64), ["vote", 5, b"p" * 32, [1, 3], 0, b"s" * 64]),
        (Proof(b"a", b"b"), ["proof", b"a", b"b"]),
        (Leaving(2, 7, b"n" * 16, b"s" * 64), ["leaving", 2, 7, b"n" * 16, b"s" * 64]),
    ]
    for msg, array in msgs:
        assert msg.encode() == encode(array)
        assert decode(msg.encode(), GID, N) == msg
        assert msg.KIND == array[0]


@pytest.mark.parametrize("array,error", [
    (["hello", 2, GID, [], []], "unsupported hello"),
    (["hello", True, GID, [], []], "unsupported hello"),
    (["hello", 1, b"x" * 32, [], []], "peer is at another game"),
    (["hello", 1, GID, {}, []], "have must be lists"),
    (["have", [[b"k", "3", b""]], []], "bad have item"),
    (["have", [], [], 1], "bad have"),
    (["entry", "raw"], "bad entry message"),
    (["vote", 5, b"p", [1], 0], "bad vote"),
    (["vote", 5, b"p", [1], 0, "sig"], "bad vote fields"),
    (["vote", 5, b"p", [3, 1], 0, b"s"], "bad vote seats"),
    (["vote", 5, b"p", [0, 1], 0, b"s"], "bad vote seats"),
    (["vote", 5, b"p", [1, N], 0, b"s"], "bad vote seats"),
    (["vote", 5, b"p", [], 0, b"s"], "bad vote seats"),
    (["proof", b"a", 1], "bad proof"),
    (["nope"], "unknown message type 'nope'"),
    ([1, 2], "message is not an array starting with its type"),
])
def test_a_malformed_message_is_a_protocol_violation(array, error):
    with pytest.raises(ProtocolError, match="^%s$" % error.replace("(", r"\(").replace(")", r"\)")):
        decode(encode(array), GID, N)


def test_a_malformed_note_or_frame_is_not_a_protocol_violation_but_still_refused():
    with pytest.raises(NoteError):
        decode(encode(["leaving", 1, 2, b"short", b"s" * 64]), GID, N)
    with pytest.raises(CanonicalError):
        decode(b"\xc1", GID, N)


def test_only_the_wanted_types_are_checked():
    """A peer that left reads nothing but leaving notes: anything else is ignored unchecked."""
    assert decode(encode(["have", "junk"]), GID, N, only=("leaving",)) is None
    assert decode(encode(["nope"]), GID, N, only=("leaving",)) is None
    note = Leaving(1, 0, b"n" * 16, b"s" * 64)
    assert decode(note.encode(), GID, N, only=("leaving",)) == note
