"""Modern Art (Reiner Knizia): rules, cards, bots and the trustless deal.

The game object is ``core.games.modern_art.game.MODERN_ART``: the rules
(rules.py) wrapped in the mental-poker deal (dealt.py, core/deal.py).  It plays
through the real table with in-memory peers and passes the conformance suite
(tests/test_conformance.py, tests/test_private.py use it through their own
registries).  Deliberately no ``GAME`` here yet: the registry registers every
subpackage exposing ``GAME``, and the CLI's default game is the registry's
first name in sorted order ("modern-art" would come first and change
``easel play``/``demo`` without ``--game``), so registering waits for the CLI
to name its default explicitly.  Exposing ``GAME = MODERN_ART`` here is the
one-line switch.
"""
