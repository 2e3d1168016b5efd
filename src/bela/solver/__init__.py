"""Double-dummy search (compiled kernels) and the deal sampler.

:func:`solve` / :func:`value` / :func:`solve_position` give the exact value of a position
with every hand known, and of each legal card (see :mod:`bela.solver.dd`);
:func:`bench_solver` times the solver on random bela4 deals (:mod:`bela.solver.bench`).
"""

from .bench import bench_solver
from .dd import Position, Solution, Solver, default_solver, solve, solve_position, value

__all__ = ["Position", "Solution", "Solver", "bench_solver", "default_solver", "solve",
           "solve_position", "value"]
