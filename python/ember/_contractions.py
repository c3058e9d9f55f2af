"""Tensor contractions: NumPy's ``einsum``, ``tensordot`` and ``kron``, on ember's matmul.

``einsum`` takes NumPy's subscripts (explicit ``->`` or implicit output, ``...``, repeated
labels for diagonals). The order of pairwise contractions is NumPy's own ``einsum_path``
(computed on the shapes alone, ``optimize='greedy'`` unless asked otherwise); each pair is
one batched matmul (labels shared and kept are the batch, shared and summed the inner
dimension), labels only one operand has and nobody needs are summed first, repeated labels
become diagonals (views).
"""

from __future__ import annotations

import functools
import math
import operator
import string

import numpy as np

from . import _ember, _reductions
from ._creation import asarray
from ._diagonals import diagonal
from ._linalg import matmul
from ._shape import broadcast_to, transpose

__all__ = ["einsum", "einsum_path", "kron", "tensordot"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def tensordot(a, b, axes=2):
    """Sums of products over the last ``axes`` axes of ``a`` and the first of ``b`` (or the
    axes given as two lists)."""
    a, b = _array(a), _array(b)
    if np.ndim(axes) == 0:
        n = operator.index(axes)
        if n < 0:
            raise ValueError("axes must be non-negative")  # (NumPy 2 refuses negative counts too)
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if np.ndim(axes_a) == 0 else list(axes_a)
        axes_b = [axes_b] if np.ndim(axes_b) == 0 else list(axes_b)
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    axes_a = [k % a.ndim if a.ndim else k for k in axes_a]
    axes_b = [k % b.ndim if b.ndim else k for k in axes_b]
    for ka, kb in zip(axes_a, axes_b, strict=True):
        if a.shape[ka] != b.shape[kb]:
            raise ValueError("shape-mismatch for sum")
    free_a = [k for k in range(a.ndim) if k not in axes_a]
    free_b = [k for k in range(b.ndim) if k not in axes_b]
    m = math.prod(a.shape[k] for k in free_a)
    n = math.prod(b.shape[k] for k in free_b)
    inner = math.prod(a.shape[k] for k in axes_a)
    left, right = _arranged(a, free_a + axes_a, (m, inner)), _arranged(b, axes_b + free_b, (inner, n))
    result = matmul(left, right)
    shape = tuple(a.shape[k] for k in free_a) + tuple(b.shape[k] for k in free_b)
    return result if result.shape == shape else result.reshape(shape)


def _arranged(op, axes: list, shape: tuple):
    """``op`` with its axes in the order ``axes``, reshaped to ``shape`` (no call that would
    change nothing)."""
    if axes != list(range(op.ndim)):
        op = transpose(op, axes)
    return op if op.shape == shape else op.reshape(shape)


def kron(a, b):
    """The Kronecker product: blocks of ``b`` scaled by each element of ``a``."""
    a, b = _array(a), _array(b)
    ndim = max(a.ndim, b.ndim)
    sa = (1,) * (ndim - a.ndim) + a.shape
    sb = (1,) * (ndim - b.ndim) + b.shape
    # a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then pairs of axes merged.
    product = a.reshape(tuple(x for s in sa for x in (s, 1))) * b.reshape(tuple(x for s in sb for x in (1, s)))
    return product.reshape(tuple(x * y for x, y in zip(sa, sb, strict=True)))


# --- einsum --------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _parse(subscripts: str, ndims: tuple) -> tuple[tuple[str, ...], str]:
    """Each operand's labels and the output's, with ``...`` spelt out as unused letters (the
    broadcast dimensions, right-aligned) and an implicit output made explicit."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        inputs, output = subscripts.split("->")
        explicit = True
    else:
        inputs, output, explicit = subscripts, "", False
    terms = inputs.split(",")
    if len(terms) != len(ndims):
        raise ValueError("more operands provided to einstein sum function than specified in the subscripts string"
                         if len(ndims) > len(terms) else
                         "fewer operands provided to einstein sum function than specified in the subscripts string")
    used = set(subscripts) - {".", ",", "-", ">"}
    spare = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in used]
    ell = 0
    for t, ndim in zip(terms, ndims, strict=True):
        if "..." in t:
            ell = max(ell, ndim - (len(t) - 3))
    ell_labels = "".join(spare[:ell])
    labels = []
    for t, ndim in zip(terms, ndims, strict=True):
        if "..." in t:
            n = ndim - (len(t) - 3)
            t = t.replace("...", ell_labels[ell - n:] if n else "")
        if len(t) != ndim:
            raise ValueError(f"einstein sum subscripts string contains too many subscripts for operand "
                             f"{len(labels)}" if len(t) > ndim else
                             "operand has more dimensions than subscripts given in einstein sum, but no '...' "
                             "ellipsis provided to broadcast the extra dimensions.")
        for c in t:
            if not c.isalpha():
                raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, subscripts must be "
                                 "letters")
        labels.append(t)
    if explicit:
        output = output.replace("...", ell_labels)
        for c in output:
            if not any(c in t for t in labels):
                raise ValueError(f"einstein sum subscripts string included output subscript '{c}' which never "
                                 "appeared in an input")
    else:
        counts = {}
        for t in labels:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        output = ell_labels + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell_labels))
    return tuple(labels), output


def _diagonals(op, labels: str):
    """``op`` with each repeated label's axes replaced by their diagonal (last)."""
    while True:
        seen = {}
        for k, c in enumerate(labels):
            if c in seen:
                j = seen[c]
                if op.shape[j] != op.shape[k]:
                    raise ValueError(f"dimensions in operand for collapsing index '{c}' don't match "
                                     f"({op.shape[j]} != {op.shape[k]})")
                op = diagonal(op, 0, j, k)
                labels = "".join(x for i, x in enumerate(labels) if i not in (j, k)) + c
                break
            seen[c] = k
        else:
            return op, labels


def _sum_out(op, labels: str, keep: set, sizes: dict):
    """``op`` summed over the labels not in ``keep`` (a broadcast label over its full size)."""
    drop = tuple(k for k, c in enumerate(labels) if c not in keep)
    if not drop:
        return op, labels
    op = broadcast_to(op, tuple(sizes[c] for c in labels))
    return _reductions.sum(op, axis=drop, dtype=op.dtype), "".join(c for c in labels if c in keep)


def _broadcast_sizes(ops, labels) -> dict:
    sizes = {}
    for op, t in zip(ops, labels, strict=True):
        for c, n in zip(t, op.shape, strict=True):
            if sizes.get(c, 1) == 1:
                sizes[c] = n
            elif n not in (1, sizes[c]):
                raise ValueError(f"operands could not be broadcast together with remapped shapes: label '{c}' "
                                 f"has sizes {sizes[c]} and {n}")
    return sizes


def _pair(a, la: str, b, lb: str, keep: set, sizes: dict):
    """The contraction of two operands, keeping the labels in ``keep``: one batched matmul."""
    batch = [c for c in la if c in lb and c in keep]
    inner = [c for c in la if c in lb and c not in keep]
    free_a = [c for c in la if c not in lb]
    free_b = [c for c in lb if c not in la]

    def arrange(op, labels, order):
        axes = [labels.index(c) for c in order]
        if axes != list(range(len(axes))):
            op = transpose(op, axes)
        shape = tuple(sizes[c] for c in order)
        return op if op.shape == shape else broadcast_to(op, shape)

    size = lambda cs: math.prod(sizes[c] for c in cs)  # noqa: E731
    left = arrange(a, la, batch + free_a + inner).reshape(size(batch), size(free_a), size(inner))
    right = arrange(b, lb, batch + inner + free_b).reshape(size(batch), size(inner), size(free_b))
    result = matmul(left, right).reshape(tuple(sizes[c] for c in batch + free_a + free_b))
    return result, "".join(batch + free_a + free_b)


def einsum_path(subscripts, *operands, optimize="greedy"):
    """NumPy's ``einsum_path`` for ember arrays (shapes are all it reads)."""
    def stand_in(o):  # a host array of the same shape and dtype (no data is read)
        return np.broadcast_to(np.empty((), dtype=o.dtype), o.shape) if isinstance(o, _ember.ndarray) else o

    # The first argument too (NumPy's interleaved form): an ember array there would come back
    # here through NumPy's dispatch.
    return np.einsum_path(stand_in(subscripts), *map(stand_in, operands), optimize=optimize)


def _path(spec: str, shapes: tuple, kind, optimize) -> list:
    """NumPy's contraction order for operands of ``shapes``, remembered (an explicit path, a
    list, is its own answer)."""
    if isinstance(optimize, list):
        optimize = tuple(tuple(step) if isinstance(step, (list, tuple)) else step for step in optimize)
    return _remembered_path(spec, shapes, np.dtype(kind), optimize)


@functools.lru_cache(maxsize=256)
def _remembered_path(spec, shapes, kind, optimize):
    stand_ins = [np.broadcast_to(np.empty((), dtype=kind), shape) for shape in shapes]
    plan = list(optimize) if isinstance(optimize, tuple) else optimize
    return np.einsum_path(spec, *stand_ins, optimize=plan)[0][1:]


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _interleaved(first, rest) -> tuple[str, list]:
    """NumPy's interleaved einsum arguments (operand, sublist, ..., [output sublist]) as a
    subscripts string and the operands."""
    args = [first, *rest]
    operands, terms = args[0::2], args[1::2]
    output = None
    if len(operands) > len(terms):  # an odd count: the last is the output sublist
        *operands, output = operands

    def letters(sublist) -> str:
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, (int, np.integer)) and 0 <= int(s) < len(_LETTERS):
                out.append(_LETTERS[int(s)])
            else:
                raise ValueError(f"subscript is not within the valid range [0, {len(_LETTERS)})")
        return "".join(out)

    spec = ",".join(letters(t) for t in terms)
    if output is not None:
        spec += "->" + letters(output)
    return spec, operands


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize="greedy"):
    """Einstein summation over ``operands`` as ``subscripts`` says: NumPy's string form, or its
    interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved(subscripts, operands)
    ops = [_array(o) for o in operands]
    labels, output = _parse(subscripts, tuple(o.ndim for o in ops))
    labels = list(labels)
    kind = np.result_type(*[o.dtype for o in ops]) if dtype is None else np.dtype(dtype)
    if len(ops) == 1 and set(labels[0]) == set(output):
        # Nothing summed: NumPy returns a view of the operand (transposed, diagonals taken)
        # and ignores dtype.
        kind = ops[0].dtype
    if not all(np.can_cast(o.dtype, kind, casting) for o in ops):
        raise TypeError(f"Cannot cast einsum operands to {kind} according to the rule '{casting}'")
    ops = [o.astype(kind, copy=False) for o in ops]
    for k in range(len(ops)):
        ops[k], labels[k] = _diagonals(ops[k], labels[k])
    sizes = _broadcast_sizes(ops, labels)
    if len(ops) > 2 and optimize is not False:
        spec = ",".join(labels) + "->" + output
        path = _path(spec, tuple(o.shape for o in ops), kind, "greedy" if optimize is True else optimize)
    else:  # one or two operands: one step (NumPy's path too)
        path = [tuple(range(len(ops)))]
    pending = list(zip(ops, labels, strict=True))
    for step in path:
        group = [pending.pop(k) for k in sorted(step, reverse=True)][::-1]
        needed = set(output) | {c for _, t in pending for c in t}
        op, lab = group[0]
        for j in range(1, len(group)):
            other, olab = group[j]
            keep = needed | {c for _, t in group[j + 1:] for c in t}
            op, lab = _sum_out(op, lab, keep | set(olab), sizes)
            other, olab = _sum_out(other, olab, keep | set(lab), sizes)
            op, lab = _pair(op, lab, other, olab, keep, sizes)
        pending.append((op, lab))
    ops, labels = [p[0] for p in pending], [p[1] for p in pending]
    (op,), (lab,) = ops, labels
    op, lab = _sum_out(op, lab, set(output), sizes)
    axes = [lab.index(c) for c in output]
    result = op if axes == list(range(len(axes))) else transpose(op, axes)
    shape = tuple(sizes[c] for c in output)
    if result.shape != shape:  # an output label only ever broadcast
        result = broadcast_to(result, shape).copy()
    if out is not None:
        out[...] = result
        return out
    return result

