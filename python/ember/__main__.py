"""The ``ember`` command: ``ember info`` (alias ``doctor``), ``ember demo`` and ``ember bench``."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ember", description="GPU programming from Python.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="backends, devices, libraries found and the kernel cache")
    sub.add_parser("doctor", help="same as info")
    demo = sub.add_parser("demo", help="run the example programs on the default device")
    demo.add_argument("names", nargs="*", help="run only the examples whose file names contain these words")
    demo.add_argument("--dir", help="the folder of example programs (default: the ones shipped with ember)")
    sub.add_parser("bench", help="the benchmark suite beside the installed peers (ember bench -h)", add_help=False)
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:  # its options belong to ember bench itself
        from ._bench import main as bench

        return bench(argv[1:])
    args = parser.parse_args(argv)
    if args.command in ("info", "doctor"):
        from ._info import report

        print(report())
        return 0
    from ._demo import run

    return 1 if run(args.names, args.dir) else 0


if __name__ == "__main__":
    sys.exit(main())
