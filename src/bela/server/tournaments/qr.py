"""A QR code of a short text (a scorer's link) as SVG: byte mode, error correction level M,
versions 1 to 10 (up to 213 bytes), stdlib only (ISO/IEC 18004).

>>> code = encode("https://bela.example/pad")
>>> code.version, len(code.modules)
(2, 25)
>>> svg("x").startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
"""

from __future__ import annotations

from dataclasses import dataclass

# per version 1..10 at level M: (error correction codewords a block, data codewords of
# each block): the short blocks first
BLOCKS: dict[int, tuple[int, tuple[int, ...]]] = {
    1: (10, (16,)), 2: (16, (28,)), 3: (26, (44,)), 4: (18, (32, 32)),
    5: (24, (43, 43)), 6: (16, (27, 27, 27, 27)), 7: (18, (31, 31, 31, 31)),
    8: (22, (38, 38, 39, 39)), 9: (22, (36, 36, 36, 37, 37)),
    10: (26, (43, 43, 43, 43, 44)),
}
ALIGNMENT: dict[int, tuple[int, ...]] = {
    1: (), 2: (6, 18), 3: (6, 22), 4: (6, 26), 5: (6, 30), 6: (6, 34), 7: (6, 22, 38),
    8: (6, 24, 42), 9: (6, 26, 46), 10: (6, 28, 50),
}
LEVEL_M = 0b00  # the format's bits of error correction level M
FORMAT_MASK = 0x5412
MAX_VERSION = 10


class QRError(ValueError):
    """A text too long for a version 10 code."""


@dataclass(frozen=True)
class QRCode:
    """A code's ``version`` and ``modules`` (rows of booleans, dark ``True``)."""

    version: int
    mask: int
    modules: tuple[tuple[bool, ...], ...]


# -- Reed-Solomon over GF(256), polynomial 0x11D ------------------------------------------
EXP = [0] * 512
LOG = [0] * 256
_x = 1
for _i in range(255):
    EXP[_i] = _x
    LOG[_x] = _i
    _x <<= 1
    if _x & 0x100:
        _x ^= 0x11D
for _i in range(255, 512):
    EXP[_i] = EXP[_i - 255]


def gf_mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else EXP[LOG[a] + LOG[b]]


def rs_remainder(data: bytes, degree: int) -> bytes:
    """The ``degree`` error correction codewords of ``data``.

    >>> rs_remainder(bytes.fromhex("10200c566180ec11ec11ec11ec11ec11"), 10).hex()
    'a524d4c1ed36c7872c55'
    """
    gen = [1]  # the generator polynomial (x - a^0)...(x - a^(degree-1)), highest first
    for i in range(degree):
        nxt = [0] * (len(gen) + 1)
        for j, c in enumerate(gen):
            nxt[j] ^= c
            nxt[j + 1] ^= gf_mul(c, EXP[i])
        gen = nxt
    rem = [0] * degree
    for b in data:
        factor = b ^ rem[0]
        rem = rem[1:] + [0]
        for j in range(degree):
            rem[j] ^= gf_mul(gen[j + 1], factor)
    return bytes(rem)


def format_bits(mask: int) -> int:
    """The 15 format bits of level M and ``mask`` (BCH(15,5), masked).

    >>> f"{format_bits(0):015b}"
    '101010000010010'
    """
    data = (LEVEL_M << 3) | mask
    rem = data
    for _ in range(10):
        rem = (rem << 1) ^ ((rem >> 9) * 0x537)
    return ((data << 10) | rem) ^ FORMAT_MASK


def version_bits(version: int) -> int:
    """The 18 version bits (BCH(18,6)) of versions 7 and up.

    >>> f"{version_bits(7):018b}"
    '000111110010010100'
    """
    rem = version
    for _ in range(12):
        rem = (rem << 1) ^ ((rem >> 11) * 0x1F25)
    return (version << 12) | rem


