"""A small VT100 terminal for tests: what a terminal shows after the bytes a program wrote to it.

Enough of a terminal for prompt-toolkit's full-screen output and for stray lines written under it:
printable text (one cell a character), carriage return, line feed (scrolling at the bottom),
backspace, autowrap (on by default; ``ESC [ ? 7 l`` turns it off) with the pending wrap at the last
column, the cursor moves ``CSI n A/B/C/D``, ``CSI r;c H``, the erases ``CSI J`` / ``CSI 2 J`` /
``CSI K``, the alternate screen ``CSI ? 1049 h/l`` (cleared on entry); colours, other modes and OSC
strings are read and ignored.  Used to check that what the terminal shows is what prompt-toolkit
meant to draw (its last screen), redraw after redraw.
"""

from __future__ import annotations

import re

_CSI = re.compile(r"\x1b\[([?>=]?)([0-9;]*)([ -/]*)([@-~])")
_OSC = re.compile(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)")


class Terminal:
    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.grid = [[" "] * cols for _ in range(rows)]
        self.y = self.x = 0
        self.wrap_next = False      # the last column was written: the next character wraps first
        self.autowrap = True
        self._rest = ""             # an escape sequence cut between two feeds

    # -- what it shows -------------------------------------------------------------
    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.grid]

    # -- input ---------------------------------------------------------------------
    def feed(self, data: str | bytes) -> None:
        if isinstance(data, bytes):
            data = data.decode("utf-8", errors="replace")
        s = self._rest + data
        self._rest = ""
        i, n = 0, len(s)
        while i < n:
            c = s[i]
            if c == "\x1b":
                m = _CSI.match(s, i)
                if m:
                    self._csi(m.group(1), m.group(2), m.group(4))
                    i = m.end()
                    continue
                m = _OSC.match(s, i)
                if m:
                    i = m.end()
                    continue
                if i + 1 >= n or (s[i + 1] in "[]" and not re.search(r"[@-~\x07]", s[i + 2:])):
                    self._rest = s[i:]          # cut: wait for the rest
                    return
                i += 2 if s[i + 1] in "=>()78DEM" else 1
                if s[i - 1] in "()" and i < n:
                    i += 1                      # ESC ( B: a charset, one more byte
                continue
            if c == "\r":
                self.x, self.wrap_next = 0, False
            elif c == "\n":
                self._down()
                self.wrap_next = False
            elif c == "\b":
                self.x, self.wrap_next = max(0, self.x - 1), False
            elif c == "\x07":
                pass
            elif c >= " ":
                self._put(c)
            i += 1

    def _put(self, c: str) -> None:
        if self.wrap_next and self.autowrap:
            self.x = 0
            self._down()
        self.wrap_next = False
        self.grid[self.y][self.x] = c
        if self.x == self.cols - 1:
            self.wrap_next = self.autowrap
        else:
            self.x += 1

    def _down(self) -> None:
        if self.y == self.rows - 1:
            self.grid.pop(0)
            self.grid.append([" "] * self.cols)
        else:
            self.y += 1

    def _csi(self, private: str, params: str, final: str) -> None:
        nums = [int(p) if p else 0 for p in params.split(";")] if params else []
        n = nums[0] if nums and nums[0] else 1
        if private == "?":
            on = final == "h"
            for p in nums:
                if p == 7:
                    self.autowrap = on
                elif p == 1049:
                    self.grid = [[" "] * self.cols for _ in range(self.rows)]
                    self.y = self.x = 0
            return
        if private:
            return
        self.wrap_next = False if final in "ABCDHfJK" else self.wrap_next
        if final == "A":
            self.y = max(0, self.y - n)
        elif final == "B":
            self.y = min(self.rows - 1, self.y + n)
        elif final == "C":
            self.x = min(self.cols - 1, self.x + n)
        elif final == "D":
            self.x = max(0, self.x - n)
        elif final in "Hf":
            r = nums[0] if len(nums) > 0 and nums[0] else 1
            col = nums[1] if len(nums) > 1 and nums[1] else 1
            self.y, self.x = min(self.rows, r) - 1, min(self.cols, col) - 1
        elif final == "J":
            mode = nums[0] if nums else 0
            if mode == 0:
                self.grid[self.y][self.x:] = [" "] * (self.cols - self.x)
                for r in range(self.y + 1, self.rows):
                    self.grid[r] = [" "] * self.cols
            elif mode == 2:
                self.grid = [[" "] * self.cols for _ in range(self.rows)]
        elif final == "K":
            mode = nums[0] if nums else 0
            if mode == 0:
                self.grid[self.y][self.x:] = [" "] * (self.cols - self.x)
            elif mode == 2:
                self.grid[self.y] = [" "] * self.cols
        # m (colours), and anything else: no change to the cells
