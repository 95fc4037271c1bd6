"""``easel export LOG --html FILE [--as SEAT]``: one self-contained HTML page that replays a game.

The page needs no network and loads nothing: its CSS and script are inline,
and a Content-Security-Policy forbids any fetch.  It holds

* every log entry as a *frame*: the board, the seats table, the game's
  middle pane (result, the screen's lines) and the table's event log, drawn
  by the game's screen (cli/screens, the same calls the terminal UI makes)
  as they looked after that entry, in one seat's view or the public view;
* the audit's verdict (core.audit, via cli.auditing) with every seat key's
  fingerprint (core.hashing.fingerprint), and the signed log itself, which
  the page can save so anyone can run ``easel audit`` on it.

A seat's view of a game with seat secrets (``GameInfo.secrets``: Modern
Art's hand) needs that seat's secret, which the log does not hold until the
disclosure at the game's end: ``find_seat_secret`` takes it from the secrets
file beside the log (a peer's game directory) or from that disclosure, and
every frame is drawn with it, so the page shows the seat's hand as the seat
saw it at each moment.  It is never used for another seat or the public view.

Frames are compact: every distinct line is stored once (a line is a list of
(style, text) fragments, its style an index into a CSS class table made
from the shell's style sheet plus the screen's own styles) and a frame is a
list of line numbers; the page's script draws them.  The last frame is also
drawn into the HTML itself, for readers without JavaScript.

Nothing here knows a game: everything game-specific comes from its screen.
"""

from __future__ import annotations

import base64
import html
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from prompt_toolkit.styles import Style

from core.encoding import decode, encode
from core.events import Event, parse_entry, seat_names
from core.hashing import fingerprint
from core.logfile import SECRETS_MAGIC
from core.logfile import parse as parse_log
from core.table import RuleError, Table
from p2p.protocol import SEAT_SECRET, SEAT_SECRET_BYTES   # the secrets file's seat-secret record (protocol.md §8)

from .common import UsageError, easel_version, jsonable, read_file, registry
from .screens import Context, Screen, Snapshot, screen_for, seat_name, with_names, wrap
from .shell import certificate_lines, describe_entry, genesis_words, seat_status, step_status
from .snapshot import _named

WIDTH = 100          # columns of the middle pane (as the terminal UI's text rendering)
LOG_SHOWN = 14       # event-log lines shown under a frame (newest first)

# the terminal's palette for prompt-toolkit's ANSI colour names (a dark theme)
FG, BG = "#d0d0d0", "#1c1c1c"
ANSI = {
    "ansiblack": "#000000", "ansired": "#cd3131", "ansigreen": "#0dbc79", "ansiyellow": "#e5e510",
    "ansiblue": "#2472c8", "ansimagenta": "#bc3fbc", "ansicyan": "#11a8cd", "ansigray": "#e5e5e5",
    "ansibrightblack": "#8a8a8a", "ansibrightred": "#f14c4c", "ansibrightgreen": "#23d18b",
    "ansibrightyellow": "#f5f543", "ansibrightblue": "#3b8eea", "ansibrightmagenta": "#d670d6",
    "ansibrightcyan": "#29b8db", "ansiwhite": "#ffffff",
}


# --------------------------------------------------------------------------- styles -> CSS
def style_sheet(screen: Screen) -> Style:
    """The terminal UI's style sheet (the shell's, plus the screen's own styles)."""
    from .shell import STYLE

    return Style.from_dict({**STYLE, **dict(screen.styles or {})})


def _colour(name: str | None) -> str | None:
    if not name or name in ("default", "ansidefault"):
        return None
    if name in ANSI:
        return ANSI[name]
    if len(name) == 6 and all(c in "0123456789abcdefABCDEF" for c in name):
        return "#" + name.lower()
    return None


def css_of(style: Style, style_str: str) -> str:
    """One prompt-toolkit style string as CSS declarations."""
    try:
        a = style.get_attrs_for_style_str(style_str)
    except Exception:  # an unknown style never breaks the page
        return ""
    fg, bg = _colour(a.color), _colour(a.bgcolor)
    if a.reverse:
        fg, bg = bg or BG, fg or FG
    out = []
    if fg:
        out.append("color:%s" % fg)
    if bg:
        out.append("background:%s" % bg)
    if a.bold:
        out.append("font-weight:bold")
    if a.italic:
        out.append("font-style:italic")
    deco = [d for d, on in (("underline", a.underline), ("line-through", a.strike)) if on]
    if deco:
        out.append("text-decoration:%s" % " ".join(deco))
    if a.dim:
        out.append("opacity:.65")
    if a.hidden:
        out.append("visibility:hidden")
    return ";".join(out)


