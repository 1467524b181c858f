"""``python -m clinbridge``: the command line."""

from clinbridge.cli import main

main()
