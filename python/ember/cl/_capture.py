"""``Kernel.capture_call``: a kernel launch written out as a Python script that repeats it.

The script holds the program's source and build options, the contents of every buffer
argument at the time of the call (zlib-compressed, base64), the scalar arguments with their
dtypes and the launch sizes; its ``main()`` builds the program on ``create_some_context()``,
launches the kernel and returns the arguments (to read the buffers after). It is meant for
bug reports and for timing one kernel alone.
"""

from __future__ import annotations

import base64
import zlib

import numpy as np

from ._memory import Buffer, LocalMemory, _as_buffer, copy_buffers


def _encode(data: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(data.tobytes())).decode("ascii")


def _sizes(value) -> tuple[int, ...]:
    return tuple(int(v) for v in value) if np.ndim(value) else (int(value),)


def capture_kernel_call(kernel, output_file, queue, global_size, local_size, *args, wait_for=None,
                        g_times_l=False, allow_empty_ndrange=False, global_offset=None) -> None:
    """Writes a script repeating ``kernel(queue, global_size, local_size, *args)`` to
    ``output_file`` (a path or a text file object). The kernel is not launched."""
    program = kernel.program
    if not program.source:
        raise RuntimeError("cannot capture call, kernel source not available (the program was made from "
                           "binaries or by link_program)")
    if wait_for:
        queue._wait_for(wait_for)
    lines = ['"""Captured call of kernel ' + kernel.function_name + ' (ember.cl Kernel.capture_call)."""',
             "import base64", "import zlib", "", "import numpy as np", "", "from ember import cl", "",
             f"SOURCE = {program.source!r}", f"BUILD_OPTIONS = {list(program.options)!r}", "", "",
             "def _host(data, dtype):",
             "    return np.frombuffer(zlib.decompress(base64.b64decode(data)), dtype=dtype).copy()", "", "",
             "def main():", "    ctx = cl.create_some_context()", "    queue = cl.CommandQueue(ctx)",
             "    prg = cl.Program(ctx, SOURCE).build(BUILD_OPTIONS)",
             f"    knl = cl.Kernel(prg, {kernel.function_name!r})"]
    names = []
    for i, arg in enumerate(args):
        name = f"arg{i}"
        buf = _as_buffer(arg)
        if isinstance(buf, Buffer):
            host = np.empty(buf.size, np.uint8)
            copy_buffers(queue, host, buf)
            lines.append(f"    {name} = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, "
                         f"hostbuf=_host({_encode(host)!r}, np.uint8))")
        elif isinstance(arg, LocalMemory):
            lines.append(f"    {name} = cl.LocalMemory({arg.size})")
        elif arg is None:
            lines.append(f"    {name} = None")
        elif isinstance(arg, np.generic):
            value = np.asarray(arg)
            lines.append(f"    {name} = _host({_encode(value)!r}, np.dtype({value.dtype.str!r}))[0]")
        else:
            raise TypeError(f"cannot capture argument {i} of type {type(arg).__name__}: capture_call writes "
                            f"buffers, LocalMemory, None and NumPy scalars")
        names.append(name)
    call = ", ".join(["queue", repr(_sizes(global_size)), repr(None if local_size is None else _sizes(local_size)),
                      *names])
    lines += [f"    knl({call}, global_offset={global_offset!r}, g_times_l={g_times_l!r}, "
              f"allow_empty_ndrange={allow_empty_ndrange!r})", "    queue.finish()",
              f"    return [{', '.join(names)}]", "", "",
              'if __name__ == "__main__":', "    main()", ""]
    text = "\n".join(lines)
    if isinstance(output_file, str):
        with open(output_file, "w") as f:
            f.write(text)
    else:
        output_file.write(text)
