"""A child forked after ember opened its devices gets a clear error, never a hang; a child
forked before that, or started with `spawn`, works. Each case runs in a subprocess with a
timeout, since the failure guarded against is a child blocked for ever."""

import os
import subprocess
import sys
import tempfile
import textwrap

import ember
import pytest

# The device API the error names: the backend the tests run on.
TITLE = {"cuda": "CUDA", "opencl": "OpenCL"}[ember.Device(0).attributes["backend"]]


def run_script(body: str, timeout: float = 120) -> str:
    # A file, not `-c`: `spawn` children import the parent's main module to find `child`.
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(textwrap.dedent(body))
    try:
        done = subprocess.run(
            [sys.executable, f.name],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"hung for {timeout} s; output: {e.stdout!r} {e.stderr!r}")
    finally:
        os.unlink(f.name)
    assert done.returncode == 0, done.stderr
    return done.stdout


# The child reports what its first device call did: "ok <value>" or "<class> <message>".
CHILD = """
import multiprocessing as mp
import ember

def child(q, work):
    try:
        q.put("ok " + str(work()))
    except Exception as e:
        q.put(f"{type(e).__name__} {e}")

def in_child(method, work, timeout=60):
    ctx = mp.get_context(method)
    q = ctx.Queue()
    p = ctx.Process(target=child, args=(q, work))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        return "HUNG"
    return q.get(timeout=5)
"""


def test_a_child_forked_after_ember_started_gets_a_clear_error():
    out = run_script(
        CHILD
        + """
a = ember.arange(10)
print("parent", int(a.sum().get()))

def new_array():
    return int(ember.arange(5).sum().get())

def inherited_array():
    return int(a.sum().get())

print("new", in_child("fork", new_array))
print("inherited", in_child("fork", inherited_array))
print("parent", int(a.sum().get()))
"""
    )
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    for case in ("new", "inherited"):
        assert lines[case].startswith("ForkedProcessError "), out
        assert "'spawn'" in lines[case] and "forked" in lines[case]
        # Numba's words first ("CUDA initialized before forking"), with the device's API.
        assert lines[case].split(" ", 1)[1].startswith(f"{TITLE} initialized before forking: "), out
    assert out.splitlines()[0] == "parent 45" and out.splitlines()[-1] == "parent 45"


def test_the_error_is_a_runtime_error_of_ember():
    import ember.errors

    assert issubclass(ember.errors.ForkedProcessError, RuntimeError)
    assert issubclass(ember.errors.ForkedProcessError, ember.errors.EmberError)
    from ember.cuda.cudadrv.error import CudaDriverError  # what Numba's fork detection raises

    assert issubclass(ember.errors.ForkedProcessError, CudaDriverError)


def test_a_child_forked_before_ember_started_works_and_spawn_works():
    out = run_script(
        CHILD
        + """
def work():
    return int(ember.arange(5).sum().get())

if __name__ == "__main__":
    print("fork_first", in_child("fork", work))
    print("parent", int(ember.arange(10).sum().get()))
    print("spawn", in_child("spawn", work, timeout=120))
"""
    )
    assert out.splitlines() == ["fork_first ok 10", "parent 45", "spawn ok 10"]


def test_a_forked_child_that_does_not_use_the_device_exits_cleanly():
    # Arrays inherited and freed in the child, and its exit (atexit handlers, finalisation),
    # must not touch the parent's context.
    out = run_script(
        """
        import os, sys, ember
        arrays = [ember.arange(1000) for _ in range(10)]
        pid = os.fork()
        if pid == 0:
            del arrays
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
        print("parent", int(arrays[3].sum().get()))
        """
    )
    assert out.splitlines() == ["child 0", "parent 499500"]
