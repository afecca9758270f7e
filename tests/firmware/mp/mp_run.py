"""Runs the test_* functions of one module under MicroPython.

    micropython mp_run.py MODULE

Prints "ok NAME" or "FAIL NAME" and the traceback for each, and exits 1 if any
failed. tests/firmware/test_micropython.py runs it and reports each function
as its own pytest item.
"""

import sys


def main(name):
    module = __import__(name)
    names = sorted(n for n in dir(module) if n.startswith("test_"))
    failed = 0
    for n in names:
        try:
            getattr(module, n)()
        except Exception as e:  # a failing test must not stop the others
            failed += 1
            print("FAIL", n)
            sys.print_exception(e)
            print("END", n)
        else:
            print("ok", n)
    print(f"ran {len(names)}, failed {failed}")
    sys.exit(1 if failed else 0)


main(sys.argv[1])
