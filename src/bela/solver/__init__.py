"""Double-dummy search (compiled kernels) and the deal sampler.

:func:`solve` / :func:`value` / :func:`solve_position` give the exact value of a position
with every hand known, and of each legal card (see :mod:`bela.solver.dd`; each thread has
its own solver, :func:`default_solver`); :func:`bench_solver` times the solver on random
bela4 deals (:mod:`bela.solver.bench`); :func:`warm_up` compiles or loads the kernels ahead
of the first search, :func:`is_warm` and :func:`kernels_cached` say whether that is needed
and how long it will take (:mod:`bela.solver.warm`).
"""

from .bench import bench_solver
from .dd import Position, Solution, Solver, default_solver, solve, solve_position, value
from .warm import is_warm, kernels_cached, warm_up

__all__ = ["Position", "Solution", "Solver", "bench_solver", "default_solver", "is_warm",
           "kernels_cached", "solve", "solve_position", "value", "warm_up"]
