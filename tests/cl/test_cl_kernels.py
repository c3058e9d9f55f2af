"""PyOpenCL's kernels from snippets on ember (issue 29): ``ElementwiseKernel``,
``ReductionKernel``, the scan kernels, ``algorithm``'s compaction and ``BitonicSort``, each
checked against NumPy on random inputs (fixed seeds)."""

import numpy as np
import pytest
from ember.cl import array as cl_array
from ember.cl.algorithm import copy_if, partition, remove_if, unique
from ember.cl.bitonic_sort import BitonicSort
from ember.cl.elementwise import ElementwiseKernel
from ember.cl.reduction import ReductionKernel
from ember.cl.scan import ExclusiveScanKernel, GenericScanKernel, InclusiveScanKernel

SIZES = (1, 10, 257, 4093, 100_003)  # below, at and above a run per work-item


@pytest.fixture(params=["runs", "tiles"])
def scan_shape(request, monkeypatch):
    """Both shapes of the scan kernels (see ember.cl.scan): the CPU's runs per work-item, and
    the GPU's tiles per work-group, here run on whatever device the tests have."""
    from ember.cl import algorithm, scan

    monkeypatch.setattr(scan, "use_tiles", lambda device: request.param == "tiles")
    monkeypatch.setattr(algorithm, "_kernels", {})  # compaction's scans, built again in this shape
    return request.param


def test_elementwise_kernel_over_views_and_slices(ctx, queue, rng):
    lin = ElementwiseKernel(ctx, "float a, float *x, float b, __global const float *y, float *z",
                            "z[i] = a*x[i] + b*y[i]", "ember_test_lin")
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    z = cl_array.zeros(queue, 1000, np.float32)
    lin(2.5, cl_array.to_device(queue, x), -1.5, cl_array.to_device(queue, y), z)
    # The snippet is the user's C: OpenCL compilers may contract a*x + b*y into an fma.
    np.testing.assert_allclose(z.get(), np.float32(2.5) * x + np.float32(-1.5) * y, rtol=1e-6, atol=1e-6)
    big = cl_array.to_device(queue, np.zeros(1010, np.float32))
    lin(1, cl_array.to_device(queue, x), 0, cl_array.to_device(queue, y), big[10:])  # a view at an offset
    np.testing.assert_array_equal(big.get()[10:], x)
    ones = cl_array.to_device(queue, np.ones(1000, np.float32))
    for slc in (slice(5, 900), slice(5, 900, 17), slice(700, 5, -3), slice(990, -1)):
        out = cl_array.zeros(queue, 1000, np.float32)
        lin(2, ones, 0, ones, out, slice=slc)  # only the sliced indices are written
        host = np.zeros(1000, np.float32)
        host[slc] = 2
        np.testing.assert_array_equal(out.get(), host)
    with pytest.raises(TypeError, match="takes 5 arguments"):
        lin(1.0, z)
    with pytest.raises(TypeError, match="does not take loop_prep"):
        ElementwiseKernel(ctx, "float *z", "z[i] = 1", "ember_test_prep", loop_prep="int k = 0")


def test_reduction_kernels_match_numpy(ctx, queue, rng):
    dot = ReductionKernel(ctx, np.float64, neutral="0", reduce_expr="a+b", map_expr="w*x[i]*y[i]",
                          arguments="double w, __global double *x, __global double *y")
    biggest = ReductionKernel(ctx, np.int64, neutral="LONG_MIN", reduce_expr="max(a, b)",
                              arguments="__global long *x")
    for n in SIZES:
        x, y = rng.standard_normal(n), rng.standard_normal(n)
        got = dot(0.5, cl_array.to_device(queue, x), cl_array.to_device(queue, y)).get()
        np.testing.assert_allclose(got, 0.5 * (x * y).sum(), rtol=1e-12, atol=1e-12)
        k = rng.integers(-10**12, 10**12, n)
        assert biggest(cl_array.to_device(queue, k)).get() == k.max()
    triangle = ReductionKernel(ctx, np.int64, neutral="0", reduce_expr="a+b", map_expr="i", arguments=[])
    assert triangle(range=slice(5000), queue=queue).get() == 5000 * 4999 // 2


@pytest.mark.parametrize("cls", [InclusiveScanKernel, ExclusiveScanKernel])
def test_scans_match_cumsum(ctx, queue, rng, cls, scan_shape):
    knl = cls(ctx, np.int64, "a+b", "0")
    for n in SIZES:
        host = rng.integers(-100, 100, n)
        dev = cl_array.to_device(queue, host)
        knl(dev)
        want = np.cumsum(host) - (host if cls is ExclusiveScanKernel else 0)
        np.testing.assert_array_equal(dev.get(), want)
    with pytest.raises(ValueError, match="needs a neutral"):
        ExclusiveScanKernel(ctx, np.int64, "a+b")


