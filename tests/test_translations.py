"""Every message a person reads is translated: the Russian catalogues are complete.

An empty or fuzzy Russian msgstr shows the English text (or a stale guess) to
Russian players; these tests fail on one, in the project's catalogue and in
every app's own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation

from games import bots, display, engine, errors

ROOT = Path(__file__).resolve().parents[1]
SKIP_DIRS = {".venv", "node_modules", ".git"}


def russian_catalogues() -> list[Path]:
    return sorted(
        path
        for path in ROOT.rglob("locale/ru/LC_MESSAGES/*.po")
        if not SKIP_DIRS.intersection(path.relative_to(ROOT).parts)
    )


def entries(path: Path):
    """(msgid, flags, msgstrs) of every live entry (obsolete `#~` ones left out)."""
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = [line for line in block.strip().splitlines() if not line.startswith("#~")]
        flags = {f.strip() for line in lines if line.startswith("#,") for f in line[2:].split(",")}
        fields: dict[str, str] = {}
        current = None
        for line in lines:
            match = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) \"(.*)\"$", line)
            if match:
                current = match.group(1)
                fields[current] = match.group(2)
            elif line.startswith('"') and current:
                fields[current] += line[1:-1]
        if "msgid" in fields and fields["msgid"]:
            yield fields["msgid"], flags, [v for k, v in fields.items() if k.startswith("msgstr")]


def test_there_is_a_russian_catalogue():
    assert ROOT / "locale/ru/LC_MESSAGES/django.po" in russian_catalogues()


@pytest.mark.parametrize("path", russian_catalogues(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_russian_message_is_translated_and_not_fuzzy(path):
    open_entries = [msgid for msgid, flags, msgstrs in entries(path) if "fuzzy" in flags or not all(msgstrs)]
    assert open_entries == [], f"{path.relative_to(ROOT)}: untranslated or fuzzy: {open_entries}"


def test_the_checker_sees_an_empty_and_a_fuzzy_message(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr "Language: ru\\n"\n\n'
        'msgid "Done"\nmsgstr ""\n\n'
        '#, fuzzy, python-format\nmsgid "Take %(n)s"\nmsgstr "Взять %(n)s"\n\n'
        'msgid "Pass"\nmsgstr "Пас"\n\n'
        '#~ msgid "Old"\n#~ msgstr ""\n',
        encoding="utf-8",
    )
    found = {msgid: ("fuzzy" in flags or not all(msgstrs)) for msgid, flags, msgstrs in entries(po)}
    assert found == {"Done": True, "Take %(n)s": True, "Pass": False}


SAMPLE_PARAMS = {"card": "6S", "target": "7H", "count": 3, "held": 2, "action": "'fly'", "type": "int"}


@pytest.mark.parametrize("code", sorted(engine.REFUSALS))
def test_every_engine_refusal_reads_in_russian(code):
    names = set(re.findall(r"\{(\w+)\}", engine.REFUSALS[code]))
    error = engine.IllegalAction(code, **{name: SAMPLE_PARAMS.get(name, 1) for name in names})
    refusal = errors.from_engine(error)
    assert refusal.code == code
    with translation.override("ru"):
        russian = str(refusal)
    with translation.override("en"):
        english = str(refusal)
    assert russian != english and not re.search(r"[A-Za-z]{4,}", re.sub(r"«[^»]*»|“[^”]*”", "", russian))


def test_every_bot_level_has_a_translated_name():
    assert {level for level, _name in bots.BOT_LEVELS} == set(display.BOT_LABELS)
