"""What the Starving Artists screen reads: colours, cubes and placements as a player types them, the
commands made into actions (``parse_action``), and the suggestions it offers (a payment, the most
squares to paint, the game's best collection).  Suggestions, never rules: legality always comes
from the game (ctx.check / ctx.problems)."""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from core.games.starving_artists.rules import least_needed

from ..base import CommandError, Context
from .drawing import COLOURS, _short_title

NAMES = {"R": "red", "O": "orange", "Y": "yellow", "G": "green", "B": "blue", "P": "purple",
         "K": "black", "W": "wild"}
_WORDS = {name: c for c, name in NAMES.items()}
_WORDS.update({"clear": "W", "reds": "R", "oranges": "O", "yellows": "Y", "greens": "G", "blues": "B",
               "purples": "P", "blacks": "K", "wilds": "W"})


def parse_colour(word: str) -> str:
    """A colour letter from a letter or a word ("r", "Red", "clear") ; CommandError if it is none."""
    w = str(word).strip().lower()
    if len(w) == 1 and w.upper() in COLOURS:
        return w.upper()
    if w in _WORDS:
        return _WORDS[w]
    raise CommandError("%r is not a colour: use R red, O orange, Y yellow, G green, B blue, P purple, "
                       "K black or W wild" % word)


def parse_cubes(words: Sequence[str], what: str = "cubes") -> dict:
    """``["2B", "1R"]`` / ``["BBR"]`` / ``["B2", "R"]`` / ``["2", "blue", "red"]`` -> {"B": 2, "R": 1}."""
    tokens = [t for w in words for t in re.split(r"[\s,+;]+", str(w)) if t]
    if not tokens:
        raise CommandError("say which %s, e.g. 2B 1R or BBR" % what)
    out: dict[str, int] = {}
    count: int | None = None
    for tok in tokens:
        if tok.isdigit():
            if count is not None:
                raise CommandError("%s: two numbers in a row (%s)" % (what, tok))
            count = int(tok)
            continue
        m = re.fullmatch(r"(\d+)([A-Za-z]+)", tok) or None
        n = None
        word = tok
        if m:
            n, word = int(m.group(1)), m.group(2)
        else:
            m = re.fullmatch(r"([A-Za-z])(\d+)", tok)
            if m:
                word, n = m.group(1), int(m.group(2))
        if n is not None and count is not None:
            raise CommandError("%s: two numbers for one colour (%s)" % (what, tok))
        if n is None:
            n, count = count, None
        if word.lower() in _WORDS:
            letters = [_WORDS[word.lower()]]
        elif all(ch in COLOURS for ch in word.upper()):
            letters = list(word.upper())
        else:
            raise CommandError("%s: %r is not a colour (R red, O orange, Y yellow, G green, B blue, P purple, "
                               "K black, W wild), e.g. 2B 1R or BBR" % (what, tok))
        if n is not None:
            if len(letters) != 1:
                raise CommandError("%s: %r - write a number before one colour, like 2B" % (what, tok))
            if n < 1:
                raise CommandError("%s: a count must be 1 or more, not %d" % (what, n))
            out[letters[0]] = out.get(letters[0], 0) + n
        else:
            for c in letters:
                out[c] = out.get(c, 0) + 1
    if count is not None:
        raise CommandError("%s: the number %d has no colour after it" % (what, count))
    return {c: out[c] for c in COLOURS if out.get(c)}


def _canvas_ref(word: str, mine: Sequence[dict]) -> int:
    """A canvas number as on the screen (1..n) or #ID -> the card id."""
    w = str(word).strip()
    if w.startswith("#"):
        try:
            cid = int(w[1:])
        except ValueError:
            raise CommandError("%r: #ID wants a card id, like #12" % word) from None
        if not any(c["id"] == cid for c in mine):
            raise CommandError("you have no canvas #%d%s" % (cid, _yours(mine)))
        return cid
    if not w.isdigit():
        raise CommandError("%r is not a canvas number%s" % (word, _yours(mine)))
    n = int(w)
    if not 1 <= n <= len(mine):
        if not mine:
            raise CommandError("you have no canvases yet: buy one from the market (buy SLOT)")
        raise CommandError("there is no canvas %d%s" % (n, _yours(mine)))
    return mine[n - 1]["id"]


