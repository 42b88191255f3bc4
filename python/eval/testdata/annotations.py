from __future__ import annotations
import __future__
from typing import List, Optional

x: List[int] = []
y: Optional[int] = None
w: int
print(__annotations__)
print(type(__future__.annotations).__name__)


class A:
    n: int = 3
    m: "str"
    t: List[torch.Tensor]

    def f(self):
        q: int = 4
        return q


print(A.__annotations__, A().f(), A.n)
print(hasattr(A, "m"))
