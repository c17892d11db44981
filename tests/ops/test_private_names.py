"""A module's `_private` names are its own: no product module reaches into another's.

What one module needs from another is a public name of that module (`store.locked_game`,
`services.base.locked_event`): a leading underscore then keeps meaning "only this file uses
it", and a module can be split or rewritten without reading every other module first.
Checked on the syntax of every product module: `from x import _name` and `x._name` where
`x` is another module of the project (a class's `_meta` or a tuple's `_replace` are no modules).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("games", "ratings", "tournaments", "reviews", "notices", "friends", "durak_site")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str, root: Path) -> bool:
    """A module or package of the project (a file on disk), not a class or function in one."""
    base = root.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def reaches_into_privates(source: str, module: str, is_package: bool, root: Path) -> list[tuple[int, str]]:
    """(line, what) for each use of another project module's private name in `source`."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # local name -> the project module it is bound to
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source_module = _absolute(node, module, is_package)
            if source_module.split(".")[0] not in PRODUCT:
                continue
            for alias in node.names:
                if _is_private(alias.name) and source_module != module:
                    found.append((node.lineno, f"from {source_module} import {alias.name}"))
                elif _is_module(f"{source_module}.{alias.name}", root):
                    modules[alias.asname or alias.name] = f"{source_module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and _is_module(alias.name, root):
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and modules[node.value.id] != module
        ):
            found.append((node.lineno, f"{node.value.id}.{node.attr} ({modules[node.value.id]})"))
    return found


def test_no_product_module_uses_another_modules_private_names():
    offences = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = _module_name(path, ROOT)
            for line, what in reaches_into_privates(path.read_text(), module, path.name == "__init__.py", ROOT):
                offences.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert not offences, (
        "These modules use another module's private (_underscored) names; make the name public in "
        "the module that owns it (or move the code that needs it there):\n  " + "\n  ".join(offences)
    )


def test_the_check_sees_both_ways_of_reaching_in():
    """The walk above would catch a lapse: a from-import of a private name and an attribute of
    a module bound by name, relative or absolute; a class's `_meta` is no offence."""
    source = (
        "from games.services.store import locked_game\n"
        "from games.services import play\n"
        "from .base import _locked_event\n"
        "from games.models import Game\n"
        "play._apply_move(1)\n"
        "Game._meta.get_field('status')\n"
    )
    found = reaches_into_privates(source, "tournaments.services.rounds", False, ROOT)
    assert [line for line, _what in found] == [3, 5]
    assert "tournaments.services.base import _locked_event" in found[0][1]
    assert "games.services.play" in found[1][1]
