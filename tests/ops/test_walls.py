"""Issue 21, "Walls both ways": the apps beside `games` read it through its public face.

They never load its models by name (`apps.get_model("games", ...)` hides the
dependency from the import contracts) and never copy its choice values as
strings (a copy goes stale silently when games renames one): they import the
enums from `games.choices` and the reads from `games.selectors`.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from django.apps import apps

from games import engine

ROOT = Path(__file__).resolve().parents[2]
APPS_BESIDE_GAMES = ("ratings", "tournaments", "reviews", "friends")
GET_GAMES_MODEL = re.compile(r"""get_model\(\s*["']games["']""")
LOOKUPS = re.compile(r"(^|__)(status|source|variant)(__in)?$")


def _modules(*packages):
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _games_choice_values() -> set[str]:
    """Every value of every choices field of the games models, and the variant names."""
    values = set(engine.VARIANTS)
    for model in apps.get_app_config("games").get_models():
        for field in model._meta.get_fields():
            for value, _label in getattr(field, "choices", None) or ():
                if isinstance(value, str) and value:
                    values.add(value)
    return values


def _strings(node) -> list[str] | None:
    """The strings a constant expression is made of ("x", ("x", "y"), ["x"]), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
        parts = [_strings(e) for e in node.elts]
        if all(p is not None for p in parts):
            return [s for p in parts for s in p]
    return None


def _copies(tree: ast.AST, values: set[str]) -> list[tuple[int, str]]:
    found = []
    variants = set(engine.VARIANTS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            strings = _strings(node.value)
            if strings and all(s in values for s in strings):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.keyword) and node.arg and LOOKUPS.search(node.arg):
            strings = _strings(node.value)
            if strings and all(s in values for s in strings):
                found.append((node.value.lineno, f"{node.arg}={ast.unparse(node.value)}"))
        elif isinstance(node, ast.Constant) and node.value in variants:
            # A variant name is no ordinary word: written anywhere, it is a copy of the list.
            found.append((node.lineno, repr(node.value)))
    return sorted(set(found))


def test_issue21_no_app_loads_games_models_by_name():
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _modules(*APPS_BESIDE_GAMES)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if GET_GAMES_MODEL.search(line)
    ]
    assert offenders == []


def test_issue21_no_app_copies_a_games_choice_value():
    values = _games_choice_values()
    assert {"finished", "playing", "player", "timeout", *engine.VARIANTS} <= values
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {text}"
        for path in _modules(*APPS_BESIDE_GAMES, "durak_site")
        for number, text in _copies(ast.parse(path.read_text(encoding="utf-8")), values)
    ]
    assert offenders == []


def test_issue21_the_walls_test_sees_a_copy():
    """The checks above find what they look for (else they could never fail)."""
    values = _games_choice_values()
    source = 'FINISHED = "finished"\nX.objects.filter(game__moves__source="player")\nV = ("podkidnoy",)\n'
    assert sorted({n for n, _ in _copies(ast.parse(source), values)}) == [1, 2, 3]
    assert GET_GAMES_MODEL.search('apps.get_model("games", "Game")')


# ------------------------------------------- the engine's and the bots' allow-list

PURE = {"games/engine": ("games.engine",), "games/bots": ("games.engine", "games.bots")}


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import of a module, those inside functions too."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.append((node.lineno, f"{base}.{node.module}" if node.module else base))
            else:
                found.append((node.lineno, node.module))
    return found


def _not_allowed(name: str, allowed: tuple[str, ...]) -> bool:
    if name.partition(".")[0] in sys.stdlib_module_names:
        return False
    return not any(name == a or name.startswith(a + ".") for a in allowed)


def test_issue21_engine_and_bots_import_only_the_standard_library_and_the_engine():
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for folder, allowed in PURE.items()
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, name in _imports(path)
        if _not_allowed(name, allowed)
    ]
    assert offenders == []


def test_issue21_the_allow_list_refuses_what_it_does_not_name():
    assert not _not_allowed("random", PURE["games/bots"])
    assert not _not_allowed("games.engine.cards", PURE["games/bots"])
    assert _not_allowed("games.bots", PURE["games/engine"])
    assert _not_allowed("numpy", PURE["games/engine"])
    assert _not_allowed("games.enginex", PURE["games/engine"])
    assert "games.engine.actions" in {name for _, name in _imports(ROOT / "games" / "bots" / "heuristic.py")}
    relative = [name for _, name in _imports(ROOT / "games" / "bots" / "search.py") if name.startswith("games.bots")]
    assert "games.bots.heuristic" in relative
