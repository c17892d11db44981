#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    try:
        from django.core.management import execute_from_command_line
    except ImportError as exc:
        raise ImportError(
            "Couldn't import Django. Run `python3 dev.py serve` or `python3 dev.py test`, "
            "which create .venv and install requirements/dev.txt, or activate .venv."
        ) from exc
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
