"""Modern Art (Reiner Knizia): rules, cards and bots.

Deliberately no ``GAME`` here yet: the registry (core.games) registers every
subpackage exposing ``GAME``, and Modern Art must not be playable at a table
until the trustless deal is in place.  The game object is
``core.games.modern_art.game.MODERN_ART``; exposing it as ``GAME`` is the
one-line switch that registers the game.
"""
