"""The numpy references of the bundled programs, named by their launch files (``[reference] function =
"references.py:NAME"``): each is ``NAME(inputs, params) -> {output name: expected array}``, with ``inputs``
the kernel's input arguments (and ``[symbols]``) by name and ``params`` the size's parameters.

They are independent numpy code written from the kernels' mathematical definition (not translated from their
CUDA).  Float references that sum in a different order from the kernel are computed in float64 and compared
with a relative tolerance; results that IEEE round-to-nearest float32 arithmetic or integer arithmetic fully
determine are compared bit for bit.
"""
from __future__ import annotations

import numpy as np


def vector_add(x, p):
    return {"C": x["A"] + x["B"]}
