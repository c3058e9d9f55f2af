"""The kernel cache: in-process hits, disk hits in a new process, corrupt entries rebuilt."""

import glob
import os

from conftest import run_python

# A kernel no other test builds, so its cache entries are this test's own.
PROBE = (
    "import ember, numpy as np\n"
    "a = ember.asarray(np.arange(6, dtype=np.uint16).reshape(2, 3)).T.astype(np.int8)\n"
    "assert a.get().tolist() == [[0, 3], [1, 4], [2, 5]]\n"
    "print(*ember._ember.cache_stats(0))\n"
)


def stats(out: str):
    memory, disk, compiles, corrupt = map(int, out.split())
    return memory, disk, compiles, corrupt


def test_disk_cache_hit_miss_and_corrupt(tmp_path):
    env = {"EMBER_CACHE_DIR": str(tmp_path)}
    first = run_python(PROBE, env)
    assert first.returncode == 0, first.stderr
    _, disk, compiles, _ = stats(first.stdout)
    assert compiles >= 1 and disk == 0, first.stdout
    entries = glob.glob(os.path.join(tmp_path, "kernels", "*.bin"))
    assert len(entries) == compiles

    second = run_python(PROBE, env)
    assert second.returncode == 0, second.stderr
    _, disk, compiles, _ = stats(second.stdout)
    assert compiles == 0 and disk >= 1, "a second process must load from disk, not compile"

    for path in entries:
        with open(path, "r+b") as f:
            f.seek(60)
            f.write(b"\xde\xad\xbe\xef")
    third = run_python(PROBE, env)
    assert third.returncode == 0, third.stderr
    _, disk, compiles, corrupt = stats(third.stdout)
    assert corrupt == len(entries) and compiles == len(entries) and disk == 0


def test_in_process_hits():
    code = (
        "import ember, numpy as np\n"
        "src = '__kernel void k(__global int* x) { x[get_global_id(0)] += 1; }'\n"
        "if ember.backend() == 'cuda': src = 'extern \"C\" __global__ void k(int* x) { x[threadIdx.x] += 1; }'\n"
        "ember._ember.compile_module(0, src, 'k')\n"
        "ember._ember.clear_module_map(0)\n"
        "ember._ember.compile_module(0, src, 'k')\n"
        "ember._ember.compile_module(0, src, 'k')\n"
        "print(*ember._ember.cache_stats(0))\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    memory, disk, compiles, _ = stats(r.stdout)
    assert (memory, disk, compiles) == (1, 1, 1), r.stdout


def test_disk_cache_can_be_disabled(tmp_path):
    r = run_python(PROBE, {"EMBER_CACHE_DIR": str(tmp_path), "EMBER_DISK_CACHE": "0"})
    assert r.returncode == 0, r.stderr
    assert not glob.glob(os.path.join(tmp_path, "kernels", "*.bin"))


def test_sources_are_saved_beside_the_entries_on_request(tmp_path):
    r = run_python(PROBE, {"EMBER_CACHE_DIR": str(tmp_path), "EMBER_CACHE_SAVE_SOURCE": "1"})
    assert r.returncode == 0, r.stderr
    binaries = glob.glob(os.path.join(tmp_path, "kernels", "*.bin"))
    sources = glob.glob(os.path.join(tmp_path, "kernels", "*.c[lu]"))
    assert binaries and len(sources) == len(binaries)
    assert {os.path.splitext(p)[0] for p in sources} == {os.path.splitext(p)[0] for p in binaries}
    text = "".join(open(p).read() for p in sources)
    assert "int8" in text and ("__kernel" in text or "__global__" in text), text[:400]
    # Without the variable, nothing but the entries is written.
    plain = run_python(PROBE, {"EMBER_CACHE_DIR": str(tmp_path / "plain")})
    assert plain.returncode == 0 and not glob.glob(os.path.join(tmp_path, "plain", "kernels", "*.c[lu]"))


def test_an_entry_under_another_kernels_key_is_rebuilt(tmp_path):
    # Two kernels' entries, each with a good checksum, swapped: each must be found out by the
    # key inside the entry and rebuilt (it failed with "no kernel named ..." for good).
    env = {"EMBER_CACHE_DIR": str(tmp_path)}
    code = (
        "import ember\n"
        "out = []\n"
        "for name, step in (('swap_a', 1), ('swap_b', 2)):\n"
        "    k = ember.ElementwiseKernel('int32 x', 'int32 y', f'y = x + {step}', name)\n"
        "    out.append(int(k(ember.zeros(4, dtype=ember.int32)).sum().get()))\n"
        "print(*out, *ember._ember.cache_stats(0))\n"
    )
    first = run_python(code, env)
    assert first.returncode == 0, first.stderr
    entries = sorted(glob.glob(os.path.join(tmp_path, "kernels", "*.bin")))
    blobs = [open(p, "rb").read() for p in entries]
    for path, blob in zip(entries, blobs[1:] + blobs[:1], strict=True):
        with open(path, "wb") as f:
            f.write(blob)
    second = run_python(code, env)
    assert second.returncode == 0, second.stderr
    a, b, _, disk, compiles, corrupt = map(int, second.stdout.split())
    assert (a, b) == (4, 8)
    assert corrupt == len(entries) and compiles == len(entries) and disk == 0, second.stdout