class Lines:
    """Distinct styles and lines, each stored once; a line is [style, text, style, text, ...]."""

    def __init__(self) -> None:
        self.styles: list[str] = [""]
        self._style_ix = {"": 0}
        self.lines: list[list] = []
        self._line_ix: dict[str, int] = {}

    def style(self, s: str) -> int:
        s = " ".join(str(s).split())
        if s not in self._style_ix:
            self._style_ix[s] = len(self.styles)
            self.styles.append(s)
        return self._style_ix[s]

    def line(self, frags: Sequence) -> int:
        flat: list = []
        for frag in frags:
            st, text = str(frag[0]), str(frag[1]).replace("\n", " ").replace("\r", "")
            if not text or "[ZeroWidthEscape]" in st:
                continue
            ix = self.style(st)
            if flat and flat[-2] == ix:
                flat[-1] += text
            else:
                flat += [ix, text]
        if flat and flat[-2] == 0:   # trailing blanks in the plain style are invisible
            flat[-1] = flat[-1].rstrip()
            if not flat[-1]:
                del flat[-2:]
        key = json.dumps(flat, ensure_ascii=False)
        if key not in self._line_ix:
            self._line_ix[key] = len(self.lines)
            self.lines.append(flat)
        return self._line_ix[key]

    def text(self, style: str, text: str) -> int:
        return self.line([(style, text)])

    def css(self, screen: Screen) -> str:
        sheet = style_sheet(screen)
        rules = []
        for i, s in enumerate(self.styles):
            decl = css_of(sheet, s) if s else ""
            if decl:
                rules.append(".s%d{%s}" % (i, decl))
        return "\n".join(rules)


# --------------------------------------------------------------------------- replaying the log into frames
@dataclass
class Frame:
    title: int
    board: list[int]
    seats: list[int]
    middle: list[int]
    log: list[int]
    entry: int
    status: int
    mark: bool

    def packed(self) -> list:
        return [self.title, self.board, self.seats, self.middle, self.log, self.entry, self.status, 1 if self.mark else 0]


def _safe(what: str, fn, *args) -> Any:
    try:
        return fn(*args), None
    except Exception as exc:  # a screen that cannot draw one state must not lose the whole page
        return None, [("class:error", "(the screen could not draw its %s here: %s)" % (what, type(exc).__name__))]


class Exporter:
    """Replays a log with the game's screen and collects the frames."""

    def __init__(self, entries: list[bytes], seat: int | None, games: Any = registry, secret: bytes | None = None) -> None:
        if not entries:
            raise UsageError("the log holds no entries")
        try:
            self.table = Table.start(entries[0], games)
        except RuleError as exc:
            raise UsageError("entry 0 is not a valid genesis (%s): run easel audit" % exc) from None
        self.players = self.table.players
        if seat is not None and not 0 <= seat < self.players:
            raise UsageError("--as must be a seat between 0 and %d (this game has %d seats)" % (self.players - 1, self.players))
        self.entries = entries
        self.seat = seat
        if seat is not None and secret is not None:
            # the seat's own secret (find_seat_secret): Table.view(seat) passes it to the game's view,
            # for this seat only; a spectator's view (seat None) never has one
            self.table.secrets[seat] = secret
        self.game_name = self.table.genesis.doc.get("game", "")
        doc = self.table.genesis.doc
        self.names = seat_names(doc) if "names" in doc else ()    # every seat's name, () for "seat N" (§5.1)
        self.screen = screen_for(self.game_name)
        self.store = Lines()
        self.frames: list[Frame] = []
        self.error: str | None = None
        self.start: int | None = None   # the first entry that applied a move (the page opens there)

    def ctx(self, snap: Snapshot) -> Context:
        return Context(seat=self.seat, snap=snap, view=snap.view, game=snap.game, state=snap.state)

    def run(self) -> "Exporter":
        t = self.table
        snap = snapshot_of_table(t, self.seat, self.screen)
        cfg = t.config if isinstance(getattr(t, "config", None), dict) else (t.genesis.doc.get("config") or {})
        try:
            opening = self.screen.describe_table(self.ctx(snap), cfg, self.players)
        except Exception:
            opening = "%s for %d seats" % (self.game_name, self.players)
        self.frames.append(self.frame(0, snap, None, "the table opens (genesis): %s%s" % (
            opening, genesis_words(t.genesis.doc))))
        for i in range(1, len(self.entries)):
            try:
                ent = parse_entry(self.entries[i], keys=t.keys)
                desc = describe_entry(t, ent, self.seat, self.screen)
                t.append(ent)
            except Exception as exc:  # RuleError, EntryError, anything: the replay stops before it
                self.error = "entry %d is invalid, the replay stops before it: %s" % (i, exc)
                break
            before, snap = snap, snapshot_of_table(t, self.seat, self.screen)
            self.frames.append(self.frame(i, snap, before, desc))
            if self.start is None and snap.moves > 0:
                self.start = i          # the first move: where the page opens
        return self

    def frame(self, n: int, snap: Snapshot, before: Snapshot | None, desc: str) -> Frame:
        st, scr, ctx = self.store, self.screen, self.ctx(snap)

        def lines(what: str, fn, *args, named: bool = False) -> list[int]:
            got, err = _safe(what, fn, *args)
            if err is None and named:       # every seat by its name, as the terminal's middle pane says it (cli/panes.py)
                got = _named(got, snap.names)
            return [st.line(line) for line in (got if err is None else [err])]

        title = [self.screen_title(snap)] + [str(p) for p in (_safe("title", scr.title_parts, ctx)[0] or [])]
        if snap.over:
            title.append("game over")
        title.append("entry %d/%d" % (n, len(self.entries) - 1))
        board = lines("board", scr.board_lines, ctx)
        seats = [st.line(line) for line in self.seat_lines(snap, ctx)]
        middle: list[int] = []
        if snap.result:
            over = lines("result", scr.game_over_lines, ctx, WIDTH, named=True)
            middle += over + ([st.line([])] if over else [])
            certs = [st.line(line) for line in _named(certificate_lines(snap, WIDTH), snap.names)]
            middle += certs + ([st.line([])] if certs else [])
        middle += lines("middle pane", scr.middle_lines, ctx, WIDTH, named=bool(getattr(scr, "names_in_middle", False)))
        log = [st.line(wrapped) for style, text in list(reversed(snap.log))[:LOG_SHOWN]
               for wrapped in wrap([(style, text)], WIDTH, "      ")] or [st.text("class:label", "  nothing yet")]
        status_style, status = step_status(snap, scr)
        mark = False
        if before is not None:
            try:
                mark = bool(scr.is_mark(before, snap))
            except Exception:
                mark = snap.moves > before.moves
        return Frame(
            title=st.text("class:title", " " + " | ".join(title)),
            board=board,
            seats=seats,
            middle=middle,
            log=log,
            entry=st.line([("bold", "Entry %d of %d: " % (n, len(self.entries) - 1)), ("", desc)]),
            status=st.line([("class:label", "Table now: "), (status_style, status)]),
            mark=mark,
        )

    def screen_title(self, snap: Snapshot) -> str:
        title = snap.game_title or snap.game_name or "a game"
        return "%s | %s" % (title, "public view" if self.seat is None else self.view_words())

    def view_words(self, more: str = "") -> str:
        """Whose view this is: "Zoe's view (seat 2)", "seat 2's view" for a genesis without names;
        ``more`` said in the parentheses too."""
        s = self.seat
        inside = "; ".join(x for x in ("seat %d" % s if self.names else "", more) if x)
        return "%s's view%s" % (self.names[s] if self.names else "seat %d" % s, " (%s)" % inside if inside else "")

    def seat_lines(self, snap: Snapshot, ctx: Context) -> list[list]:
        scr = self.screen
        cols = _safe("seats", scr.seat_columns, ctx)[0] or []
        lines: list[list] = [[("class:header", "Seats")]]
        lines.append([("class:label", "  %-13s" % "" + "".join(" %*s" % (w, h) for h, w in cols) + "  now")])
        for s in range(snap.players):
            cells = (_safe("seats", scr.seat_cells, ctx, s)[0] or []) if cols else []
            row = "%s %-13s" % (">" if s == self.seat else " ", seat_name(s, self.seat, snap.names))
            row += "".join(" %*s" % (w, c) for (_, w), c in zip(cols, cells)) + "  "
            status = seat_status(snap, s)
            busy = status in ("choosing", "opening", "to move", "seed..")
            lines.append([("class:you" if s == self.seat else "", row), ("class:waiting" if busy else "class:label", status)])
        return lines


