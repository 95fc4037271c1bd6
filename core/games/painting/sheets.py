"""Sheets of the Painting Game: generation and matching.

A sheet is a connected set of coloured cells that fits in a 4x4 box.  Cells
are ``(row, col, colour)`` with the colour one of R, B, Y (primaries) or P, O,
G (secondaries); coordinates are normalised so the smallest row and the
smallest column are 0, and the cells are kept sorted.

Generation (all randomness through ``core.rng.Rng``):

* n, the number of cells, is uniform in 2..6;
* the start cell is uniform in the 4x4 box;
* while the shape has fewer than n cells: list every in-box cell that is an
  orthogonal neighbour of the shape and not in it yet, sorted by (row, col),
  and add one of them chosen uniformly;
* then each cell, in (row, col) order, gets a colour uniform in R, B, Y, P, O, G;
* finally the shape is shifted so min row = min col = 0 and sorted.

Matching is by translation only: a sheet matches a grid if some shift puts
every coloured sheet cell on an in-bounds grid cell of exactly that colour.
White ("W") sheet cells are background and are ignored; generated sheets
never contain any.  A grid cell that is white or black ("K") never matches a
sheet cell, because sheet cells are never white or black.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from ...rng import Rng

__all__ = [
    "Sheet",
    "SHEET_COLOURS",
    "BOX",
    "MIN_CELLS",
    "MAX_CELLS",
    "GRID",
    "generate_sheet_cells",
    "generate_round",
    "normalise_cells",
    "match_offsets",
    "matches",
]

SHEET_COLOURS = ("R", "B", "Y", "P", "O", "G")
BOX = 4
MIN_CELLS = 2
MAX_CELLS = 6
GRID = 5

Cell = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class Sheet:
    id: int
    cells: tuple[Cell, ...]

    @property
    def size(self) -> int:
        """n: the number of coloured (non-white) cells."""
        return sum(1 for c in self.cells if c[2] != "W")

    def cells_list(self) -> list[list]:
        return [[r, c, col] for r, c, col in self.cells]


def normalise_cells(cells: Iterable[Sequence]) -> tuple[Cell, ...]:
    """Shift cells so min row = min col = 0 and sort them."""
    cells = [(int(r), int(c), str(col)) for r, c, col in cells]
    if not cells:
        return ()
    r0 = min(r for r, _, _ in cells)
    c0 = min(c for _, c, _ in cells)
    return tuple(sorted((r - r0, c - c0, col) for r, c, col in cells))


# the in-box orthogonal neighbours of every cell of the 4x4 box, by index r * BOX + c
_NEIGHBOURS = tuple(
    tuple((r + dr) * BOX + (c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if 0 <= r + dr < BOX and 0 <= c + dc < BOX)
    for r in range(BOX)
    for c in range(BOX)
)


def generate_sheet_cells(rng: Rng) -> tuple[Cell, ...]:
    n = rng.between(MIN_CELLS, MAX_CELLS)
    r0 = rng.below(BOX)
    c0 = rng.below(BOX)
    shape = {r0 * BOX + c0}
    while len(shape) < n:
        # candidates sorted by (row, col), i.e. by cell index
        frontier = sorted({j for i in shape for j in _NEIGHBOURS[i] if j not in shape})
        shape.add(frontier[rng.below(len(frontier))])
    coloured = [(i // BOX, i % BOX, SHEET_COLOURS[rng.below(len(SHEET_COLOURS))]) for i in sorted(shape)]
    return normalise_cells(coloured)


def generate_round(entropy: bytes, round_no: int, count: int, first_id: int) -> list[Sheet]:
    """The sheets offered in round ``round_no``, ids first_id, first_id+1, ..."""
    rng = Rng(entropy, "painting/sheets/round-%d" % round_no)
    return [Sheet(first_id + i, generate_sheet_cells(rng)) for i in range(count)]


@lru_cache(maxsize=4096)
def _plan(cells: tuple, size: int) -> tuple | None:
    """(first letter, [(index offset, letter)] of the others, the first cell's row and column,
    the bounds of the start's row and column) of a pattern, or None if it can match nowhere.  The pattern's cells are taken relative to
    its first coloured cell in the flattened grid; only the starts that keep the pattern
    inside the grid (no wrapping into the next row) are shifts."""
    coloured = [(r, c, col) for r, c, col in cells if col != "W"]
    if not coloured:
        return None
    rmin = min(r for r, _, _ in coloured)
    rmax = max(r for r, _, _ in coloured)
    cmin = min(c for _, c, _ in coloured)
    cmax = max(c for _, c, _ in coloured)
    r0, c0, _ = min(coloured, key=lambda x: x[0] * size + x[1])
    at_cell: dict[int, str] = {}
    for r, c, col in coloured:
        if at_cell.setdefault((r - r0) * size + (c - c0), col) != col:
            return None  # two colours asked of one cell
    if any(len(col) != 1 for col in at_cell.values()):
        return None  # a grid square holds one letter
    rel = sorted(at_cell.items())
    # a start index i is the shift (i // size - r0, i % size - c0), inside the grid when
    # r0 - rmin <= i // size < r0 + size - rmax, and the same for columns
    return rel[0][1], tuple(rel[1:]), r0, c0, r0 - rmin, r0 + size - rmax, c0 - cmin, c0 + size - cmax


def _offsets(grid: str, cells: Sequence[Sequence], size: int):
    try:
        plan = _plan(cells, size)
    except TypeError:  # cells as lists (a view): the same pattern, hashable
        plan = _plan(tuple(tuple(x) for x in cells), size)
    if plan is None:
        return
    first, rest, r0, c0, rlo, rhi, clo, chi = plan
    i = grid.find(first)
    while i >= 0:
        row, col_ = divmod(i, size)
        if rlo <= row < rhi and clo <= col_ < chi:
            for off, col in rest:
                if grid[i + off] != col:
                    break
            else:
                yield (row - r0, col_ - c0)
        i = grid.find(first, i + 1)


def match_offsets(grid: str, cells: Sequence[Sequence], size: int = GRID) -> list[tuple[int, int]]:
    """Every shift (dr, dc) at which the sheet's pattern appears in ``grid``.

    ``grid`` is a string of size*size colour letters, row by row.  The shift
    is added to the sheet's own coordinates.  A sheet with no coloured cell
    matches nowhere.
    """
    return list(_offsets(grid, cells, size))


def matches(grid: str, cells: Sequence[Sequence], size: int = GRID) -> bool:
    """True if the pattern appears anywhere in ``grid`` by translation."""
    return next(_offsets(grid, cells, size), None) is not None
