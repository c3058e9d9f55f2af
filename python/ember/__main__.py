"""The ``ember`` command: ``ember info`` (alias ``doctor``) and ``ember demo``."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ember", description="GPU programming from Python.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="backends, devices, libraries found and the kernel cache")
    sub.add_parser("doctor", help="same as info")
    sub.add_parser("demo", help="run the examples on the default device")
    args = parser.parse_args(argv)
    if args.command in ("info", "doctor"):
        from ._info import report

        print(report())
        return 0
    from ._demo import run

    return 1 if run() else 0


if __name__ == "__main__":
    sys.exit(main())