# -- the code -----------------------------------------------------------------------------
def _codewords(text: bytes, version: int) -> bytes:
    ec, blocks = BLOCKS[version]
    capacity = sum(blocks)
    count_bits = 8 if version < 10 else 16
    bits = [0, 1, 0, 0] + [(len(text) >> i) & 1 for i in reversed(range(count_bits))]
    for b in text:
        bits += [(b >> i) & 1 for i in reversed(range(8))]
    bits += [0] * min(4, capacity * 8 - len(bits))
    bits += [0] * (-len(bits) % 8)
    data = bytearray(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
    pad = 0
    while len(data) < capacity:
        data.append((0xEC, 0x11)[pad % 2])
        pad += 1
    split, at = [], 0
    for size in blocks:
        split.append(bytes(data[at:at + size]))
        at += size
    out = bytearray()
    for i in range(max(blocks)):
        out += bytes(b[i] for b in split if i < len(b))
    eccs = [rs_remainder(b, ec) for b in split]
    for i in range(ec):
        out += bytes(e[i] for e in eccs)
    return bytes(out)


def _version_for(size: int) -> int:
    for version in range(1, MAX_VERSION + 1):
        header = 4 + (8 if version < 10 else 16)
        if header + 8 * size <= 8 * sum(BLOCKS[version][1]):
            return version
    raise QRError(f"a text of {size} bytes is too long for a QR code of version "
                  f"{MAX_VERSION} (at most 213 bytes)")


class _Grid:
    def __init__(self, version: int) -> None:
        self.size = size = 17 + 4 * version
        self.dark = [[False] * size for _ in range(size)]
        self.fixed = [[False] * size for _ in range(size)]
        self.version = version

    def put(self, x: int, y: int, dark: bool) -> None:
        self.dark[y][x] = dark
        self.fixed[y][x] = True

    def patterns(self) -> None:
        size = self.size
        for i in range(size):
            self.put(6, i, i % 2 == 0)
            self.put(i, 6, i % 2 == 0)
        for cx, cy in ((3, 3), (size - 4, 3), (3, size - 4)):
            for dy in range(-4, 5):
                for dx in range(-4, 5):
                    x, y = cx + dx, cy + dy
                    if 0 <= x < size and 0 <= y < size:
                        ring = max(abs(dx), abs(dy))
                        self.put(x, y, ring not in (2, 4))
        spots = ALIGNMENT[self.version]
        last = len(spots) - 1
        for i, cx in enumerate(spots):
            for j, cy in enumerate(spots):
                if (i, j) in ((0, 0), (0, last), (last, 0)):
                    continue
                for dy in range(-2, 3):
                    for dx in range(-2, 3):
                        self.put(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1)
        self.format(0)  # reserved now, written with the mask
        if self.version >= 7:
            bits = version_bits(self.version)
            for i in range(18):
                dark = bool((bits >> i) & 1)
                a, b = size - 11 + i % 3, i // 3
                self.put(a, b, dark)
                self.put(b, a, dark)

    def format(self, mask: int) -> None:
        size, bits = self.size, format_bits(mask)

        def bit(i: int) -> bool:
            return bool((bits >> i) & 1)

        for i in range(6):
            self.put(8, i, bit(i))
        self.put(8, 7, bit(6))
        self.put(8, 8, bit(7))
        self.put(7, 8, bit(8))
        for i in range(9, 15):
            self.put(14 - i, 8, bit(i))
        for i in range(8):
            self.put(size - 1 - i, 8, bit(i))
        for i in range(8, 15):
            self.put(8, size - 15 + i, bit(i))
        self.put(8, size - 8, True)

    def data(self, codewords: bytes) -> None:
        size, i, right = self.size, 0, self.size - 1
        while right >= 1:
            if right == 6:
                right = 5
            for vert in range(size):
                for j in range(2):
                    x = right - j
                    y = size - 1 - vert if (right + 1) & 2 == 0 else vert
                    if not self.fixed[y][x] and i < len(codewords) * 8:
                        self.dark[y][x] = bool((codewords[i >> 3] >> (7 - (i & 7))) & 1)
                        i += 1
            right -= 2

    def masked(self, mask: int) -> list[list[bool]]:
        out = [row[:] for row in self.dark]
        for y in range(self.size):
            for x in range(self.size):
                if not self.fixed[y][x] and MASKS[mask](x, y):
                    out[y][x] = not out[y][x]
        return out


MASKS = (
    lambda x, y: (x + y) % 2 == 0, lambda x, y: y % 2 == 0, lambda x, y: x % 3 == 0,
    lambda x, y: (x + y) % 3 == 0, lambda x, y: (x // 3 + y // 2) % 2 == 0,
    lambda x, y: x * y % 2 + x * y % 3 == 0, lambda x, y: (x * y % 2 + x * y % 3) % 2 == 0,
    lambda x, y: ((x + y) % 2 + x * y % 3) % 2 == 0,
)
FINDER_LIKE = ((True, False, True, True, True, False, True, False, False, False, False),
               (False, False, False, False, True, False, True, True, True, False, True))


def penalty(modules: list[list[bool]]) -> int:
    """The standard's penalty of a masked symbol (lower is better)."""
    size, score = len(modules), 0
    lines = modules + [list(col) for col in zip(*modules, strict=True)]
    for line in lines:
        run = 1
        for a, b in zip(line, line[1:], strict=False):
            if a == b:
                run += 1
                continue
            score += run - 2 if run >= 5 else 0
            run = 1
        score += run - 2 if run >= 5 else 0
        for i in range(size - 10):
            if tuple(line[i:i + 11]) in FINDER_LIKE:
                score += 40
    for y in range(size - 1):
        for x in range(size - 1):
            c = modules[y][x]
            if c == modules[y][x + 1] == modules[y + 1][x] == modules[y + 1][x + 1]:
                score += 3
    dark = sum(map(sum, modules))
    score += 10 * (abs(dark * 20 - size * size * 10) // (size * size))
    return score


def encode(text: str) -> QRCode:
    """The QR code of ``text`` (UTF-8) at the smallest version that holds it, with the
    mask of least penalty (:class:`QRError` past version 10)."""
    raw = text.encode()
    version = _version_for(len(raw))
    grid = _Grid(version)
    grid.patterns()
    grid.data(_codewords(raw, version))
    best: tuple[int, int, list[list[bool]]] | None = None
    for mask in range(8):
        grid.format(mask)
        modules = grid.masked(mask)
        score = penalty(modules)
        if best is None or score < best[0]:
            best = (score, mask, modules)
    assert best is not None
    return QRCode(version, best[1], tuple(tuple(r) for r in best[2]))


def svg(text: str, scale: int = 4, quiet: int = 4) -> str:
    """The QR code of ``text`` as an SVG image (``scale`` pixels a module, a ``quiet``
    zone of modules around it)."""
    code = encode(text)
    size = len(code.modules) + 2 * quiet
    path = "".join(f"M{x + quiet},{y + quiet}h1v1h-1z"
                   for y, row in enumerate(code.modules) for x, d in enumerate(row) if d)
    px = size * scale
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{px}" height="{px}" '
            f'viewBox="0 0 {size} {size}" shape-rendering="crispEdges">'
            f'<rect width="{size}" height="{size}" fill="#fff"/>'
            f'<path d="{path}" fill="#000"/></svg>')
