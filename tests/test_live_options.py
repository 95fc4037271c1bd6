"""cli/options.py: every live command reads its options from one typed LiveArgs, built once from argparse."""

from __future__ import annotations

import dataclasses

import pytest

from cli.main import build_parser, parse
from cli.options import LiveArgs, check_bind, check_host_args, parse_fellows

# a command line of each live command, with every option it takes given a value that is not its default
LIVE_COMMANDS = {
    "play": ["play", "--game", "painting", "--players", "3", "--edition", "e", "--option", "rounds=2", "--level", "easy",
             "--timeout", "30", "--send-at-once", "--name", "Ann", "--no-spectators"],
    "host": ["host", "--game", "painting", "--players", "3", "--bots", "2", "--port", "4000", "--auto", "easy",
             "--seed", "s", "--unsafe-seed", "--bind", "127.0.0.1", "--no-advertise", "--name", "Ann", "--no-spectators",
             "--send-at-once", "--option", "rounds=2", "--level", "easy", "--timeout", "30"],
    "join": ["join", "10.0.0.1:4000", "--wait", "1", "--pick", "2", "--send-at-once", "--name", "Bo", "--no-spectators"],
    "bot": ["bot", "--join", "10.0.0.1:4000", "--level", "easy", "--seed", "s", "--unsafe-seed", "--name", "bot 3",
            "--again", "--no-spectators", "--bind", "10.0.0.2", "--fellows", "ab"],
    "resume": ["resume", "last", "--level", "easy", "--send-at-once", "--no-spectators", "--seed", "s", "--unsafe-seed",
               "--fellows", "ab"],
    "again": ["again", "last", "--level", "easy", "--decline", "--no-spectators", "--send-at-once"],
    "watch": ["watch", "10.0.0.1:4000", "--wait", "1", "--pick", "2", "--json", "--log", "out.log"],
    "demo": ["demo", "--game", "painting", "--players", "3", "--seed", "s", "--out", "d", "--json", "--timeout", "30"],
}
ARGPARSE_OWN = {"cmd", "verbose", "_commands"}


@pytest.mark.parametrize("cmd", sorted(LIVE_COMMANDS))
def test_every_option_of_a_live_command_is_a_typed_field_and_keeps_its_value(cmd):
    """An option added to a live command's parser but not to LiveArgs would be dropped silently: fail here."""
    parsed = parse(build_parser(), LIVE_COMMANDS[cmd])
    given = {k: v for k, v in vars(parsed).items() if k not in ARGPARSE_OWN}
    names = {f.name for f in dataclasses.fields(LiveArgs)}
    assert not set(given) - names, "options of easel %s that LiveArgs lacks: %s" % (cmd, sorted(set(given) - names))
    args = LiveArgs.of(parsed)
    assert args.cmd == cmd
    for key, value in given.items():
        assert getattr(args, key) == value, key


def test_an_option_a_command_does_not_take_has_its_default():
    args = LiveArgs.of(parse(build_parser(), ["watch", "10.0.0.1:4000"]))
    assert args.bots == 0 and args.port == 0 and args.auto is None and args.fellows is None and args.picked is None
    assert args.patience == LiveArgs().patience > 0 and args.where is None and args.previous is None


def test_the_checks_refuse_in_one_line():
    with pytest.raises(Exception, match=r"--bots must be between 0 and 2 \(players-1\), not 3"):
        check_host_args(LiveArgs(cmd="host", players=3, bots=3, timeout=30))
    with pytest.raises(Exception, match="--port must be 0"):
        check_host_args(LiveArgs(cmd="host", players=3, port=70000, timeout=30))
    with pytest.raises(Exception, match="--timeout must be 1..86400 seconds, not 0"):
        check_host_args(LiveArgs(cmd="host", players=3, timeout=0))
    with pytest.raises(Exception, match="--bind takes an IP address, not 'here'"):
        check_bind("here")
    assert parse_fellows(None) is None and parse_fellows("ab" * 32) == {b"\xab" * 32}
    with pytest.raises(Exception, match="32-byte seat keys"):
        parse_fellows("abcd")


def test_the_alone_patience_is_the_default_unless_a_test_sets_a_sane_one(monkeypatch, caplog):
    """EASEL_ALONE_PATIENCE=SAY,GIVE_UP (protocol.md §9.7) shortens a resumed seat's patience alone for tests;
    unset or anything that is not 0 < SAY < GIVE_UP <= 3600 keeps ALONE_SAY / ALONE_GIVE_UP, with a warning."""
    from cli.resuming import ALONE_ENV, ALONE_GIVE_UP, ALONE_SAY, alone_patience

    monkeypatch.delenv(ALONE_ENV, raising=False)
    assert alone_patience() == (ALONE_SAY, ALONE_GIVE_UP) == (5.0, 30.0)
    monkeypatch.setenv(ALONE_ENV, " 2, 5.5 ")
    assert alone_patience() == (2.0, 5.5)
    for bad in ("5", "5,2", "0,1", "-1,3", "1,4000", "a,b", "1,2,3", "nan,5", "1,inf"):
        monkeypatch.setenv(ALONE_ENV, bad)
        caplog.clear()
        assert alone_patience() == (ALONE_SAY, ALONE_GIVE_UP), bad
        assert ALONE_ENV in caplog.text, bad


def test_a_hosts_bot_waits_bot_alone_unless_a_test_sets_a_sane_patience(monkeypatch, caplog):
    """EASEL_BOT_ALONE=SECONDS (protocol.md §9.7) is one number in (0, 3600]; anything else keeps BOT_ALONE."""
    from cli.bots import BOT_ALONE, BOT_ALONE_ENV
    from cli.common import env_patience

    monkeypatch.delenv(BOT_ALONE_ENV, raising=False)
    assert env_patience(BOT_ALONE_ENV, (BOT_ALONE,)) == (15.0,)
    monkeypatch.setenv(BOT_ALONE_ENV, "4")
    assert env_patience(BOT_ALONE_ENV, (BOT_ALONE,)) == (4.0,)
    for bad in ("4,5", "0", "-4", "3601", "four", ""):
        monkeypatch.setenv(BOT_ALONE_ENV, bad)
        caplog.clear()
        assert env_patience(BOT_ALONE_ENV, (BOT_ALONE,)) == (BOT_ALONE,), bad
        assert (BOT_ALONE_ENV in caplog.text) == (bad != ""), bad
