"""A club's database is backed up while play goes on and comes back whole: `backup` and `restore`
on SQLite (its online backup API); a restore refuses a database that holds data unless told to
replace it, and a truncated or foreign file, writing nothing either way."""

from __future__ import annotations

import shutil
import sqlite3
import time
from contextlib import closing

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from backups import services
from backups.models import BackupRun
from games.models import Game
from tests.support.games import make_user, open_game, play_to_end

from .helpers import Players, every_game_whole, site_on, tables_of

pytestmark = pytest.mark.django_db(transaction=True)

# Rows the backup itself changes after its copy was taken: its own attempt, finished.
ITS_OWN_ROW = frozenset({"backups_backuprun"})


@pytest.fixture(scope="module")
def migrated(tmp_path_factory, django_db_blocker):
    """A migrated SQLite file, made once: each test starts from a copy."""
    path = tmp_path_factory.mktemp("migrated") / "site.sqlite3"
    with django_db_blocker.unblock(), site_on(path, migrate=True):
        pass
    return path


@pytest.fixture
def site(migrated, tmp_path):
    """The site on a migrated SQLite file of this test's own."""
    path = tmp_path / "site.sqlite3"
    shutil.copyfile(migrated, path)
    with site_on(path):
        yield path


def test_a_backup_taken_while_games_are_played_restores_whole_into_a_fresh_database(site, tmp_path):
    tables = [Players((f"a{n}", f"b{n}")) for n in range(2)]
    for players in tables:
        players.start()
    while sum(players.finished for players in tables) < 2:  # play is well under way
        time.sleep(0.05)
    backups = [services.do_backup(tmp_path / f"during-{n}.sqlite3") for n in range(2)]
    for players in tables:
        players.stop.set()
    for players in tables:
        players.join(120)
        assert players.error is None, players.error
    assert all(run.ok for run in backups)
    for number, run in enumerate(backups):
        with site_on(tmp_path / f"fresh-{number}.sqlite3"):
            services.do_restore(run.path)
            assert every_game_whole() >= 2
            assert Game.objects.filter(status="finished").exists()


def test_a_round_trip_after_play_is_identical_table_for_table_and_takes_new_rows(site, tmp_path):
    users = [make_user("anna"), make_user("boris")]
    play_to_end(open_game(users), users)
    run = services.do_backup(tmp_path / "after.sqlite3")
    before = tables_of(site, leave_out=ITS_OWN_ROW)
    with site_on(tmp_path / "fresh.sqlite3") as fresh:
        services.do_restore(run.path)
        assert tables_of(fresh, leave_out=ITS_OWN_ROW) == before
        assert len(before["games_move"]) > 0 and len(before["auth_user"]) == 2
        every_game_whole()
        # The restored database goes on: new people, a new game, new ids after the old ones.
        newcomers = [make_user("vera"), make_user("gleb")]
        game = play_to_end(open_game(newcomers), newcomers)
        assert game.pk > max(row[0] for row in before["games_game"])
        assert Game.objects.count() == 2
        every_game_whole()


def test_a_database_that_holds_data_is_refused_unless_replace_and_left_untouched(site, tmp_path):
    make_user("anna")
    run = services.do_backup(tmp_path / "anna.sqlite3")
    make_user("boris")
    before = tables_of(site)
    with translation.override("ru"), pytest.raises(services.BackupRefused) as refused:
        services.do_restore(run.path)
    assert str(refused.value) == (
        "В этой базе данных уже есть данные; ничего не восстановлено. "
        "Добавьте --replace, чтобы заменить их резервной копией."
    )
    assert tables_of(site) == before
    with pytest.raises(CommandError, match="--replace"):
        call_command("restore", run.path)
    assert tables_of(site) == before
    call_command("restore", run.path, "--replace")
    assert sorted(row[4] for row in tables_of(site)["auth_user"]) == ["anna"]  # username column


DAMAGED = "Резервная копия обрезана или повреждена; ничего не восстановлено."
FOREIGN = "Этот файл не резервная копия базы данных этого сайта."


def _damaged_copies(good, folder):
    data = good.read_bytes()
    truncated = folder / "truncated.sqlite3"
    truncated.write_bytes(data[: len(data) // 2])
    cut_by_a_page = folder / "cut.sqlite3"
    cut_by_a_page.write_bytes(data[:-4096])
    foreign_text = folder / "notes.sqlite3"
    foreign_text.write_text("not a database at all\n" * 100)
    other = folder / "other.sqlite3"
    with closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE recipes (name TEXT)")
        db.execute("INSERT INTO recipes VALUES ('pelmeni')")
        db.commit()
    return {truncated: DAMAGED, cut_by_a_page: DAMAGED, foreign_text: FOREIGN, other: FOREIGN}


@pytest.mark.parametrize("replace", [False, True])
def test_a_truncated_or_foreign_file_is_refused_with_a_clear_error_and_writes_nothing(site, tmp_path, replace):
    make_user("anna")
    services.do_backup(tmp_path / "good.sqlite3")
    before = tables_of(site)
    for bad, said in _damaged_copies(tmp_path / "good.sqlite3", tmp_path).items():
        with translation.override("ru"), pytest.raises(services.BackupRefused) as refused:
            services.do_restore(bad, replace=replace)
        assert str(refused.value) == said, bad.name
        assert tables_of(site) == before
    with pytest.raises(CommandError):
        call_command("restore", str(tmp_path / "cut.sqlite3"), "--replace")
    assert tables_of(site) == before
    sqlite3.connect(tmp_path / "empty.sqlite3").close()
    with site_on(tmp_path / "empty.sqlite3") as empty:
        with pytest.raises(services.BackupRefused):
            services.do_restore(tmp_path / "truncated.sqlite3")
        assert tables_of(empty) == {}


def test_the_backup_command_names_its_file_by_the_time_in_a_folder(site, tmp_path, settings):
    settings.BACKUP_DIR = tmp_path / "nightly"
    call_command("backup")
    (made,) = (tmp_path / "nightly").iterdir()
    assert made.name.startswith("durak-") and made.suffix == ".sqlite3"
    run = BackupRun.objects.get()
    assert run.ok and run.path == str(made) and run.size == made.stat().st_size
