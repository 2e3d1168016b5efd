"""Write the table's sounds (src/bela/web/sounds/*.wav): short tones synthesized here with
the standard library, so that the files are this project's own work under its licence
(docs/SOUNDS.md names them).  Run it again after a change: ``python tools/make_sounds.py``.

Each sound is a few sine partials with a quick attack and an exponential decay, mono,
16-bit, 22050 Hz; the same input always writes the same bytes.
"""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path

RATE = 22050
OUT = Path(__file__).parents[1] / "src" / "bela" / "web" / "sounds"

# name: notes, each (start s, length s, frequency Hz, loudness 0..1, decay per second)
SOUNDS: dict[str, list[tuple[float, float, float, float, float]]] = {
    "card": [(0.0, 0.06, 1800.0, 0.35, 60.0), (0.0, 0.08, 420.0, 0.5, 40.0)],
    "turn": [(0.0, 0.16, 880.0, 0.5, 14.0), (0.12, 0.22, 1318.5, 0.45, 12.0)],
    "trick": [(0.0, 0.1, 300.0, 0.5, 30.0), (0.05, 0.12, 520.0, 0.35, 30.0)],
    "clock": [(0.0, 0.07, 1500.0, 0.45, 40.0), (0.18, 0.07, 1500.0, 0.45, 40.0)],
    "deal_end": [(0.0, 0.2, 523.25, 0.4, 8.0), (0.12, 0.2, 659.25, 0.4, 8.0),
                 (0.24, 0.35, 783.99, 0.45, 6.0)],
}


def samples(notes: list[tuple[float, float, float, float, float]]) -> list[int]:
    """The 16-bit samples of ``notes`` mixed."""
    end = max(start + length for start, length, *_ in notes)
    out = [0.0] * int(end * RATE + 1)
    for start, length, freq, loud, decay in notes:
        first = int(start * RATE)
        for i in range(int(length * RATE)):
            t = i / RATE
            attack = min(1.0, t / 0.004)
            out[first + i] += loud * attack * math.exp(-decay * t) * math.sin(
                2 * math.pi * freq * t)
    peak = max(1.0, max(abs(x) for x in out))
    return [round(32767 * 0.8 * x / peak) for x in out]


def write(name: str, folder: Path = OUT) -> Path:
    path = folder / f"{name}.wav"
    s = samples(SOUNDS[name])
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(struct.pack(f"<{len(s)}h", *s))
    return path


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in SOUNDS:
        print(f"wrote {write(name)}")


if __name__ == "__main__":
    main()
