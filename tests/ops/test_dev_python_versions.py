"""Issue 17, "Setup": `dev.py` runs on Python 3.11 and every newer Python (3.12 and 3.13
users are not turned away), and refuses an older one with a clear message."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_dev():
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("version", [(3, 11), (3, 11, 9), (3, 12), (3, 13, 1), (3, 14), (4, 0)])
def test_issue17_dev_py_accepts_python_3_11_and_newer(version):
    assert load_dev().python_supported(version)


@pytest.mark.parametrize("version", [(3, 10), (3, 10, 14), (3, 9), (2, 7)])
def test_issue17_dev_py_refuses_an_older_python(version):
    assert not load_dev().python_supported(version)


def test_issue17_dev_py_tells_an_older_python_what_it_needs(monkeypatch, capsys):
    dev = load_dev()
    monkeypatch.setattr(sys, "version_info", (3, 10, 4, "final", 0))
    with pytest.raises(SystemExit):
        dev.check_interpreter()
    assert "3.11 or newer" in capsys.readouterr().err


def test_issue17_dev_py_lets_a_newer_python_through(monkeypatch):
    dev = load_dev()
    monkeypatch.setattr(sys, "version_info", (3, 13, 0, "final", 0))
    dev.check_interpreter()  # no SystemExit


def test_issue17_the_readme_says_which_pythons():
    readme = (ROOT / "README.md").read_text()
    assert "Python 3.11 or newer" in readme.split("## Quick start")[1].split("```")[0]
