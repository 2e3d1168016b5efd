"""bela: the Bela (Croatian Belot) and two-player Belot platform."""

__version__ = "0.1.0"
