"""Easel's functional core: no I/O, no clock, no threads, no ambient randomness."""
