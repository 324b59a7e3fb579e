"""The ``taor`` command. For now it only reports its version; the full command comes later."""

from __future__ import annotations

import sys

from taor._version import __version__


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print("usage: taor [--version]\n\nThe taor command-line interface is not built yet.")
        return 0
    print(f"taor {__version__}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
