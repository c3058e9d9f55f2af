"""How ``ember bench`` judges its rows: the ratio to the best peer and each kind of target, on
hand-checked figures (the benchmark itself never fails; this is its arithmetic)."""

from ember._bench.report import Row, judge, markdown


def row(unit, higher, target, **figures):
    return Row("g", f"w {target}", unit, higher, target, figures=dict(figures))


def test_ratio_is_embers_speed_over_the_fastest_peer_either_way():
    bandwidth = row("GB/s", True, ">= best peer", ember=3000.0, CuPy=2500.0, PyTorch=3100.0)
    assert bandwidth.best_peer() == ("PyTorch", 3100.0)
    assert abs(bandwidth.ratio() - 3000 / 3100) < 1e-12
    latency = row("ms", False, "<= best peer", ember=0.2, CuPy=0.4, PyTorch=0.3)
    assert latency.best_peer() == ("PyTorch", 0.3) and abs(latency.ratio() - 1.5) < 1e-12
    missing = row("ms", False, "<= best peer", ember=0.2, CuPy="n/a (ImportError: no cupy)")
    assert missing.best_peer() is None and missing.ratio() is None


def test_each_kind_of_target_is_judged():
    floor = Row("g", "floor", "µs", False, compare=False, key="floor", figures={"ember": 3.8})
    copy = Row("g", "copy", "GB/s", True, compare=False, key="copy", figures={"ember": 3000.0})
    rows = [
        floor, copy,
        row("GB/s", True, ">= best peer", ember=2900.0, CuPy=2950.0),           # behind: missed
        row("TFLOP/s", True, ">= 0.97x best peer", ember=49.0, CuPy=50.0),      # 0.98x: met
        row("µs", False, "<= floor + 1 µs", ember=4.7),                          # 4.7 <= 4.8: met
        row("µs", False, "<= floor + 0.5 µs", ember=4.4),                        # 4.4 > 4.3: missed
        row("GB/s", True, ">= 96% of the copy", ember=2850.0),                   # 95%: missed
        row("ms", False, "<= 250 ms", ember=49.9),                               # met
        row("GB/s", True, ">= 15 GB/s", ember=9.1),                              # missed
        row("GB/s", True, ">= PyOpenCL on PoCL", ember=4.3, PyOpenCL=0.9),       # met
        row("ms", False, ">= 10,000x faster than Numba's simulator", ember=0.06, **{"Numba simulator": 12250.0}),
        row("ms", False, "<= 250 ms", CuPy=130.0),                               # no ember figure: unknown
    ]
    judge(rows)
    assert [r.met for r in rows] == [None, None, False, True, True, False, False, True, False, True, True, None]
    md = markdown(rows, ["# test"])
    assert "Targets ember misses in this run:" in md
    assert "- w >= 15 GB/s: ember 9.10 GB/s, target >= 15 GB/s" in md
    assert "| MISSED |" in md and "| met |" in md
