"""The PyOpenCL face's rows (issue 29): the same PyOpenCL program run through ``ember.cl`` and
through PyOpenCL itself, on the same OpenCL device: an element-wise kernel, a reduction, a
scan and a radix sort, each written once against PyOpenCL's API and given either module."""

from __future__ import annotations

import numpy as np

from .common import record
from .measure import gbps, sustained_us, wall_ms
from .report import Row


def _modules(lib) -> dict:
    """PyOpenCL's modules as ``lib`` provides them (ember.cl's, or PyOpenCL's own)."""
    if lib.name == "ember":
        from ember import cl
        from ember.cl import algorithm, array, elementwise, reduction, scan

        ctx = cl.create_some_context(interactive=False)
        queue = cl.CommandQueue(ctx)
    else:
        import pyopencl.algorithm as algorithm
        import pyopencl.array as array
        import pyopencl.elementwise as elementwise
        import pyopencl.reduction as reduction
        import pyopencl.scan as scan

        ctx, queue = lib.extra["ctx"], lib.extra["queue"]
    return {"ctx": ctx, "queue": queue, "array": array, "elementwise": elementwise, "reduction": reduction,
            "scan": scan, "algorithm": algorithm, "gpu": not ctx.devices[0].type & 2}  # 2: CL_DEVICE_TYPE_CPU


def _ms(m, fn, repeat: int) -> float:
    """Milliseconds per call: on a CPU device each call timed to its end (calls run about as
    they are made); on a GPU back-to-back calls and one finish, as a program issues them."""
    if m["gpu"]:
        return sustained_us(fn, m["queue"].finish, 4 * repeat, 5) / 1e3
    return wall_ms(fn, m["queue"].finish, repeat)


def _elementwise(m, n: int, repeat: int) -> float:
    lin = m["elementwise"].ElementwiseKernel(m["ctx"], "float a, float *x, float b, float *y, float *z",
                                             "z[i] = a*x[i] + b*y[i]", "bench_lin")
    rng = np.random.default_rng(0)
    x = m["array"].to_device(m["queue"], rng.random(n, dtype=np.float32))
    y = m["array"].to_device(m["queue"], rng.random(n, dtype=np.float32))
    z = m["array"].empty_like(x)
    ms = _ms(m, lambda: lin(np.float32(2), x, np.float32(3), y, z), repeat)
    np.testing.assert_allclose(z.get(), 2 * x.get() + 3 * y.get(), rtol=1e-6)
    return gbps(12 * n, ms)


def _reduction(m, n: int, repeat: int) -> float:
    red = m["reduction"].ReductionKernel(m["ctx"], np.float32, neutral="0", reduce_expr="a+b",
                                         map_expr="x[i]", arguments="__global float *x")
    x = m["array"].to_device(m["queue"], np.random.default_rng(1).random(n, dtype=np.float32))
    ms = _ms(m, lambda: red(x), repeat)
    np.testing.assert_allclose(float(red(x).get()), float(x.get().astype(np.float64).sum()), rtol=1e-3)
    return gbps(4 * n, ms)


def _scan(m, n: int, repeat: int) -> float:
    knl = m["scan"].InclusiveScanKernel(m["ctx"], np.int32, "a+b", "0")
    host = np.random.default_rng(2).integers(0, 10, n).astype(np.int32)
    x = m["array"].to_device(m["queue"], host)
    out = m["array"].empty_like(x)
    ms = _ms(m, lambda: knl(x, out), repeat)
    np.testing.assert_array_equal(out.get(), np.cumsum(host, dtype=np.int32))
    return n / (ms * 1e-3) / 1e6


def _radix(m, n: int, repeat: int) -> float:
    sort = m["algorithm"].RadixSort(m["ctx"], "int *ary", key_expr="ary[i]", sort_arg_names=["ary"])
    host = np.random.default_rng(3).integers(0, 2**30, n).astype(np.int32)
    x = m["array"].to_device(m["queue"], host)
    ms = _ms(m, lambda: sort(x, key_bits=30), repeat)
    (got,), _ = sort(x, key_bits=30)
    np.testing.assert_array_equal(got.get(), np.sort(host))
    return n / (ms * 1e-3) / 1e6


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    sizes = (16, 20) if quick else (20, 24)  # the range: 2^20 to 2^24
    repeat = 3 if quick else 10
    sort_log2 = 18 if quick else 20
    import ember

    # The same rows on a GPU's OpenCL driver (EMBER_BACKEND=opencl): `ember bench --only pyopencl`.
    kind = "CPU (no GPU)" if ember.Device(0).attributes.get("is_cpu") else "GPU (OpenCL)"
    group = f"{kind}: PyOpenCL's API"
    table = []
    for log2 in sizes:
        n = 1 << log2
        table += [
            (Row(group, f"ElementwiseKernel z = a*x + b*y, float32, 2^{log2}", "GB/s", True, ">= PyOpenCL"),
             lambda m, n=n: _elementwise(m, n, repeat)),
            (Row(group, f"ReductionKernel sum, float32, 2^{log2}", "GB/s", True, ">= PyOpenCL"),
             lambda m, n=n: _reduction(m, n, repeat)),
            (Row(group, f"InclusiveScanKernel, int32, 2^{log2}", "Melem/s", True, ">= PyOpenCL"),
             lambda m, n=n: _scan(m, n, repeat)),
        ]
    table.append((Row(group, f"RadixSort, int32 keys, 2^{sort_log2}", "Mkeys/s", True, ">= PyOpenCL"),
                  lambda m: _radix(m, 1 << sort_log2, max(3, repeat // 3))))
    for name in ("ember", "PyOpenCL"):
        if name not in libs:
            continue
        progress(f"PyOpenCL's API: {name}")
        try:
            m = _modules(libs[name])
        except Exception as e:  # the library cannot open the device: every row says why
            for row, _ in table:
                record(row, name, lambda e=e: (_ for _ in ()).throw(e))
            continue
        for row, run in table:
            record(row, name, lambda run=run, m=m: run(m))
    return [row for row, _ in table]