def _yours(mine: Sequence[dict]) -> str:
    if not mine:
        return " (you have no canvases yet)"
    return " (yours: %s)" % ", ".join("%d %s" % (i + 1, _short_title(c["card"]["title"], 18)) for i, c in enumerate(mine))


def parse_paint(words: Sequence[str], mine: Sequence[dict]) -> list[list]:
    """``["1", "3", "R", "4", "B"]`` -> [[id, 3, "R"], [id, 4, "B"]] (canvas numbers as on screen)."""
    tokens = [t for w in words for t in re.split(r"[\s,;:/]+", str(w)) if t]
    if not tokens:
        raise CommandError("usage: paint CANVAS SQUARE COLOUR [...], e.g. paint 1 3 R (or paint auto)")
    out: list[list] = []
    cur: int | None = mine[0]["id"] if len(mine) == 1 else None
    i = 0
    while i < len(tokens):
        rest = tokens[i:]
        if len(rest) >= 3 and _numlike(rest[0]) and rest[1].isdigit() and _is_colour(rest[2]):
            cur = _canvas_ref(rest[0], mine)
            sq, col = int(rest[1]), parse_colour(rest[2])
            i += 3
        elif len(rest) >= 2 and rest[0].isdigit() and _is_colour(rest[1]):
            if cur is None:
                raise CommandError("say which canvas first: paint CANVAS SQUARE COLOUR, e.g. paint 1 %s %s"
                                   % (rest[0], rest[1]))
            sq, col = int(rest[0]), parse_colour(rest[1])
            i += 2
        else:
            bad = next((t for t in rest[:3] if not _numlike(t) and not _is_colour(t)), None)
            raise CommandError("cannot read %r%s: paint CANVAS SQUARE COLOUR [...], e.g. paint 1 3 R 1 4 B "
                               "(colours: R O Y G B P K W)" % (" ".join(rest), " (%r is neither a number nor a colour)"
                                                               % bad if bad else ""))
        out.append([cur, sq, col])
    if len(out) > 4:
        raise CommandError("a paint action places at most 4 cubes, not %d" % len(out))
    return out


def _is_colour(tok: str) -> bool:
    try:
        parse_colour(tok)
    except CommandError:
        return False
    return True


def _numlike(tok: str) -> bool:
    return tok.isdigit() or (tok.startswith("#") and tok[1:].isdigit())


# --------------------------------------------------------------------------- suggestions (not rules)


def _counts(cubes: Mapping[str, int] | None) -> list[int]:
    return [(cubes or {}).get(c, 0) for c in COLOURS]


def _want(view: dict, seat: int, extra_cards: Sequence[dict] = ()) -> list[int]:
    """Cubes per colour the seat's empty squares ask for (a diamond counts for both colours)."""
    want = [0] * 8
    for c in view["canvases"][seat]:
        for sq, f in zip(c["card"]["squares"], c["filled"]):
            if f is None:
                for ch in sq:
                    want[COLOURS.index(ch)] += 1
    for card in extra_cards:
        for sq in card["squares"]:
            for ch in sq:
                want[COLOURS.index(ch)] += 1
    return want


def suggest_pay(studio: Mapping[str, int], n: int, want: Sequence[int]) -> dict:
    """n cubes the seat needs least: colours no canvas asks for first, then the most surplus; wilds last.

    Fewer than n when the studio is short (the game then says why it cannot be paid)."""
    out = least_needed(_counts(studio), n, want)
    return {COLOURS[i]: k for i, k in enumerate(out) if k}


def suggest_paint(view: dict, seat: int) -> list[list]:
    """Up to 4 placements: canvases closest to complete first, exact colours (a diamond takes the colour
    you have more of), and a wild only for the last square of a canvas that has no wild yet."""
    have = _counts(view["studios"][seat])
    out: list[list] = []
    canvases = sorted(view["canvases"][seat], key=lambda c: sum(1 for f in c["filled"] if f is None))
    for c in canvases:
        empty = [i for i, f in enumerate(c["filled"]) if f is None]
        squares = c["card"]["squares"]
        placed = 0
        for i in sorted(empty, key=lambda i: len(squares[i])):   # one-colour squares before diamonds
            if len(out) >= 4:
                return out
            opts = [ch for ch in squares[i] if have[COLOURS.index(ch)] > 0]
            if not opts:
                continue
            ch = max(opts, key=lambda x: have[COLOURS.index(x)])
            have[COLOURS.index(ch)] -= 1
            out.append([c["id"], i, ch])
            placed += 1
        left = [i for i in empty if not any(p[0] == c["id"] and p[1] == i for p in out)]
        if len(left) == 1 and "W" not in c["filled"] and have[7] > 0 and len(out) < 4:
            have[7] -= 1
            out.append([c["id"], left[0], "W"])
    return out