def test_segmented_scan_gives_prev_item_and_item(ctx, queue, rng, scan_shape):
    knl = GenericScanKernel(
        ctx, np.int32, "__global int *ary, __global char *starts, __global int *excl, __global int *incl",
        input_expr="ary[i]", scan_expr="across_seg_boundary ? b : (a+b)", neutral="0",
        is_segment_start_expr="starts[i]", output_statement="excl[i] = prev_item; incl[i] = item")
    for n in SIZES:
        a = rng.integers(0, 10, n).astype(np.int32)
        starts = np.zeros(n, np.uint8)
        starts[rng.choice(n, max(1, n // 7), replace=False)] = 1
        excl, incl = cl_array.empty(queue, n, np.int32), cl_array.empty(queue, n, np.int32)
        knl(cl_array.to_device(queue, a), cl_array.to_device(queue, starts), excl, incl)
        want_incl, want_excl, run = np.empty_like(a), np.empty_like(a), 0
        for i in range(n):
            if starts[i]:
                run = 0
            want_excl[i] = run
            run += a[i]
            want_incl[i] = run
        np.testing.assert_array_equal(incl.get(), want_incl)
        np.testing.assert_array_equal(excl.get(), want_excl)


def test_compaction_keeps_order(ctx, queue, rng, scan_shape):
    for n in SIZES:
        host = rng.integers(0, 1000, n).astype(np.int32)
        dev = cl_array.to_device(queue, host)
        crit = np.int32(300)
        out, count, _ = copy_if(dev, "ary[i] > myval", [("myval", crit)])
        np.testing.assert_array_equal(out.get()[:int(count.get())], host[host > crit])
        out, count, _ = remove_if(dev, "ary[i] > myval", [("myval", crit)])
        np.testing.assert_array_equal(out.get()[:int(count.get())], host[host <= crit])
        yes, no, count, _ = partition(dev, "ary[i] > myval", [("myval", crit)])
        c = int(count.get())
        np.testing.assert_array_equal(yes.get()[:c], host[host > crit])
        np.testing.assert_array_equal(no.get()[:n - c], host[host <= crit])
        out, count, _ = unique(cl_array.to_device(queue, np.sort(host)))
        np.testing.assert_array_equal(out.get()[:int(count.get())], np.unique(host))


def test_bitonic_sort_with_and_without_indices(ctx, queue, rng):
    keys = rng.standard_normal((2, 64, 3)).astype(np.float32)
    dev = cl_array.to_device(queue, keys)
    sorted_dev, _ = BitonicSort(ctx)(dev, axis=1)
    assert sorted_dev is dev
    np.testing.assert_array_equal(dev.get(), np.sort(keys, axis=1))
    flat = rng.integers(0, 50, 1024).astype(np.int32)
    dev, idx = cl_array.to_device(queue, flat), cl_array.arange(queue, 0, 1024, 1, dtype=np.int32)
    BitonicSort(ctx)(dev, idx=idx)
    np.testing.assert_array_equal(idx.get(), np.argsort(flat, kind="stable"))
    with pytest.raises(ValueError, match="power of 2"):
        BitonicSort(ctx)(cl_array.to_device(queue, flat[:1000]))


def test_radix_and_key_value_sorts(ctx, queue, rng):
    from ember.cl.algorithm import KeyValueSorter, RadixSort

    sort = RadixSort(ctx, "int *ary, int *payload", key_expr="ary[i]", sort_arg_names=["ary", "payload"])
    keys = rng.integers(0, 2**20, 5000).astype(np.int32)
    payload = np.arange(5000, dtype=np.int32)
    (got, carried), _ = sort(cl_array.to_device(queue, keys), cl_array.to_device(queue, payload), key_bits=16)
    order = np.argsort(keys & 0xFFFF, kind="stable")  # only the low 16 bits are keys
    np.testing.assert_array_equal(got.get(), keys[order])
    np.testing.assert_array_equal(carried.get(), payload[order])
    k, v = rng.integers(0, 50, 3000).astype(np.int32), rng.integers(0, 10**6, 3000)
    starts, lists, _ = KeyValueSorter(ctx)(queue, cl_array.to_device(queue, k), cl_array.to_device(queue, v), 50,
                                           starts_dtype=np.int32)
    starts, lists = starts.get(), lists.get()
    for key in range(50):
        np.testing.assert_array_equal(lists[starts[key]:starts[key + 1]], v[k == key])


def test_list_of_lists_builder(ctx, queue):
    from ember.cl.algorithm import ListOfListsBuilder
    from ember.cl.tools import VectorArg

    builder = ListOfListsBuilder(ctx, [("evens", np.int32), ("scaled", np.float64)], """
        void generate(LIST_ARG_DECL USER_ARG_DECL index_type i)
        {
            for (int j = 0; j < i % 4; ++j)
                APPEND_evens(2 * j);
            if (i % 3 == 0)
                APPEND_scaled(factor * x[i]);
        }""", arg_decls=[VectorArg(np.float64, "x"), "double factor"], eliminate_empty_output_lists=["scaled"])
    x = np.arange(100, dtype=np.float64) + 0.5
    result, _ = builder(queue, 100, cl_array.to_device(queue, x), 3.0)
    evens = result["evens"]
    want = [2 * j for i in range(100) for j in range(i % 4)]
    assert evens.count == len(want)
    np.testing.assert_array_equal(evens.lists.get(), want)
    np.testing.assert_array_equal(np.diff(evens.starts.get()), np.arange(100) % 4)
    scaled = result["scaled"]
    np.testing.assert_array_equal(scaled.nonempty_indices.get(), np.arange(0, 100, 3))
    np.testing.assert_array_equal(scaled.lists.get(), 3.0 * x[::3])
    np.testing.assert_array_equal(scaled.starts.get(), np.arange(35))
