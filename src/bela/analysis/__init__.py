"""The analysis shared by the terminal (``bela review``, ``bela play``'s ``hint``) and the
server's analysis board and hints: :mod:`.review` (the plays of a record that lost
double-dummy value) and :mod:`.hints` (what the best bot would do in a seat's place).

It sits above the bots and the solver and below the front ends: ``cli`` and ``server``
import it, it imports neither.
"""