def snapshot_of_table(table: Table, seat: int | None, screen: Screen) -> Snapshot:
    from .shell import snapshot_of

    return snapshot_of(table, seat, screen=screen)


# --------------------------------------------------------------------------- a seat's own secret


@dataclass(frozen=True)
class SeatSecret:
    """A seat's own secret for its view, and where it came from."""

    secret: bytes | None = None
    source: str | None = None      # "secrets file" | "disclosure" | None (none: a view without the seat's hand)
    words: str = ""                # why, in words (for the page)


def stored_seat_secret(log_path: str | Path | None) -> bytes | None:
    """The seat secret in the secrets file beside ``log_path`` (a peer's game directory holds
    ``log``, ``spool`` and ``secrets``), or None.  Read only; a missing, unreadable or
    malformed file is no secret.  Whose seat it is the caller checks (``find_seat_secret``)."""
    if not log_path or str(log_path) == "-":
        return None
    try:
        data = (Path(log_path).parent / "secrets").read_bytes()
    except OSError:
        return None
    if not data.startswith(SECRETS_MAGIC):
        return None
    found = None
    for rec in parse_log(data).entries:       # the good records (a torn tail is left out)
        try:
            phase, value, _salt = decode(rec)
        except Exception:
            continue
        if phase == SEAT_SECRET and type(value) is bytes and len(value) == SEAT_SECRET_BYTES:
            found = value                      # the last record for a phase wins
    return found


def _same(a: Any, b: Any) -> bool:
    try:
        return encode(a) == encode(b)
    except Exception:
        return False


