"""Double-dummy search (compiled kernels) and the deal sampler.

:func:`solve` / :func:`value` / :func:`solve_position` give the exact value of a position
with every hand known (see :mod:`bela.solver.dd`); :func:`bench_solver` times the solver.
"""

from .dd import Position, Solution, Solver, default_solver, solve, solve_position, value

__all__ = ["Position", "Solution", "Solver", "default_solver", "solve", "solve_position",
           "value"]