# --------------------------------------------------------------------------- commands into actions


def parse_action(ctx: Context, v: dict, name: str, args: list[str], commands: Mapping[str, str]) -> tuple[dict, str]:
    """(action, why) - ``why`` is non-empty when the screen chose part of it (a suggestion)."""
    me = ctx.seat
    low = [a.lower() for a in args]
    if name in ("work", "buy", "paint", "trade", "reset", "study", "offer") and "then" in low:
        k = low.index("then")
        main_args, free_args = args[:k], args[k + 1:]
        if name not in ("work", "buy", "paint"):
            raise CommandError("'%s then ...': only a main action (work, buy, paint) takes a free action "
                               "after it; send %s on its own first, then your main action" % (name, name))
        if not free_args:
            raise CommandError("then what? e.g. work then trade BB for R")
        fname = commands.get(free_args[0].lower())
        if fname not in ("trade", "reset", "study", "offer"):
            raise CommandError("after 'then' comes a free action: trade, reset, study or offer - not %r"
                               % free_args[0])
        main, why1 = _parse_one(ctx, v, me, name, main_args)
        free, why2 = _parse_one(ctx, v, me, fname, free_args[1:])
        main = dict(main, then=free)
        return main, " and ".join(w for w in (why1, why2) if w)
    return _parse_one(ctx, v, me, name, args)


def _parse_one(ctx: Context, v: dict, me: int, name: str, args: list[str]) -> tuple[dict, str]:
    low = [a.lower() for a in args]
    mine = v["canvases"][me]
    if name == "work":
        if args:
            raise CommandError("work takes no arguments (it draws 3 cubes from the bag)")
        return {"do": "work"}, ""
    if name == "buy":
        if not args or not args[0].isdigit():
            raise CommandError("usage: buy SLOT [pay CUBES], e.g. buy 2 pay OB (slots 1, 2, 3)")
        slot = int(args[0])
        if not 1 <= slot <= 3:
            raise CommandError("the canvas market has slots 1, 2 and 3, not %d" % slot)
        rest = args[1:]
        if rest and rest[0].lower() == "pay":
            rest = rest[1:]
            if not rest:
                raise CommandError("pay what? e.g. buy %d pay %s" % (slot, "B" * v["market_costs"][slot - 1]))
        if rest:
            return {"do": "buy", "slot": slot, "pay": parse_cubes(rest, "pay")}, ""
        card = v["market"][slot - 1]
        cost = v["market_costs"][slot - 1]
        pay = suggest_pay(v["studios"][me], cost, _want(v, me, [card] if card else []))
        return {"do": "buy", "slot": slot, "pay": pay}, "the cubes you need least"
    if name == "paint":
        if low in (["auto"], ["a"], ["best"]):
            place = auto_paint(ctx, v, me)
            if not place:
                raise CommandError("nothing to paint: none of your cubes fits an empty square of your canvases")
            return {"do": "paint", "place": place}, "the most squares you can fill"
        return {"do": "paint", "place": parse_paint(args, mine)}, ""
    if name in ("trade", "offer"):
        if "for" not in low:
            raise CommandError("usage: %s GIVE for TAKE, e.g. %s BB for R" % (name, name))
        k = low.index("for")
        take = parse_cubes(args[k + 1:], "take")
        if k == 0 and name == "trade":
            n = sum(take.values())
            give_n = {1: 2, 2: 5, 3: 9}.get(n)
            if give_n is None:
                raise CommandError("the Paint Market gives 1, 2 or 3 cubes (for 2, 5 or 9), not %d" % n)
            give = suggest_pay(v["studios"][me], give_n, _want(v, me))
            return {"do": "trade", "give": give, "take": take}, "the cubes you need least"
        give = parse_cubes(args[:k], "give")
        return {"do": name, "give": give, "take": take}, ""
    if name == "reset":
        rest = args[1:] if args and low[0] == "pay" else args
        if rest:
            return {"do": "reset", "pay": parse_cubes(rest, "pay")}, ""
        if args:
            raise CommandError("pay what? e.g. reset pay BK")
        return {"do": "reset", "pay": suggest_pay(v["studios"][me], 2, _want(v, me))}, \
            "the cubes you need least"
    if name == "study":
        if len(args) != 2:
            raise CommandError("usage: study GIVE TAKE - 4 cubes of colour GIVE for 1 of colour TAKE: study B R")
        return {"do": "study", "give": parse_colour(args[0]), "take": parse_colour(args[1])}, ""
    if name in ("sell", "supper"):
        return parse_sell(v, me, name, args), ""
    if name == "take":
        if low in (["best"], ["auto"]):
            best = best_take(ctx)
            if best is None:
                raise CommandError("there is nothing to collect now")
            return best, ""
        return {"do": "take", "cubes": parse_cubes(args, "take")}, ""
    if name in ("accept", "decline"):
        if args:
            raise CommandError("%s takes no arguments" % name)
        return {"do": "answer", "accept": name == "accept"}, ""
    if name == "diamonds":
        if not v.get("dusk"):
            raise CommandError("diamonds are chosen at the end of a solo day only")
        if not args or low in (["auto"], ["default"]):
            return {"do": "diamonds", "colours": list(v["dusk"]["default"])}, ""
        one = len(args) == 1 and len(args[0]) > 1 and args[0].lower() not in _WORDS
        cols = [parse_colour(a) for a in (list(args[0]) if one else args)]
        return {"do": "diamonds", "colours": cols}, ""
    raise CommandError("unknown command %r" % name)