def find_seat_secret(entries: Sequence[bytes], seat: int | None, log_path: str | Path | None = None,
                     games: Any = registry) -> SeatSecret:
    """``seat``'s own secret, for a game with seat secrets (``GameInfo.secrets``):

    1. the secrets file beside the log, if it is that seat's: it must give the seat's
       first automatic action in the log (``game.auto_action`` is a function of the state and
       the secret: Modern Art's deal key) or equal the secret the seat disclosed;
    2. else the secret the seat disclosed at the game's end (the last automatic step: its
       ``{"secret": ...}`` action, which the game checked against the seat's key).

    The secret is known after the fact, but a view with it at an earlier entry shows what the
    seat saw then.  No secret for the public view, a game without seat secrets, or a seat
    whose secret is nowhere to be found (its view then lacks its hand)."""
    if seat is None or not entries:
        return SeatSecret()
    try:
        t = Table.start(entries[0], games)
    except RuleError:
        return SeatSecret()
    if not t.game.info.secrets or not 0 <= seat < t.players:   # a game without seat secrets: nothing to find
        return SeatSecret()
    stored = stored_seat_secret(log_path)
    key = t.keys[seat]
    first_auto = None          # (state, action) of the seat's first automatic event
    disclosed = None
    for raw in entries[1:]:
        st = t.step
        if st is None:
            break
        try:
            ent = parse_entry(raw, keys=t.keys)
        except Exception:
            break
        auto = st.purpose == "auto"
        if auto and first_auto is None and isinstance(ent, Event) and ent.author == key and ent.kind == "act":
            first_auto = (t.state, ent.body.get("action"))
        n = len(t.moves)
        try:
            t.append(ent)
        except Exception:      # the replay stops at an invalid entry, as the export's does
            break
        if auto:
            for _idx, _phase, s, action in t.moves[n:]:
                if s == seat and isinstance(action, dict) and set(action) == {"secret"} and type(action["secret"]) is bytes:
                    disclosed = action["secret"]
    refused = ""               # why the secrets file beside the log was not used
    if stored is not None:
        ours, refused = False, "is another seat's"
        if disclosed is not None:
            ours = stored == disclosed
        elif first_auto is not None:
            try:
                ours = _same(t.game.auto_action(first_auto[0], seat, stored), first_auto[1])
            except Exception:
                ours = False
        else:
            refused = "cannot be checked against the log (seat %d has made no automatic move)" % seat
        if ours:
            return SeatSecret(stored, "secrets file",
                              "its own secrets included: opened with its seat secret from the secrets file beside the log")
    if disclosed is not None:
        return SeatSecret(disclosed, "disclosure",
                          "its own secrets included: opened with the seat secret it disclosed at the game's end%s, so "
                          "each entry shows what seat %d held then, as it saw it"
                          % (" (the secrets file beside the log %s)" % refused if refused else "", seat))
    return SeatSecret(None, None, "without its own secrets: %s, and the log holds no disclosure of its seat secret"
                      % ("the secrets file beside the log %s" % refused if refused else
                         "no secrets file of seat %d beside the log" % seat))


# --------------------------------------------------------------------------- the audit
def audit_report(name: str, data: bytes) -> dict:
    from .auditing import audit_files

    return audit_files({name: data}, games=registry)


def evidence_beside(path: str, data: bytes) -> dict:
    """What the spool kept beside the log holds about the log's time-outs and moves: the audit of
    both (``easel audit`` of the game directory, cli.history.audit_with_spools) gives its
    ``cut_moves`` (signed moves a certificate voted out), ``illegal`` (signed moves the rules
    refuse, kept as evidence) and ``signed_afterwards`` (not evidence).  A seat's spool keeps its
    own events and those that reached it and were cut, refused or placed later.  The verdict stays
    the log's own, as ``easel audit LOG`` gives it (the page carries the log only)."""
    from core.logfile import SPOOL_MAGIC

    from .history import audit_with_spools

    none: dict = {"cut_moves": [], "illegal": [], "signed_afterwards": []}
    spool = Path(path).parent / "spool"
    try:
        sdata = spool.read_bytes()
    except OSError:
        return none
    if SPOOL_MAGIC.startswith(sdata) or len(sdata) <= len(SPOOL_MAGIC):
        return none
    rep = audit_with_spools({Path(path).name: data, "spool": sdata}, {"spool"})
    return {k: rep.get(k) or [] for k in none}


def talk_after(path: str, entries: list) -> list:
    """The talk lines (§9.11) kept in the spool beside the log that the log has not placed and never will:
    said after their author's last answer in it (a ``say`` of this game, validly signed, its text passing
    the check, its seq above its author's last in the log), in (seq, seat) order: [{"seat", "seq", "text"}]."""
    from core.events import EntryError, Event, parse_entry, say_problem
    from core.logfile import parse as parse_file

    try:
        genesis = parse_entry(entries[0])
        sdata = (Path(path).parent / "spool").read_bytes()
    except (OSError, EntryError, IndexError):
        return []
    keys = list(genesis.doc["seats"])
    last: dict = {}
    for raw in entries[1:]:
        try:
            ev = parse_entry(raw, keys=keys, verify=False)
        except EntryError:
            continue
        if isinstance(ev, Event):
            last[ev.author] = max(last.get(ev.author, -1), ev.seq)
    seen: dict = {}
    for raw in parse_file(sdata).entries:
        try:
            ev = parse_entry(raw, keys=keys)
        except EntryError:
            continue
        if (isinstance(ev, Event) and ev.kind == "say" and ev.game_id == genesis.game_id and ev.author in keys
                and ev.seq > last.get(ev.author, -1) and not say_problem(ev.body["text"])):
            seen.setdefault((ev.seq, keys.index(ev.author)), ev.body["text"])
    return [{"seat": s, "seq": q, "text": text} for (q, s), text in sorted(seen.items())]


def cut_moves_beside(path: str, data: bytes) -> list:
    """The signed moves a time-out certificate cut, found in the spool beside the log (``evidence_beside``)."""
    return evidence_beside(path, data)["cut_moves"]


