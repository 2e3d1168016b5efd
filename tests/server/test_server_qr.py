"""The QR encoder of the scorers' links (bela.server.tournaments.qr): the standard's known
vectors, and every code it draws read back by a small decoder written here from the
standard (ISO/IEC 18004), independent of the encoder's code paths."""

from __future__ import annotations

import pytest

from bela.server.tournaments import qr

# level M, per version: (ec codewords a block, data codewords per block) and alignment
# centres, as the standard's tables give them (written out again, not imported)
TABLE = {1: (10, [16]), 2: (16, [28]), 3: (26, [44]), 4: (18, [32] * 2), 5: (24, [43] * 2),
         6: (16, [27] * 4), 7: (18, [31] * 4), 8: (22, [38, 38, 39, 39]),
         9: (22, [36, 36, 36, 37, 37]), 10: (26, [43] * 4 + [44])}
CENTRES = {1: [], 2: [6, 18], 3: [6, 22], 4: [6, 26], 5: [6, 30], 6: [6, 34],
           7: [6, 22, 38], 8: [6, 24, 42], 9: [6, 26, 46], 10: [6, 28, 50]}
MASK = [lambda i, j: (i + j) % 2 == 0, lambda i, j: i % 2 == 0, lambda i, j: j % 3 == 0,
        lambda i, j: (i + j) % 3 == 0, lambda i, j: (i // 2 + j // 3) % 2 == 0,
        lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
        lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
        lambda i, j: ((i + j) % 2 + (i * j) % 3) % 2 == 0]  # i row, j column


def function_modules(version: int) -> set[tuple[int, int]]:
    n = 17 + 4 * version
    out: set[tuple[int, int]] = set()
    for r0, c0 in ((0, 0), (0, n - 8), (n - 8, 0)):  # finders with separators
        out |= {(r, c) for r in range(r0, r0 + 8) for c in range(c0, c0 + 8)}
    out |= {(6, k) for k in range(n)} | {(k, 6) for k in range(n)}
    out |= {(8, k) for k in range(9)} | {(k, 8) for k in range(9)}  # format, top left
    out |= {(8, n - 1 - k) for k in range(8)} | {(n - 1 - k, 8) for k in range(8)}
    cs = CENTRES[version]
    for r in cs:
        for c in cs:
            if (r, c) in ((6, 6), (6, cs[-1]), (cs[-1], 6)):
                continue
            out |= {(r + a, c + b) for a in range(-2, 3) for b in range(-2, 3)}
    if version >= 7:
        out |= {(r, c) for r in range(6) for c in range(n - 11, n - 8)}
        out |= {(r, c) for r in range(n - 11, n - 8) for c in range(6)}
    return out


def syndromes_zero(block: list[int], ec: int) -> bool:
    for k in range(ec):  # the codeword polynomial vanishes at a^0 .. a^(ec-1)
        acc = 0
        for b in block:
            acc = qr.gf_mul(acc, qr.EXP[k]) ^ b
        if acc:
            return False
    return True


def decode(modules: tuple[tuple[bool, ...], ...]) -> str:
    n = len(modules)
    version = (n - 17) // 4
    # format, first copy: bits 14..0 along row 8 then up column 8
    seq = [modules[8][c] for c in (0, 1, 2, 3, 4, 5, 7, 8)] + \
          [modules[r][8] for r in (7, 5, 4, 3, 2, 1, 0)]
    fmt = int("".join("1" if b else "0" for b in seq), 2) ^ 0x5412
    level, mask = fmt >> 13, (fmt >> 10) & 7
    assert level == 0b00, "not level M"
    fixed = function_modules(version)
    bits: list[int] = []
    col = n - 1
    upward = True
    while col > 0:
        if col == 6:
            col -= 1
        rows = range(n - 1, -1, -1) if upward else range(n)
        for r in rows:
            for c in (col, col - 1):
                if (r, c) not in fixed:
                    bits.append(int(modules[r][c] ^ MASK[mask](r, c)))
        upward = not upward
        col -= 2
    ec, sizes = TABLE[version]
    total = sum(sizes) + ec * len(sizes)
    words = [int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, total * 8, 8)]
    blocks: list[list[int]] = [[] for _ in sizes]
    at = 0
    for i in range(max(sizes)):
        for b, size in enumerate(sizes):
            if i < size:
                blocks[b].append(words[at])
                at += 1
    for _ in range(ec):
        for b in range(len(sizes)):
            blocks[b].append(words[at])
            at += 1
    assert all(syndromes_zero(b, ec) for b in blocks), "a block fails its check"
    data = [w for b, size in zip(blocks, sizes, strict=True) for w in b[:size]]
    stream = "".join(f"{w:08b}" for w in data)
    assert stream[:4] == "0100", "not byte mode"
    width = 8 if version < 10 else 16
    count = int(stream[4:4 + width], 2)
    start = 4 + width
    return bytes(int(stream[start + 8 * i:start + 8 * i + 8], 2)
                 for i in range(count)).decode()


def test_known_vectors() -> None:
    # ISO/IEC 18004 annex: "01234567" at 1-M, its ten error correction codewords
    data = bytes.fromhex("10200c566180ec11ec11ec11ec11ec11")
    assert qr.rs_remainder(data, 10).hex() == "a524d4c1ed36c7872c55"
    assert qr.format_bits(0) == 0b101010000010010  # level M, mask 0
    assert qr.format_bits(5) == 0b100000011001110  # the standard's table: M, mask 5
    assert qr.version_bits(7) == 0x07C94 and qr.version_bits(10) == 0x0A4D3


@pytest.mark.parametrize("text", [
    "x", "http://192.168.1.20:8000/pad?t=Xa91kQ2b&r=1&n=2&k=hM3k2Lw9QpZt",
    "šćž đ — bela blok", "A" * 100, "https://bela.example/" + "k" * 190])
def test_every_code_reads_back(text: str) -> None:
    code = qr.encode(text)
    assert len(code.modules) == 17 + 4 * code.version
    assert decode(code.modules) == text


def test_version_grows_with_the_text_and_stops_at_ten() -> None:
    assert [qr.encode("a" * n).version for n in (14, 15, 26, 150, 213)] == [1, 2, 2, 8, 10]
    with pytest.raises(qr.QRError):
        qr.encode("a" * 214)


def test_svg_draws_every_dark_module() -> None:
    code = qr.encode("bela")
    image = qr.svg("bela")
    assert image.count("h1v1h-1z") == sum(map(sum, code.modules))
