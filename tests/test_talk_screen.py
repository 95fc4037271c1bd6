"""What people see of table talk on the game screen (protocol.md §9.11): the key-help line names the talk key
where it fits; a long line, an emoji or wide CJK text wrap and cut by the columns a terminal gives them, never
past the pane's edge (the layout stays whole). Checked by hand too in tmux at 100×30 and 120×40 with a real
2-seat table on loopback (easel host + easel join)."""

from __future__ import annotations

from prompt_toolkit.output import DummyOutput

from cli.screens.text import cut_line, text_width, width_of, wrap
from cli.shell import GameUI, with_say_key

from .test_ui import Net

CJK = "🎨🎨 great sheet! 幸運を祈ります、ボブさん。この線は長いです、とても長い日本語の文です。もっと長く、もっと長く、画面の幅を超えるまで続けます。😀 done"


def _help(ui: GameUI, cols: int) -> str:
    return "".join(t for _, t in ui._pane_help(cols))


def test_the_key_help_line_names_the_talk_key_where_it_fits():
    net = Net(2, {"rounds": 1})
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    assert '" say' not in _help(ui, 100)            # nobody to talk to (no table behind the screen): not named
    ui.on_say = lambda text: ""
    for cols in (100, 120):
        line = _help(ui, cols)
        assert '" say | help' in line and len(line) <= cols, (cols, line)
    assert '" say' not in _help(ui, 40) and len(_help(ui, 70)) <= 70
    assert with_say_key("bid N | pass | help | q") == 'bid N | pass | " say | help | q'
    assert with_say_key("bid N | pass") == 'bid N | pass | " say'
    # a spectator cannot talk: its line has no talk key
    spectator = GameUI(None, output=DummyOutput())
    spectator.update(net.table, [], "")
    spectator.on_say = lambda text: ""
    assert '" say' not in _help(spectator, 120)


def test_wide_text_wraps_and_cuts_by_terminal_columns():
    assert text_width("幸運") == 4 and text_width("🎨a") == 3 and text_width("abc") == 3
    line = [("class:log", ">   "), ("class:log.talk", "Ann: " + CJK)]
    for width in (40, 60, 96, 116):
        rows = wrap(line, width, "      ")
        assert all(width_of(r) <= width for r in rows), [(width_of(r), r) for r in rows]
        assert "".join(t for r in rows for _, t in r).replace(" ", "") == (">   Ann: " + CJK).replace(" ", "")
        cut = cut_line(line, width)
        assert width_of(cut) <= width and cut[-1][1] == " ..." and len(cut) >= 2
    assert cut_line([("", "short")], 10) == [("", "short")]


def test_the_screen_shows_a_wide_line_whole_in_the_log_and_cut_in_latest():
    net = Net(2, {"rounds": 1})
    ui = GameUI(1, output=DummyOutput())
    ui._cols = lambda: 100
    ui.update(net.table, [], "", talk=[{"seat": 0, "seq": 1, "phase": 1, "text": CJK, "placed": False}])
    lines = ui._middle_lines(100, height=8)         # a short pane: the newest lines on top too ("Latest")
    texts = ["".join(t for _, t in ln) for ln in lines]
    assert all(width_of(ln) <= 100 for ln in lines), [t for t, ln in zip(texts, lines) if width_of(ln) > 100]
    latest = texts.index(next(t for t in texts if t.startswith("Latest")))
    assert texts[latest + 1].startswith(">   seat 0: 🎨🎨 great sheet! 幸運") and texts[latest + 1].endswith(" ...")
    at = texts.index(next(t for t in texts[latest + 2:] if "seat 0: 🎨🎨" in t))
    assert "done" in " ".join(texts[at:at + 4])        # the log below holds it whole, wrapped