def verdict_of(rep: dict) -> tuple[str, str]:
    """(css class, words) of an audit report."""
    if not rep.get("valid"):
        return "bad", "INVALID - the audit found problems (below)"
    if not rep.get("complete"):
        return "warn", "VALID so far - every entry checks, but the game is not finished"
    return "ok", "VALID - every signature, link, commitment and move checks, and the game is finished"


# --------------------------------------------------------------------------- the page
def build_page(path: str, data: bytes, seat: int | None, games: Any = registry) -> str:
    parsed = parse_log(data)
    if parsed.kind != "log":
        raise UsageError("%s is not an Easel log file" % path)
    entries = list(parsed.entries)
    own = find_seat_secret(entries, seat, path, games)
    ex = Exporter(entries, seat, games, own.secret).run()
    rep = audit_report(Path(path).name, data)
    found = evidence_beside(path, data)
    cut = found["cut_moves"]
    css_class, verdict = verdict_of(rep)
    genesis = ex.table.genesis
    save_as = "%s-%s.log" % (ex.game_name or "game", genesis.game_id.hex()[:12])
    keys = list(genesis.doc.get("seats") or [])
    result = rep.get("results") if rep.get("complete") else None
    certs = rep.get("certificates") or []
    ranking = result.get("ranking") if isinstance(result, dict) else None
    title = ex.table.game.info.title or ex.game_name or "A game"
    from .history import certificate_words_of, links_beside, status_lines

    names = ex.names
    talk = rep.get("said") or []
    after = talk_after(path, entries)
    speaker = lambda s: names[s] if s < len(names) else "seat %d" % s   # noqa: E731

    def said(text: Any) -> str:
        """Audit words with every seat by its name (§5.1), as the screens and ``easel audit`` say them."""
        return with_names(str(text), names)

    # the rematch it is and the rematches it had (§9.9), from the games beside its directory
    links = links_beside(Path(path), genesis.game_id, genesis.doc.get("previous"))

    doc = {
        "version": 1,
        "game": ex.game_name,
        "title": title,
        "seat": seat,
        "secret_source": own.source,
        "players": ex.players,
        "entries": len(entries),
        "board_width": int(getattr(ex.screen, "board_width", 0) or 0),
        "width": WIDTH,
        "styles": len(ex.store.styles),
        "lines": ex.store.lines,
        "frames": [f.packed() for f in ex.frames],
        "start": ex.start if ex.start is not None else len(ex.frames) - 1,   # the entry the page opens at
        "mark_words": list(ex.screen.mark_words),
        "replay_error": ex.error,
        "log_name": save_as,
        "log_b64": base64.b64encode(data).decode("ascii"),
        "audit": jsonable(dict({k: rep.get(k) for k in ("valid", "complete", "events", "head", "problems", "notes", "game",
                                                        "names", "certificates", "said")}, **found)),
        "said_after": after,
        "fingerprints": [fingerprint(k) for k in keys],
        "seat_names": list(names) or None,
        "links": links,
    }
    payload = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    payload = payload.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")

    e = html.escape
    problems = "".join(
        "<li>%s%s</li>" % ("entry %s: " % p["index"] if p.get("index") is not None else "", e(said(p.get("problem", ""))))
        for p in rep.get("problems") or [])
    notes = "".join("<li>entry %s: %s</li>" % (e(str(p.get("index"))), e(said(p.get("note", "")))) for p in rep.get("notes") or [])
    rows = []
    for s, k in enumerate(keys):
        place = ""
        if isinstance(ranking, list) and s in ranking:
            place = "%s" % _ordinal(ranking.index(s) + 1)
        who = "seat %d %s" % (s, names[s]) if s < len(names) else "seat %d" % s
        rows.append('<tr%s><td>%s%s</td><td class="fp">%s</td><td>%s</td></tr>' % (
            ' class="me"' if s == seat else "", e(who), " (this view)" if s == seat else "", e(fingerprint(k)), e(place)))
    start = doc["start"]
    static = render_frame_html(ex, ex.frames[start])      # the page opens at the first move, as its script does
    if seat is None:
        view = "the public view (what a spectator saw)"
    elif own.words:
        view = said(ex.view_words("%s%s" % (own.words, "" if ex.table.over or own.secret is None else
                                            "; the game is not over: this page shows what seat %d keeps hidden" % seat)))
    else:
        view = ex.view_words("its own secrets included")
    page = PAGE
    subs = {
        "@@TITLE@@": e("%s - Easel game %s" % (title, genesis.game_id.hex()[:12])),
        "@@H1@@": e(title),
        "@@SUB@@": e("%d seats | %d log entries | %s | game %s" % (ex.players, len(entries), view, genesis.game_id.hex()[:16])),
        "@@LINKS@@": ('<p class="sub" id="links">%s</p>' % e(" | ".join(links))) if links else "",
        "@@VCLASS@@": css_class,
        "@@VERDICT@@": e(verdict),
        "@@HEAD@@": e(str(rep.get("head") or "")),
        "@@EVENTS@@": str(int(rep.get("events") or 0)),
        "@@PROBLEMS@@": ("<ul class=problems>%s</ul>" % problems) if problems else "",
        "@@NOTES@@": (('<div class="bad" id="cut-moves"><b>Disputed: signed moves voted out by a time-out certificate '
                       '(%d)</b>: each move, kept in the spool beside the log, did not reach the seats that signed the '
                       'certificate before they voted it out, or they voted anyway<ul>%s</ul></div>'
                       % (len(cut), "".join("<li>%s</li>" % e(said(c["note"])) for c in cut))) if cut else "")
                     + (('<div class="bad" id="illegal"><b>Illegal signed moves (%d)</b>: kept in the spool beside the '
                         'log; the rules refuse each at its step, so each is its author\'s fault<ul>%s</ul></div>'
                         % (len(found["illegal"]), "".join("<li>%s</li>" % e(said(c["note"])) for c in found["illegal"])))
                        if found["illegal"] else "")
                     + (('<div id="afterwards"><b>Signed afterwards, not evidence (%d)</b><ul>%s</ul></div>'
                         % (len(found["signed_afterwards"]), "".join("<li>%s</li>" % e(said(c["note"]))
                                                                     for c in found["signed_afterwards"])))
                        if found["signed_afterwards"] else "")
                     + (('<div id="certificates"><b>Time-out certificates (%d)</b>: each says only that its signers '
                         'voted the seats it names out of one step; it blames and ranks no one by itself<ul>%s</ul></div>'
                         % (len(certs), "".join("<li>%s</li>" % e(certificate_words_of(c, names)) for c in certs)))
                        if certs else "")
                     + (('<div id="talk"><b>Table talk (%d)</b>: each line at its place in the log, signed by its '
                         'seat<ul>%s</ul></div>' % (len(talk), "".join("<li>entry %d: %s: %s</li>" % (
                             int(d["index"]), e(speaker(d["seat"])), e(d["text"])) for d in talk))) if talk else "")
                     + (('<div id="talk-after"><b>Said after its last move (not in the log) (%d)</b>: kept, signed, '
                         'in the spool beside the log<ul>%s</ul></div>' % (len(after), "".join(
                             "<li>%s: %s</li>" % (e(speaker(d["seat"])), e(d["text"])) for d in after))) if after else "")
                     + (('<div id="status"><b>Result</b>: %s</div>' % e("; ".join(status_lines(result, names))))
                        if status_lines(result) else "")
                     + (("<details><summary>audit notes (%d)</summary><ul>%s</ul></details>" % (len(rep.get("notes") or []), notes)) if notes else ""),
        "@@KEYROWS@@": "".join(rows),
        "@@REPLAYERR@@": ('<p class="bad">%s</p>' % e(ex.error)) if ex.error else "",
        "@@LOGNAME@@": e(save_as),
        "@@LAST@@": str(len(ex.frames) - 1),
        "@@START@@": str(start),
        "@@MARK@@": e(ex.screen.mark_words[0]),
        "@@BOARDW@@": str(doc["board_width"]),
        "@@WIDTH@@": str(WIDTH),
        "@@STATIC@@": static,
        "@@CSS@@": ex.store.css(ex.screen),
        "@@VERSION@@": e(easel_version()),
        "@@DATA@@": payload,
        "@@SCRIPT@@": SCRIPT,
    }
    # one pass: a seat's name that reads like a placeholder ("@@DATA@@") is never filled in
    return re.sub(r"@@[A-Z0-9]+@@", lambda m: subs.get(m.group(0), m.group(0)), page)


