"""How each database copies itself: one engine per Django vendor, each with all it knows
(the file's suffix, making a backup, checking a file, restoring it), chosen by `engine_for`.

Both use the database's own tools: SQLite's online backup API (a snapshot of one moment,
taken while the site runs: in WAL mode readers never block writers) and, for PostgreSQL,
pg_dump's custom format (one repeatable-read transaction: a consistent snapshot while play
goes on) with pg_restore. pg_dump and pg_restore must be installed where the command or
the batch worker runs, of the server's major version or newer.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
from pathlib import Path

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

SQLITE_MAGIC = b"SQLite format 3\x00"
PGDUMP_MAGIC = b"PGDMP"


class BackupRefused(Exception):
    """A file that cannot be restored, or a database that may not be restored into; nothing written."""


def _site_tables() -> tuple[str, str]:
    """Tables every database of this site has: the migration log and the accounts."""
    return "django_migrations", get_user_model()._meta.db_table


def _not_this_site() -> BackupRefused:
    return BackupRefused(_("This file is not a backup of this site's database."))


def _damaged() -> BackupRefused:
    return BackupRefused(_("This backup is truncated or damaged; nothing was restored."))


class SQLiteEngine:
    vendor = "sqlite"
    suffix = ".sqlite3"

    def backup(self, connection, target: Path) -> None:
        source = connection.get_new_connection(connection.get_connection_params())
        try:
            copy = sqlite3.connect(target)
            try:
                # All pages in one step: one read transaction, so one moment of the database.
                source.backup(copy)
                # The copy stands alone: no -wal file beside it.
                copy.execute("PRAGMA journal_mode=DELETE")
            finally:
                copy.close()
        finally:
            source.close()

    def check(self, path: Path) -> None:
        with open(path, "rb") as file:
            header = file.read(100)
        if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
            raise _not_this_site()
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        size_valid = header[24:28] == header[92:96]  # SQLite's own rule for trusting the size field
        if size_valid and path.stat().st_size != page_size * pages:
            raise _damaged()
        try:
            copy = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                if copy.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                    raise _damaged()
                tables = {row[0] for row in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            finally:
                copy.close()
        except sqlite3.DatabaseError:
            raise _damaged() from None
        if not set(_site_tables()) <= tables:
            raise _not_this_site()

    def restore(self, connection, path: Path) -> None:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            target = connection.get_new_connection(connection.get_connection_params())
            try:
                # The backup API writes every page of the target in one write transaction:
                # a failure leaves it as it was.
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
        connection.close()  # this process's connection reopens on the restored pages


def _pg_environment(connection) -> dict:
    """libpq's variables for the database `connection` names (the password never on a command line)."""
    params = connection.settings_dict
    env = dict(os.environ)
    for key, variable in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD")):
        if params.get(key):
            env[variable] = str(params[key])
    env["PGDATABASE"] = params["NAME"]
    return env


def _run(command: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise BackupRefused(
            _("%(tool)s is not installed: PostgreSQL's client tools are needed to back up and restore.")
            % {"tool": command[0]}
        ) from None


class PostgreSQLEngine:
    vendor = "postgresql"
    suffix = ".pgdump"

    def backup(self, connection, target: Path) -> None:
        done = _run(["pg_dump", "--format=custom", f"--file={target}"], _pg_environment(connection))
        if done.returncode:
            raise RuntimeError(f"pg_dump failed: {done.stderr.strip()[-500:]}")

    def check(self, path: Path) -> None:
        with open(path, "rb") as file:
            if file.read(5) != PGDUMP_MAGIC:
                raise _not_this_site()
        listing = _run(["pg_restore", "--list", str(path)])
        if listing.returncode:
            raise _damaged()
        names = set(re.findall(r" TABLE DATA \S+ (\S+)", listing.stdout))
        if not set(_site_tables()) <= names:
            raise _not_this_site()
        # Read the whole archive without a database: a file cut short fails here.
        if _run(["pg_restore", "--file=/dev/null", str(path)]).returncode:
            raise _damaged()

    def restore(self, connection, path: Path) -> None:
        connection.close()
        done = _run(
            [
                "pg_restore",
                "--clean",
                "--if-exists",
                "--no-owner",
                "--no-acl",
                "--single-transaction",  # all or nothing: a failure leaves the database as it was
                "--exit-on-error",
                f"--dbname={connection.settings_dict['NAME']}",
                str(path),
            ],
            _pg_environment(connection),
        )
        if done.returncode:
            raise BackupRefused(
                _("The database refused the backup; nothing was restored: %(error)s")
                % {"error": done.stderr.strip()[-500:]}
            )


ENGINES = {engine.vendor: engine for engine in (SQLiteEngine(), PostgreSQLEngine())}


def engine_for(connection):
    try:
        return ENGINES[connection.vendor]
    except KeyError:
        raise BackupRefused(
            _("Backups of a %(vendor)s database are not supported.") % {"vendor": connection.vendor}
        ) from None


def holds_data(connection) -> bool:
    """Whether the database has anyone's account: a club's data (an empty or migrated-only one has none)."""
    users = _site_tables()[1]
    if users not in connection.introspection.table_names():
        return False
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {connection.ops.quote_name(users)} LIMIT 1")
        return cursor.fetchone() is not None
