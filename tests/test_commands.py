"""The command line, read (cli/commands.py): the shell's own words first, then the screen's, and a word
found nowhere named as unknown with the commands there are."""

from __future__ import annotations

from cli.commands import SHELL_HELP, Command, read_line

SCREEN = {"bid": "bid", "b": "bid", "splash": "splash", "s": "splash", "n": "next"}


def test_an_empty_line_sends_the_draft_and_the_submit_words_submit():
    assert read_line("", SCREEN, False) == Command("enter")
    assert read_line("   ", SCREEN, False).kind == "enter"
    for word in ("submit", "send", "OK", "go"):
        assert read_line(word, SCREEN, False) == Command("submit"), word


def test_the_shell_words_come_before_the_screens_and_ignore_case():
    assert read_line("Q", SCREEN, False) == Command("quit")
    assert read_line("exit now", SCREEN, False) == Command("quit")         # quit takes no notice of the rest
    assert read_line("?", SCREEN, False) == Command("help")
    assert read_line("help me", SCREEN, False) == Command("help")
    assert read_line("again", SCREEN, True) == Command("again")


def test_again_and_no_are_words_of_their_own_only_alone_and_no_only_at_game_over():
    assert read_line("a", SCREEN, False) == Command("again")               # the UI says it is not over yet
    assert read_line("a 3", {"a": "add"}, False) == Command("screen", "add", ("3",))
    assert read_line("n", SCREEN, True) == Command("decline")
    assert read_line("n", SCREEN, False) == Command("screen", "next", ())  # mid-game: the screen's word
    assert read_line("no thanks", SCREEN, True).kind == "unknown"


def test_a_screen_command_gives_its_canonical_name_and_the_words_after_it():
    assert read_line("b 3 12", SCREEN, False) == Command("screen", "bid", ("3", "12"))
    assert read_line("  SPLASH 2 3 r ", SCREEN, False) == Command("screen", "splash", ("2", "3", "r"))


def test_an_unknown_word_names_every_command_once():
    line = read_line("paint 1", SCREEN, False)
    assert line.kind == "unknown" and not line.name
    assert line.error == "unknown command 'paint'; commands: bid, splash, next, submit, help"


def test_the_help_rows_name_every_shell_word_a_player_types():
    keys = " ".join(k for k, _ in SHELL_HELP)
    for word in ("help", "?", "q", "a", "again", "n", "no"):
        assert word in keys.replace(",", " ").split(), word