def _ordinal(n: int) -> str:
    from .screens import ordinal

    return ordinal(n)


def _line_html(store: Lines, ix: int) -> str:
    flat = store.lines[ix]
    out = []
    for i in range(0, len(flat), 2):
        text = html.escape(flat[i + 1], quote=False)
        out.append(text if flat[i] == 0 else '<span class="s%d">%s</span>' % (flat[i], text))
    return "".join(out)


def render_frame_html(ex: Exporter, f: Frame) -> str:
    """A frame as the page's script draws it (the page shows this one until its script runs)."""
    def block(ixs: list[int]) -> str:
        return "\n".join(_line_html(ex.store, i) for i in ixs)

    return (
        '<div id="t-title" class="ttl">%s</div>'
        '<div class="top"><pre id="t-board" class="board">%s</pre><pre id="t-seats" class="seats">%s</pre></div>'
        '<pre id="t-middle" class="mid">%s</pre>'
        '<div class="loghead"><span class="hdr">Event log</span> <span class="dim">(newest first)</span></div>'
        '<pre id="t-log" class="log">%s</pre>'
        '<pre id="t-entry" class="entry">%s</pre><pre id="t-status" class="status">%s</pre>'
    ) % (_line_html(ex.store, f.title), block(f.board), block(f.seats), block(f.middle), block(f.log),
         _line_html(ex.store, f.entry), _line_html(ex.store, f.status))


def export(log_path: str, out: str, seat: int | None) -> None:
    """``easel export``: write the page for ``log_path`` to ``out`` ("-": standard output)."""
    data = read_file(log_path)
    if out != "-":
        try:
            same = Path(out).resolve() == Path(log_path).resolve()
        except OSError:
            same = False
        if same:
            raise UsageError("--html %s would overwrite the log itself: choose another file" % out)
    page = build_page(log_path, data, seat)
    if out == "-":
        sys.stdout.write(page)
        return
    try:
        Path(out).write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (out, exc.strerror or exc)) from None
    print("easel: wrote %s (%d KB, %d entries): open it in any browser" % (out, (len(page.encode()) + 1023) // 1024,
                                                                         len(parse_log(data).entries)), file=sys.stderr)


