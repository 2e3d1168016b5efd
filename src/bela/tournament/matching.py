"""A perfect matching kept while pairs are fixed one by one (Edmonds' blossom algorithm).

The Swiss pairing asks, for each pair it would like to make, "can everybody else still be
paired?".  :class:`Matching` answers that in one augmenting-path search: it holds a perfect
matching of the entries not yet fixed; fixing ``x``-``y`` frees their two mates, and the
answer is yes exactly when a path between those two augments.

>>> m = Matching(4, lambda u, v: {u, v} != {0, 1})   # 0 and 1 may not meet
>>> m.complete()
True
>>> m.fix(0, 2), m.fix(1, 3), m.pairs()
(True, True, [(0, 2), (1, 3)])
>>> m = Matching(4, lambda u, v: {u, v} not in ({0, 1}, {2, 3}))
>>> m.complete(), m.fix(0, 2), m.fix(1, 3)       # 0-2 leaves 1-3, which is allowed
(True, True, True)
>>> m = Matching(4, lambda u, v: 0 not in (u, v) or v == 1 or u == 1)
>>> m.complete(), m.fix(2, 3)                   # 0 can only meet 1, so 2-3 is forced
(True, True)
>>> m.fix(0, 1), m.pairs()
(True, [(2, 3), (0, 1)])
>>> m = Matching(6, lambda u, v: True)
>>> m.complete([(0, 3), (1, 4), (2, 5)]), m.close({0, 1, 2}), m.close({0, 1, 2, 3})
(True, False, True)
>>> m.fix(0, 4), m.fix(0, 1), m.fix(2, 3), m.pairs()    # 0-4 crosses the wall
(False, True, True, [(0, 1), (2, 3)])
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable


class Matching:
    """A matching of the nodes ``0 .. n-1`` on the edges ``allowed`` accepts; nodes not in
    ``alive`` (default all) take no part."""

    def __init__(self, n: int, allowed: Callable[[int, int], bool],
                 alive: Iterable[int] | None = None) -> None:
        self.n = n
        self.alive = [False] * n
        for v in range(n) if alive is None else alive:
            self.alive[v] = True
        nodes = [v for v in range(n) if self.alive[v]]
        self.adj: list[list[int]] = [[] for _ in range(n)]
        for i, u in enumerate(nodes):
            for v in nodes[i + 1:]:
                if allowed(u, v):
                    self.adj[u].append(v)
                    self.adj[v].append(u)
        self.mate = [-1] * n
        self.fixed: list[tuple[int, int]] = []
        self.wall: set[int] | None = None  # see close()

    def complete(self, hint: Iterable[tuple[int, int]] = ()) -> bool:
        """Match every live node, starting from the allowed pairs of ``hint``; ``False``
        when no perfect matching exists."""
        mate = self.mate
        for u, v in hint:
            if self.alive[u] and self.alive[v] and mate[u] < 0 and mate[v] < 0 \
                    and v in self.adj[u]:
                mate[u], mate[v] = v, u
        for v in range(self.n):
            if self.alive[v] and mate[v] < 0:
                for u in self.adj[v]:
                    if self.alive[u] and mate[u] < 0:
                        mate[u], mate[v] = v, u
                        break
        for v in range(self.n):
            if self.alive[v] and mate[v] < 0 and not self._augment(v):
                return False
        return True

    def close(self, inside: set[int]) -> bool:
        """From now on match ``inside`` only among itself (and the others among
        themselves), if the live nodes can all still be matched so; otherwise change
        nothing and return ``False``.  ``open()`` lifts the wall."""
        saved = self.mate[:]
        self.wall = inside
        mate = self.mate
        crossing = [v for v in range(self.n) if self.alive[v]
                    and (v in inside) != (mate[v] in inside)]
        for v in crossing:
            mate[v] = -1
        for v in crossing:
            if mate[v] < 0 and not self._augment(v):
                self.mate, self.wall = saved, None
                return False
        return True

    def open(self) -> None:
        """Lift the wall of :meth:`close`."""
        self.wall = None

    def fix(self, x: int, y: int) -> bool:
        """Fix the pair ``x``-``y`` if the others can still all be matched (the matching
        must be perfect); otherwise change nothing and return ``False``."""
        mate = self.mate
        if mate[x] == y:
            self._take(x, y)
            return True
        if y not in self.adj[x] or (self.wall is not None
                                    and (x in self.wall) != (y in self.wall)):
            return False
        saved = mate[:]
        a, b = mate[x], mate[y]
        self.alive[x] = self.alive[y] = False
        mate[a] = mate[b] = mate[x] = mate[y] = -1
        if self._augment(a):
            self.alive[x] = self.alive[y] = True
            self._take(x, y)
            return True
        self.alive[x] = self.alive[y] = True
        self.mate = saved
        return False

    def pairs(self) -> list[tuple[int, int]]:
        """The fixed pairs, in the order they were fixed."""
        return list(self.fixed)

    def _take(self, x: int, y: int) -> None:
        self.mate[x], self.mate[y] = y, x
        self.alive[x] = self.alive[y] = False
        self.fixed.append((x, y))

    def _augment(self, root: int) -> bool:
        """Search an augmenting path from the free node ``root`` and flip it."""
        n, mate, alive, adj, wall = self.n, self.mate, self.alive, self.adj, self.wall
        parent = [-1] * n
        base = list(range(n))
        used = [False] * n
        used[root] = True
        queue = deque([root])

        def lca(a: int, b: int) -> int:
            seen = [False] * n
            while True:
                a = base[a]
                seen[a] = True
                if mate[a] < 0:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if seen[b]:
                    return b
                b = parent[mate[b]]

        def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
            while base[v] != b:
                blossom[base[v]] = blossom[base[mate[v]]] = True
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        while queue:
            v = queue.popleft()
            for to in adj[v]:
                if not alive[to] or base[v] == base[to] or mate[v] == to \
                        or (wall is not None and (v in wall) != (to in wall)):
                    continue
                if to == root or (mate[to] >= 0 and parent[mate[to]] >= 0):
                    cur = lca(v, to)
                    blossom = [False] * n
                    mark(v, cur, to, blossom)
                    mark(to, cur, v, blossom)
                    for i in range(n):
                        if blossom[base[i]]:
                            base[i] = cur
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] < 0:
                    parent[to] = v
                    if mate[to] < 0:
                        while to >= 0:
                            pv = parent[to]
                            nxt = mate[pv]
                            mate[to], mate[pv] = pv, to
                            to = nxt
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False