def auto_paint(ctx: Context, v: dict, me: int) -> list[list]:
    """The best of the screen's suggestion and the game's own paint actions (most cubes, most completions)."""
    cands = [suggest_paint(v, me)]
    legal = ctx.legal() if ctx.deciding else None
    for a in legal or []:
        if isinstance(a, dict) and a.get("do") == "paint" and "then" not in a:
            cands.append([list(p) for p in a["place"]])
    empties = {c["id"]: sum(1 for f in c["filled"] if f is None) for c in mine_of(v, me)}

    def score(place: list) -> tuple:
        per: dict[int, int] = {}
        for cid, _, _ in place:
            per[cid] = per.get(cid, 0) + 1
        completes = sum(1 for cid, n in per.items() if empties.get(cid) == n)
        wilds = sum(1 for p in place if p[2] == "W")
        return (len(place), completes, -wilds)

    good = [p for p in cands if p and not ctx.problems({"do": "paint", "place": p})]
    if not good:
        return cands[0]
    return max(good, key=score)


def parse_sell(v: dict, me: int, name: str, args: list[str]) -> dict:
    mine = v["canvases"][me]
    low = [a.lower() for a in args]
    supper = None
    if name == "supper":
        if len(args) != 1:
            raise CommandError("usage: supper N - eat your complete canvas N (Last Supper)")
        return {"do": "sell", "canvases": [], "supper": _canvas_ref(args[0], mine)}
    if "supper" in low:
        k = low.index("supper")
        if len(args) != k + 2:
            raise CommandError("usage: sell N [N..] supper M")
        supper = _canvas_ref(args[k + 1], mine)
        args, low = args[:k], low[:k]
    if not args:
        if supper is not None:
            return {"do": "sell", "canvases": [], "supper": supper}
        raise CommandError("usage: sell N [N ..] (your canvas numbers), sell all, or sell none")
    if low in (["none"], ["nothing"], ["no"], ["0"]):
        ids: list[int] = []
    elif low == ["all"]:
        ids = [c["id"] for c in mine if c["complete"] and c["id"] != supper]
    else:
        ids = [_canvas_ref(a, mine) for a in args]
    return {"do": "sell", "canvases": ids, "supper": supper}


def best_take(ctx: Context) -> dict | None:
    if ctx.game is None or ctx.state is None or ctx.seat is None:
        return None
    try:
        action = ctx.game.default_action(ctx.state, ctx.seat)
    except Exception:
        return None
    return dict(action) if isinstance(action, dict) and action.get("do") == "take" else None


def mine_of(v: dict, me: int) -> list[dict]:
    return v["canvases"][me]
