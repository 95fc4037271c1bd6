"""Log entries: the signed genesis, authored events and time-out certificates.

Every entry is one canonical msgpack array whose first element names its type.

genesis   ["easel-genesis", 1, doc, [sig_seat0, sig_seat1, ...]]
          game_id = dhash("game-id", doc); seat i signs dhash("sign/genesis", game_id)
event     ["easel-event", 1, game_id, author, seq, prev, kind, body, sig]
          sig over dhash("sign/event", 1, game_id, author, seq, prev, kind, body)
timeout   ["easel-timeout", 1, game_id, phase, prev, [timed-out seats], [[voter, sig], ...]]
          voter signs dhash("sign/vote", game_id, phase, prev, seats)

entry id  = dhash("entry-id", entry bytes)        (the hash of the whole entry)
head      = dhash("head", previous head, entry id), starting from 32 zero bytes

Signatures are Ed25519 (PyNaCl / libsodium).  This module only builds,
parses and checks entries; it never holds a private key: callers pass a
``sign`` function (bytes -> 64-byte signature).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from .encoding import CanonicalError, decode, decode_at, encode
import hashlib

from .hashing import PREFIX, dhash

VERSION = 1
ZERO32 = bytes(32)
TAG_GENESIS = "easel-genesis"
TAG_EVENT = "easel-event"
TAG_TIMEOUT = "easel-timeout"
KINDS = ("commit", "reveal", "act", "leave", "say")
LEAVE_NONCE = 16          # bytes of a leave event's nonce (protocol.md §5.2)
MAX_SAY_BYTES = 280       # a talk line's text, bytes of UTF-8 (protocol.md §5.2, §9.11)
MAX_ENTRY = 256 * 1024

Signer = Callable[[bytes], bytes]


class EntryError(ValueError):
    """A malformed or badly signed entry; the message says what is wrong."""


_VK_CACHE: dict = {}


def verify_sig(public: bytes, msg: bytes, sig: bytes) -> bool:
    try:
        vk = _VK_CACHE.get(public)
        if vk is None:
            vk = VerifyKey(public)
            if len(_VK_CACHE) < 4096:
                _VK_CACHE[public] = vk
        vk.verify(msg, sig)
        return True
    except (BadSignatureError, ValueError, TypeError):
        return False
    except Exception:  # libsodium refuses some keys with its own errors
        return False


try:  # libsodium's crypto_sign_open without PyNaCl's per-call wrapping (same check as verify_sig)
    from nacl._sodium import ffi as _ffi, lib as _lib

    _OPEN = _lib.crypto_sign_open
except Exception:  # pragma: no cover - another PyNaCl layout: fall back to verify_sig
    _OPEN = None


def verify_many(jobs: Sequence[tuple], start: int = 0, stop: int | None = None) -> int | None:
    """Check ``jobs[start:stop]``, triples (public key, message, signature), in order.

    Returns the index (into ``jobs``) of the first triple whose signature does not
    verify, or None.  Exactly the check of ``verify_sig``, for many at once.
    """
    stop = len(jobs) if stop is None else min(stop, len(jobs))
    if _OPEN is None:
        for j in range(start, stop):
            if not verify_sig(*jobs[j]):
                return j
        return None
    out = _ffi.new("unsigned char[]", 256)
    outlen = _ffi.new("unsigned long long *")
    op = _OPEN
    for j in range(start, stop):
        key, msg, sig = jobs[j]
        if len(msg) > 192 or type(key) is not bytes or len(key) != 32 or type(sig) is not bytes or len(sig) != 64:
            if not verify_sig(key, msg, sig):
                return j
            continue
        sm = sig + msg
        if op(out, outlen, sm, len(sm), key) != 0:
            return j
    return None


def _is_b(x: Any, n: int) -> bool:
    return type(x) is bytes and len(x) == n


def _is_version(x: Any) -> bool:
    """The protocol version field: exactly the integer 1 (``true`` is not 1 on the wire)."""
    return type(x) is int and x == VERSION


def _is_uint(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**63


# entry_id and next_head are on every hot path; they compute exactly
# dhash("entry-id", raw) and dhash("head", head, eid) from shared hash states.
_ENTRY_ID_BASE = hashlib.sha256(PREFIX + b"entry-id\x00\x91")
_HEAD_BASE = hashlib.sha256(PREFIX + b"head\x00\x92\xc4\x20")


def _bin_header(n: int) -> bytes:
    if n < 256:
        return b"\xc4" + n.to_bytes(1, "big")
    if n < 65536:
        return b"\xc5" + n.to_bytes(2, "big")
    return b"\xc6" + n.to_bytes(4, "big")


def entry_id(raw: bytes) -> bytes:
    h = _ENTRY_ID_BASE.copy()
    h.update(_bin_header(len(raw)))
    h.update(raw)
    return h.digest()


def next_head(head: bytes, eid: bytes) -> bytes:
    if len(head) != 32 or len(eid) != 32:
        return dhash("head", head, eid)
    h = _HEAD_BASE.copy()
    h.update(head + b"\xc4\x20" + eid)
    return h.digest()


# --------------------------------------------------------------------------- genesis


@dataclass(frozen=True)
class Genesis:
    doc: dict
    sigs: tuple[bytes, ...]
    raw: bytes
    game_id: bytes
    id: bytes

    @property
    def seats(self) -> list[bytes]:
        return list(self.doc["seats"])


def genesis_sign_msg(game_id: bytes) -> bytes:
    return dhash("sign/genesis", game_id)


def game_id_of(doc: dict) -> bytes:
    return dhash("game-id", doc)


def check_genesis_doc(doc: Any) -> None:
    if not isinstance(doc, dict):
        raise EntryError("genesis document is not a map")
    for key, typ in (("game", str), ("config", dict), ("seats", list), ("table", bytes)):
        if not isinstance(doc.get(key), typ):
            raise EntryError("genesis document: %r missing or of the wrong type" % key)
    seats = doc["seats"]
    if not seats or not all(_is_b(k, 32) for k in seats):
        raise EntryError("genesis document: seats must be 32-byte keys")
    if len(set(seats)) != len(seats):
        raise EntryError("genesis document: a key holds two seats")
    if not 1 <= len(doc["table"]) <= 32:
        raise EntryError("genesis document: table nonce must be 1..32 bytes")
    if "timeout" in doc and not (type(doc["timeout"]) is int and 1 <= doc["timeout"] <= 86400):
        raise EntryError("genesis document: timeout must be whole seconds, 1..86400")
    if "names" in doc:
        names = doc["names"]
        if not isinstance(names, list) or len(names) != len(seats):
            raise EntryError("genesis document: names must be a list of one name per seat")
        for i, name in enumerate(names):
            why = name_problem(name)
            if why:
                raise EntryError("genesis document: the name of seat %d %s" % (i, why))
    if "spectators" in doc and type(doc["spectators"]) is not bool:
        raise EntryError("genesis document: spectators must be true or false")
    if "previous" in doc and not _is_b(doc["previous"], 32):
        raise EntryError("genesis document: previous must be the 32-byte game id of the game it follows")


# --------------------------------------------------------------------------- names
MAX_NAME_BYTES = 48     # a seat's display name: at most this many bytes of UTF-8


def name_problem(name: Any) -> str:
    """Why ``name`` is not a valid seat name ('' if it is): a str of 1..48 UTF-8 bytes, every character
    printable (``str.isprintable``: no control, format, surrogate, private-use, unassigned or
    separator character except the ASCII space), no space at either end."""
    if not isinstance(name, str):
        return "is not a string"
    if not name:
        return "is empty"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return "is longer than %d bytes of UTF-8" % MAX_NAME_BYTES
    if not name.isprintable():
        return "holds a character that is not printable"
    if name != name.strip(" "):
        return "starts or ends with a space"
    return ""


def clean_name(text: Any, default: str = "player") -> str:
    """``text`` made into a valid name: unprintable characters dropped, spaces trimmed, cut to
    MAX_NAME_BYTES (on a character boundary); ``default`` if nothing is left."""
    s = "".join(c for c in str(text) if c.isprintable()).strip(" ")
    while len(s.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        s = s[:-1].rstrip(" ")
    return s if s and not name_problem(s) else default


def seat_names(doc: dict) -> tuple[str, ...]:
    """The display name of every seat of a genesis document: its signed ``names`` (a name two
    seats share gets each key's fingerprint's first group, e.g. ``Ann #3f2a``), or, for a
    genesis without names, ``seat N``."""
    from .hashing import fingerprint

    seats = doc.get("seats") or []
    names = doc.get("names")
    if not isinstance(names, list) or len(names) != len(seats):
        return tuple("seat %d" % i for i in range(len(seats)))
    out = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            name = "%s #%s" % (name, fingerprint(seats[i]).split("-")[0])
        out.append(name)
    return tuple(out)


def make_genesis(doc: dict, sigs: Sequence[bytes]) -> Genesis:
    check_genesis_doc(doc)
    raw = encode([TAG_GENESIS, VERSION, doc, list(sigs)])
    return parse_genesis(raw)


def parse_genesis(raw: bytes, verify: bool = True) -> Genesis:
    obj = _decode_entry(raw)
    if len(obj) != 4 or obj[0] != TAG_GENESIS:
        raise EntryError("not a genesis entry")
    if not _is_version(obj[1]):
        raise EntryError("unsupported protocol version %r" % (obj[1],))
    doc, sigs = obj[2], obj[3]
    check_genesis_doc(doc)
    if not isinstance(sigs, list) or len(sigs) != len(doc["seats"]):
        raise EntryError("genesis needs one signature per seat")
    gid = game_id_of(doc)
    if verify:
        msg = genesis_sign_msg(gid)
        for i, (key, sig) in enumerate(zip(doc["seats"], sigs)):
            if not _is_b(sig, 64) or not verify_sig(key, msg, sig):
                raise EntryError("genesis: bad signature for seat %d" % i)
    return Genesis(doc, tuple(sigs), raw, gid, entry_id(raw))


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event:
    game_id: bytes
    author: bytes
    seq: int
    prev: bytes
    kind: str
    body: Any
    sig: bytes
    raw: bytes
    id: bytes

    @property
    def phase(self) -> int:
        return self.body["phase"]


def event_sign_msg(game_id: bytes, author: bytes, seq: int, prev: bytes, kind: str, body: Any) -> bytes:
    return dhash("sign/event", VERSION, game_id, author, seq, prev, kind, body)


def check_body(kind: str, body: Any) -> None:
    if kind not in KINDS:
        raise EntryError("unknown event kind %r" % (kind,))
    if not isinstance(body, dict) or not _is_uint(body.get("phase")):
        raise EntryError("%s event: body must be a map with a phase number" % kind)
    keys = set(body)
    if kind == "commit":
        if keys != {"phase", "hash"} or not _is_b(body["hash"], 32):
            raise EntryError("commit event: body must be {phase, hash: 32 bytes}")
    elif kind == "reveal":
        if keys != {"phase", "value", "salt"} or not _is_b(body["salt"], 32):
            raise EntryError("reveal event: body must be {phase, value, salt: 32 bytes}")
    elif kind == "leave":
        if keys != {"phase", "nonce", "payload"} or not _is_b(body["nonce"], LEAVE_NONCE):
            raise EntryError("leave event: body must be {phase, nonce: 16 bytes, payload}")
    elif kind == "say":
        if keys != {"phase", "text"} or not isinstance(body["text"], str):
            raise EntryError("say event: body must be {phase, text: a string}")
    else:
        if keys != {"phase", "action"}:
            raise EntryError("act event: body must be {phase, action}")


_EV_HEAD = len(encode([TAG_EVENT]))  # fixarray header + "easel-event"
_SIG_LEN = len(encode(bytes(64)))


def _event_sign_msg_from_raw(raw: bytes) -> bytes:
    """event_sign_msg computed from a canonical event's bytes, without re-encoding the body.

    raw = 0x99 || enc(tag) || enc(1) ... enc(body) || enc(sig); the signed list
    [1, ..., body] is 0x97 followed by the same middle bytes.
    """
    h = hashlib.sha256(PREFIX + b"sign/event\x00" + b"\x97")
    h.update(memoryview(raw)[_EV_HEAD : len(raw) - _SIG_LEN])
    return h.digest()


# a canonical event's bytes begin 0x99 "easel-event" 1 (bin8 32 game id) (bin8 32 author)
EVENT_PREFIX = b"\x99\xabeasel-event\x01"
_AUTHOR_AT = len(EVENT_PREFIX) + 34 + 2
_SIGN_EVENT_BASE = hashlib.sha256(PREFIX + b"sign/event\x00" + b"\x97")


def check_entry_signatures(entries: Sequence[bytes], keys: Sequence[bytes], start: int, stop: int) -> tuple[int, str] | None:
    """The signatures of ``entries[start:stop]`` (log entries after the genesis), in order: the
    first entry whose signature (or one of whose time-out votes) does not verify, as (index, the
    audit's text), or None.  Only the signatures are judged: an entry that does not parse is
    skipped (its parse is judged elsewhere, and comes first at one entry).  For an entry that
    parses, exactly the check ``parse_entry(raw, keys)`` makes; a canonical event's key,
    message and signature are read where they stand in its bytes (no decoding)."""
    out = outlen = None
    if _OPEN is not None:
        out = _ffi.new("unsigned char[]", 256)
        outlen = _ffi.new("unsigned long long *")
    op = _OPEN
    base = _SIGN_EVENT_BASE
    n = len(EVENT_PREFIX)
    a = _AUTHOR_AT
    sig_from = -_SIG_LEN + 2
    for i in range(start, stop):
        raw = entries[i]
        if type(raw) is bytes and raw[:n] == EVENT_PREFIX and len(raw) > a + 32 + _SIG_LEN:
            h = base.copy()
            h.update(memoryview(raw)[_EV_HEAD : len(raw) - _SIG_LEN])
            msg = h.digest()
            key = raw[a : a + 32]
            sig = raw[sig_from:]
            if op is not None:
                sm = sig + msg
                if op(out, outlen, sm, len(sm), key) != 0:
                    return i, "event: signature does not verify"
            elif not verify_sig(key, msg, sig):
                return i, "event: signature does not verify"
            continue
        jobs: list = []
        try:
            ent = parse_entry(raw, keys=keys, pending=jobs)
        except EntryError:
            continue
        except Exception:  # judged (as an internal error) where it is parsed
            continue
        j = verify_many(jobs)
        if j is not None:
            if isinstance(ent, Timeout):
                return i, "time-out: bad vote signature from seat %d" % ent.votes[j][0]
            return i, "event: signature does not verify"
    return None


# a talk line's text may hold none of these (protocol.md §9.11): C0 and C1 controls and DEL, the line and
# paragraph separators, the bidirectional marks, embeddings, overrides and isolates
_SAY_BANNED = frozenset(list(range(0x20)) + list(range(0x7F, 0xA0)) + [0x2028, 0x2029, 0x200E, 0x200F]
                        + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)))
# the spaces a talk line may not start or end with (those not banned above): written out, so that no
# Unicode database decides it
_SAY_SPACES = frozenset([0x20, 0xA0, 0x1680] + list(range(0x2000, 0x200B)) + [0x202F, 0x205F, 0x3000])


def say_problem(text: Any) -> str:
    """What is wrong with ``text`` as a talk line's text, in words ("" if nothing): a ``str`` of 1 to
    MAX_SAY_BYTES bytes of UTF-8, holding no code point below U+0020, none in U+007F..U+009F, and
    none of U+2028, U+2029, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 (terminal escapes, line
    breaks and bidirectional spoofing), neither starting nor ending with a space (U+0020, U+00A0,
    U+1680, U+2000..U+200A, U+202F, U+205F, U+3000: with the banned ones, exactly what Python's
    ``str.strip()`` strips), protocol.md §9.11."""
    if not isinstance(text, str):
        return "the line is not text"
    if not text:
        return "the line is empty"
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return "the line is not valid UTF-8"
    if size > MAX_SAY_BYTES:
        return "the line is too long (%d bytes, at most %d)" % (size, MAX_SAY_BYTES)
    for ch in text:
        c = ord(ch)
        if c in _SAY_BANNED:
            return "the line holds a control or direction character (U+%04X)" % c
    if ord(text[0]) in _SAY_SPACES or ord(text[-1]) in _SAY_SPACES:
        return "the line starts or ends with a space"
    return ""


def make_event(
    sign: Signer, game_id: bytes, author: bytes, seq: int, prev: bytes, kind: str, body: Any
) -> Event:
    check_body(kind, body)
    sig = sign(event_sign_msg(game_id, author, seq, prev, kind, body))
    raw = encode([TAG_EVENT, VERSION, game_id, author, seq, prev, kind, body, sig])
    return Event(game_id, author, seq, prev, kind, body, sig, raw, entry_id(raw))


def parse_event(raw: bytes, verify: bool = True, obj: Any = None, pending: list | None = None) -> Event:
    """Parse an event; with ``verify`` check its signature, or, if ``pending`` is a list,
    append the check to it as (public key, message, signature) for ``verify_many``."""
    if obj is None:
        obj = _decode_entry(raw)
    if len(obj) != 9 or obj[0] != TAG_EVENT:
        raise EntryError("not an event entry")
    _, ver, gid, author, seq, prev, kind, body, sig = obj
    # the checks below, in this order, are _is_version, _is_b, _is_uint and check_body
    # written out: this runs for every entry of every audited log
    if type(ver) is not int or ver != VERSION:
        raise EntryError("unsupported protocol version %r" % (ver,))
    if not (
        type(gid) is bytes and len(gid) == 32 and type(author) is bytes and len(author) == 32
        and type(prev) is bytes and len(prev) == 32 and type(sig) is bytes and len(sig) == 64
    ):
        raise EntryError("event: game id, author, prev and signature must be bytes of 32/32/32/64")
    if not (0 <= seq < 9223372036854775808 if type(seq) is int else _is_uint(seq)):
        raise EntryError("event: sequence number must be a non-negative integer")
    if not isinstance(kind, str):
        raise EntryError("event: kind must be a string")
    if type(body) is dict and len(body) == 2 and kind == "act":
        phase = body.get("phase")
        if "action" not in body or type(phase) is not int or not 0 <= phase < 9223372036854775808:
            check_body(kind, body)   # raises with the exact message
    elif type(body) is dict and len(body) == 2 and kind == "commit":
        phase, h = body.get("phase"), body.get("hash")
        if type(phase) is not int or not 0 <= phase < 9223372036854775808 or type(h) is not bytes or len(h) != 32:
            check_body(kind, body)
    else:
        check_body(kind, body)
    if verify:
        if pending is not None:
            pending.append((author, _event_sign_msg_from_raw(raw), sig))
        elif not verify_sig(author, _event_sign_msg_from_raw(raw), sig):
            raise EntryError("event: signature does not verify")
    # Event(...) written out: a frozen dataclass's __init__ sets each field through
    # object.__setattr__, a third of this function's time on every entry of every log
    ev = _new(Event)
    d = ev.__dict__
    d["game_id"] = gid
    d["author"] = author
    d["seq"] = seq
    d["prev"] = prev
    d["kind"] = kind
    d["body"] = body
    d["sig"] = sig
    d["raw"] = raw
    d["id"] = entry_id(raw)
    return ev


_new = object.__new__


# where a canonical event's fields stand in its bytes (parse_event_fast): after EVENT_PREFIX,
# bin8 32 game id, bin8 32 author, then the sequence number (1, 2, 3, 5 or 9 bytes)
_BIN32 = b"\xc4\x20"
_SIG_HEAD = b"\xc4\x40"
_SEQ_AT = len(EVENT_PREFIX) + 68
_UINT_FORMS = {0xCC: (1, 0x80), 0xCD: (2, 0x100), 0xCE: (4, 0x10000), 0xCF: (8, 0x100000000)}


def parse_event_fast(raw: bytes) -> Event | None:
    """``parse_event(raw, verify=False)`` for an event in its usual form, read where its fields
    stand in its bytes: only the body goes through the canonical decoder.  Returns None for
    anything else (another entry type, any byte out of the expected layout, a body or field
    the checks refuse): then ``parse_entry`` judges it, with its exact message.

    An Event returned here is exactly the one ``parse_entry(raw, verify=False)`` returns: the
    entry is the canonical array of nine (0x99), its tag and version are fixed bytes, the
    three 32-byte fields are bin8 (their only canonical form), the sequence number is in its
    shortest form and below 2**63, the kind is one of the three as a fixstr, the body is one
    canonical value (``encoding.decode_at``, at depth 1, must consume the bytes up to the
    signature exactly) and the signature is bin8 of 64 bytes ending the entry; the body
    checks are check_body's."""
    n = len(raw)
    if type(raw) is not bytes or n > MAX_ENTRY or n < _SEQ_AT + 1 + 34 + 4 + 1 + 66 or raw[:14] != EVENT_PREFIX:
        return None
    if raw[14:16] != _BIN32 or raw[48:50] != _BIN32 or raw[n - 66 : n - 64] != _SIG_HEAD:
        return None
    b = raw[_SEQ_AT]
    if b < 0x80:
        seq = b
        p = _SEQ_AT + 1
    else:
        form = _UINT_FORMS.get(b)
        if form is None:
            return None
        w, low = form
        p = _SEQ_AT + 1 + w
        seq = int.from_bytes(raw[_SEQ_AT + 1 : p], "big")
        if seq < low or seq >= 9223372036854775808:
            return None
    if raw[p : p + 2] != _BIN32:
        return None
    prev = raw[p + 2 : p + 34]
    p += 34
    k = raw[p : p + 7]
    if k == b"\xa6commit":
        kind = "commit"
        p += 7
    elif k == b"\xa6reveal":
        kind = "reveal"
        p += 7
    elif k[:4] == b"\xa3act":
        kind = "act"
        p += 4
    else:
        return None
    if p >= n - 66:
        return None
    try:
        body = decode_at(raw[p : n - 66], 1)
    except CanonicalError:
        return None
    if type(body) is not dict:
        return None
    phase = body.get("phase")
    if type(phase) is not int or not 0 <= phase < 9223372036854775808:
        return None
    if kind == "act":
        if len(body) != 2 or "action" not in body:
            return None
    elif kind == "commit":
        h = body.get("hash")
        if len(body) != 2 or type(h) is not bytes or len(h) != 32:
            return None
    else:
        s = body.get("salt")
        if len(body) != 3 or "value" not in body or type(s) is not bytes or len(s) != 32:
            return None
    ev = _new(Event)
    d = ev.__dict__
    d["game_id"] = raw[16:48]
    d["author"] = raw[50:82]
    d["seq"] = seq
    d["prev"] = prev
    d["kind"] = kind
    d["body"] = body
    d["sig"] = raw[n - 64 :]
    d["raw"] = raw
    d["id"] = entry_id(raw)
    return ev


# --------------------------------------------------------------------------- time-outs


@dataclass(frozen=True)
class Timeout:
    game_id: bytes
    phase: int
    prev: bytes
    seats: tuple[int, ...]
    votes: tuple[tuple[int, bytes], ...]
    raw: bytes
    id: bytes


def vote_sign_msg(game_id: bytes, phase: int, prev: bytes, seats: Sequence[int]) -> bytes:
    return dhash("sign/vote", game_id, phase, prev, list(seats))


def make_timeout(
    game_id: bytes, phase: int, prev: bytes, seats: Sequence[int], votes: Sequence[tuple[int, bytes]]
) -> Timeout:
    raw = encode(
        [TAG_TIMEOUT, VERSION, game_id, phase, prev, sorted(seats), [[v, s] for v, s in sorted(votes)]]
    )
    return parse_timeout(raw, keys=None)


def parse_timeout(raw: bytes, keys: Sequence[bytes] | None, obj: Any = None, pending: list | None = None) -> Timeout:
    """Parse a time-out certificate; with ``keys`` (the seat keys) check it is complete and signed
    (the signatures: at once, or appended to ``pending`` in vote order, see ``parse_event``)."""
    if obj is None:
        obj = _decode_entry(raw)
    if len(obj) != 7 or obj[0] != TAG_TIMEOUT:
        raise EntryError("not a time-out entry")
    _, ver, gid, phase, prev, seats, votes = obj
    if not _is_version(ver):
        raise EntryError("unsupported protocol version %r" % (ver,))
    if not (_is_b(gid, 32) and _is_b(prev, 32) and _is_uint(phase)):
        raise EntryError("time-out: malformed game id, phase or prev")
    if not isinstance(seats, list) or not seats or not all(_is_uint(s) for s in seats):
        raise EntryError("time-out: seats must be a non-empty list of seat numbers")
    if seats != sorted(set(seats)):
        raise EntryError("time-out: seats must be sorted and distinct")
    if not isinstance(votes, list) or not all(
        isinstance(v, list) and len(v) == 2 and _is_uint(v[0]) and _is_b(v[1], 64) for v in votes
    ):
        raise EntryError("time-out: votes must be [seat, signature] pairs")
    voters = [v[0] for v in votes]
    if not voters:
        raise EntryError("time-out: needs at least one vote")
    if voters != sorted(set(voters)):
        raise EntryError("time-out: votes must be sorted by seat, one per seat")
    if set(voters) & set(seats):
        raise EntryError("time-out: a timed-out seat cannot vote")
    if keys is not None:
        n = len(keys)
        if any(s >= n for s in seats) or any(v >= n for v in voters):
            raise EntryError("time-out: seat number out of range")
        if set(voters) != set(range(n)) - set(seats):
            raise EntryError("time-out: every seat not timed out must vote")
        if len(voters) < len(seats):
            raise EntryError("time-out: fewer voters than timed-out seats (at most half the table can be timed out)")
        msg = vote_sign_msg(gid, phase, prev, seats)
        for v, sig in votes:
            if pending is not None:
                pending.append((keys[v], msg, sig))
            elif not verify_sig(keys[v], msg, sig):
                raise EntryError("time-out: bad vote signature from seat %d" % v)
    return Timeout(gid, phase, prev, tuple(seats), tuple((v, s) for v, s in votes), raw, entry_id(raw))


# --------------------------------------------------------------------------- any entry


def _decode_entry(raw: bytes) -> list:
    if not isinstance(raw, (bytes, bytearray)):
        raise EntryError("entry must be bytes")
    if len(raw) > MAX_ENTRY:
        raise EntryError("entry larger than %d bytes" % MAX_ENTRY)
    try:
        obj = decode(bytes(raw))
    except CanonicalError as exc:
        raise EntryError("entry is not canonical msgpack: %s" % exc) from None
    if not isinstance(obj, list) or not obj or not isinstance(obj[0], str):
        raise EntryError("entry must be an array starting with its type")
    return obj


def parse_entry(raw: bytes, keys: Sequence[bytes] | None = None, verify: bool = True, pending: list | None = None):
    """Parse any entry (Genesis | Event | Timeout).

    With ``pending`` (a list), an event's or certificate's signature checks are
    appended to it instead of made at once (see ``verify_many``); a genesis is
    always checked at once.
    """
    obj = _decode_entry(raw)
    tag = obj[0]
    if tag == TAG_EVENT:
        return parse_event(bytes(raw), verify=verify, obj=obj, pending=pending)
    if tag == TAG_TIMEOUT:
        return parse_timeout(bytes(raw), keys if verify else None, obj=obj, pending=pending)
    if tag == TAG_GENESIS:
        return parse_genesis(bytes(raw), verify=verify)
    raise EntryError("unknown entry type %r" % (tag,))


_COMMIT_BASE = hashlib.sha256(PREFIX + b"commit\x00\x95\xc4\x20")
# where a reveal's value starts in its bytes: 0x99 "easel-event" 1 gid author | seq | prev "reveal"
# {"phase": | phase | "salt": salt "value": | value ...} sig  (fixed parts, then the two ints)
_REVEAL_FIXED = 1 + 12 + 1 + 34 + 34 + 34 + 7 + 1 + 6 + 5 + 34 + 6


def _uint_len(n: int) -> int:
    """Length of the canonical msgpack encoding of a non-negative int."""
    return 1 if n < 128 else 2 if n < 256 else 3 if n < 65536 else 5 if n < 4294967296 else 9


def reveal_commitment(ev: Event, phase: int) -> bytes:
    """``commitment(ev.game_id, ev.author, phase, value, salt)`` for a parsed reveal event,
    hashing the value's canonical bytes where they stand in ``ev.raw`` (no re-encoding)."""
    raw = ev.raw
    body = ev.body
    if type(raw) is bytes and type(phase) is int and phase >= 0:
        start = _REVEAL_FIXED + _uint_len(ev.seq) + _uint_len(body["phase"])
        end = len(raw) - _SIG_LEN
        if (
            start < end
            and raw[start - 6 : start] == b"\xa5value"
            and raw[start - 45 : start - 38] == b"\xa4salt\xc4\x20"
            and raw[start - 38 : start - 6] == body["salt"]
        ):
            h = _COMMIT_BASE.copy()
            h.update(ev.game_id)
            h.update(b"\xc4\x20")
            h.update(ev.author)
            h.update(bytes((phase,)) if phase < 128 else encode(phase))
            h.update(memoryview(raw)[start:end])
            h.update(b"\xc4\x20")
            h.update(body["salt"])
            return h.digest()
    return commitment(ev.game_id, ev.author, phase, body["value"], body["salt"])


def commitment(game_id: bytes, seat_key: bytes, phase: int, value: Any, salt: bytes) -> bytes:
    """Commitment to a sealed value: binds game, seat key, phase, value and a 32-byte salt."""
    if not _is_b(salt, 32):
        raise ValueError("salt must be 32 bytes")
    return dhash("commit", game_id, seat_key, phase, value, salt)


def equivocation(a: Event, b: Event) -> bool:
    """Two valid events from one author with the same sequence number and different bytes."""
    return a.author == b.author and a.seq == b.seq and a.game_id == b.game_id and a.raw != b.raw