# --------------------------------------------------------------------------- the page's HTML, CSS and script
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="easel @@VERSION@@ (easel export)">
<link rel="icon" href="data:,">
<title>@@TITLE@@</title>
<style>
:root{--fg:#d0d0d0;--bg:#1c1c1c;--page:#f4f1ea;--ink:#222;--ok:#0a7d3b;--warn:#9a6a00;--bad:#b3261e}
*{box-sizing:border-box}
body{margin:0;background:var(--page);color:var(--ink);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header{padding:10px 18px 4px}
h1{font-size:21px;margin:0}
.sub{color:#555;font-size:13px;margin:2px 0 0}
main{display:flex;flex-wrap:wrap;gap:14px;padding:8px 18px 18px;align-items:flex-start}
.player{flex:1 1 760px;min-width:0}
aside{flex:0 1 380px;min-width:280px;font-size:13.5px}
nav{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:0 0 8px}
nav button{font:inherit;font-size:14px;padding:3px 10px;border:1px solid #999;border-radius:5px;background:#fff;cursor:pointer;min-width:2.4em}
nav button:hover{background:#eee}
nav input[type=range]{flex:1 1 200px;min-width:140px}
#pos{font-variant-numeric:tabular-nums;min-width:9.5em;text-align:right;font-size:13px;color:#333}
.term{background:var(--bg);color:var(--fg);border-radius:7px;padding:8px 10px 10px;overflow-x:auto;
  font:13px/1.3 "DejaVu Sans Mono","Cascadia Mono",Menlo,Consolas,"Liberation Mono",monospace;box-shadow:0 2px 8px rgba(0,0,0,.25)}
.term pre{margin:0;font:inherit;white-space:pre}
.ttl{background:var(--fg);color:var(--bg);font-weight:bold;white-space:pre;overflow:hidden;text-overflow:ellipsis;margin:0 -4px 6px;padding:0 4px}
.top{display:flex;gap:2ch;align-items:flex-start;margin-bottom:6px}
.board{flex:0 0 auto;min-width:@@BOARDW@@ch}
.board:empty{display:none}
.mid{border-top:1px solid #444;padding-top:4px;margin-top:2px}
.loghead{border-top:1px solid #444;margin-top:6px;padding-top:3px}
.hdr{font-weight:bold;text-decoration:underline}.dim{color:#8a8a8a}
.log{color:#bdbdbd}
.term pre.entry{border-top:1px solid #444;margin-top:6px;padding-top:4px;white-space:pre-wrap;padding-left:2ch;text-indent:-2ch}
.term pre.status{white-space:pre-wrap;padding-left:2ch;text-indent:-2ch}
.card{background:#fff;border:1px solid #d8d2c4;border-radius:7px;padding:9px 12px;margin:0 0 10px}
.card h2{font-size:15px;margin:0 0 6px}
.verdict{font-weight:bold;padding:6px 9px;border-radius:5px;color:#fff}
.verdict.ok{background:var(--ok)}.verdict.warn{background:var(--warn)}.verdict.bad{background:var(--bad)}
p.bad,.problems{color:var(--bad)}
table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:2px 6px 2px 0;vertical-align:top}
th{font-weight:600;color:#555;font-size:12.5px;white-space:nowrap}
.fp,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px;word-break:break-all}
tr.me td{font-weight:bold}
kbd{font:12px "DejaVu Sans Mono",monospace;border:1px solid #bbb;border-bottom-width:2px;border-radius:3px;padding:0 4px;background:#fafafa}
.keys td:first-child{white-space:nowrap}
footer{padding:0 18px 16px;color:#666;font-size:12.5px}
@@CSS@@
</style>
</head>
<body>
<header>
<h1>@@H1@@</h1>
<p class="sub" id="sub">@@SUB@@</p>
@@LINKS@@
</header>
<main>
<section class="player" aria-label="replay">
<nav>
<button id="b-first" title="the first entry (Home)">&laquo; first</button>
<button id="b-pmark" title="the previous @@MARK@@ (Up)">&lsaquo; @@MARK@@</button>
<button id="b-prev" title="one entry back (Left)">&lsaquo; entry</button>
<button id="b-play" title="play / pause (Space)">play</button>
<button id="b-next" title="one entry on (Right)">entry &rsaquo;</button>
<button id="b-nmark" title="the next @@MARK@@ (Down)">@@MARK@@ &rsaquo;</button>
<button id="b-last" title="the last entry (End)">last &raquo;</button>
<input id="slider" type="range" min="0" max="@@LAST@@" value="@@START@@" step="1" aria-label="entry">
<span id="pos">entry @@START@@ of @@LAST@@</span>
</nav>
<div class="term" id="term">@@STATIC@@</div>
@@REPLAYERR@@
<noscript><p>Without JavaScript this page shows the last entry only.</p></noscript>
</section>
<aside>
<div class="card">
<h2>Audit</h2>
<div class="verdict @@VCLASS@@" id="verdict">@@VERDICT@@</div>
@@PROBLEMS@@
<table>
<tr><th>entries</th><td>@@EVENTS@@ checked</td></tr>
<tr><th>head</th><td class="mono" title="the hash of the last entry: every copy of this game's log ends in it">@@HEAD@@</td></tr>
</table>
@@NOTES@@
</div>
<div class="card">
<h2>Seat keys</h2>
<table id="keys"><tr><th>seat</th><th>key fingerprint</th><th>place</th></tr>@@KEYROWS@@</table>
<p class="sub">Compare each fingerprint with the one its player's <kbd>easel</kbd> shows in its title bar.</p>
</div>
<div class="card">
<h2>Check it yourself</h2>
<p>This page was made by <kbd>easel export</kbd> and carries the game's signed log.
Save it and run <kbd>easel audit @@LOGNAME@@</kbd>: the verdict and the head above must come out the same
(a page can be edited; the signatures in the log cannot be forged).</p>
<button id="b-save">save the signed log</button>
</div>
<div class="card keys">
<h2>Keys</h2>
<table>
<tr><td><kbd>&#x2190;</kbd> <kbd>&#x2192;</kbd></td><td>one entry back / on</td></tr>
<tr><td><kbd>&#x2191;</kbd> <kbd>&#x2193;</kbd></td><td>previous / next @@MARK@@</td></tr>
<tr><td><kbd>Home</kbd> <kbd>End</kbd></td><td>first / last entry</td></tr>
<tr><td><kbd>Space</kbd></td><td>play / pause</td></tr>
</table>
<p class="sub">The address ends in #N for entry N: send it to point at a moment.</p>
</div>
</aside>
</main>
<footer>Made with easel @@VERSION@@. One self-contained file: nothing is fetched from anywhere.</footer>
<script type="application/json" id="easel-data">@@DATA@@</script>
<script>
@@SCRIPT@@
</script>
</body>
</html>
"""

SCRIPT = r"""(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("easel-data").textContent);
  var L = D.lines, F = D.frames, N = F.length, cur = N - 1, timer = null;
  var $ = function (id) { return document.getElementById(id); };
  function esc(t) { return t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  function line(i) {
    var l = L[i], h = "";
    for (var k = 0; k < l.length; k += 2) {
      h += l[k] === 0 ? esc(l[k + 1]) : '<span class="s' + l[k] + '">' + esc(l[k + 1]) + "</span>";
    }
    return h;
  }
  function block(ids) { var h = []; for (var k = 0; k < ids.length; k++) h.push(line(ids[k])); return h.join("\n"); }
  function show(n) {
    n = Math.max(0, Math.min(N - 1, n | 0));
    cur = n;
    var f = F[n];
    $("t-title").innerHTML = line(f[0]);
    $("t-board").innerHTML = block(f[1]);
    $("t-seats").innerHTML = block(f[2]);
    $("t-middle").innerHTML = block(f[3]);
    $("t-log").innerHTML = block(f[4]);
    $("t-entry").innerHTML = line(f[5]);
    $("t-status").innerHTML = line(f[6]);
    $("slider").value = n;
    $("pos").textContent = "entry " + n + " of " + (N - 1);
    if (history.replaceState) { try { history.replaceState(null, "", "#" + n); } catch (e) {} }
  }
  function nextMark() { for (var n = cur + 1; n < N; n++) if (F[n][7]) return show(n); show(N - 1); }
  function prevMark() { for (var n = cur - 1; n > 0; n--) if (F[n][7]) return show(n); show(0); }
  function stop() { if (timer) { clearInterval(timer); timer = null; } $("b-play").textContent = "play"; }
  function play() {
    if (timer) return stop();
    if (cur >= N - 1) show(0);
    $("b-play").textContent = "pause";
    timer = setInterval(function () { if (cur >= N - 1) stop(); else show(cur + 1); }, 350);
  }
  function step(fn) { return function () { stop(); fn(); }; }
  $("b-first").onclick = step(function () { show(0); });
  $("b-prev").onclick = step(function () { show(cur - 1); });
  $("b-next").onclick = step(function () { show(cur + 1); });
  $("b-last").onclick = step(function () { show(N - 1); });
  $("b-pmark").onclick = step(prevMark);
  $("b-nmark").onclick = step(nextMark);
  $("b-play").onclick = play;
  $("slider").oninput = function () { stop(); show(+this.value); };
  $("b-save").onclick = function () {
    var bin = atob(D.log_b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([bytes], {type: "application/octet-stream"}));
    a.download = D.log_name || "game.log";
    document.body.appendChild(a); a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  };
  var keys = {
    ArrowLeft: function () { show(cur - 1); }, ArrowRight: function () { show(cur + 1); },
    ArrowUp: prevMark, ArrowDown: nextMark, Home: function () { show(0); }, End: function () { show(N - 1); },
    h: function () { show(cur - 1); }, l: function () { show(cur + 1); }, p: prevMark, n: nextMark,
    g: function () { show(0); }, G: function () { show(N - 1); }
  };
  window.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === " " && ev.target.tagName !== "BUTTON") { ev.preventDefault(); play(); return; }
    var fn = keys[ev.key];
    if (fn) { ev.preventDefault(); stop(); fn(); }
  }, true);
  var m = /^#(\d+)$/.exec(location.hash);
  show(m ? +m[1] : D.start);   // the first move, not the genesis's empty board
})();
"""
