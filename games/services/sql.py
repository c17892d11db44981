"""The move path's own SQL: the two reads every move runs and its two writes, each statement
built once from the models' `_meta` (games.services.store locks and saves through them).

Every move runs the same reads, and building their SQL through a QuerySet costs more than
running them (docs/benchmarks.md, "The move path: ORM or prepared statements").
"""

import threading

from django.db import DatabaseError, connection, connections
from django.utils import timezone

from games.models import Game, Move


class Prepared:
    """A read of the move path: one SQL statement built once per database and thread from
    the models' `_meta`, then re-run with the looked-up value as its only parameter.

    Every move runs the same two reads, and building their SQL through a QuerySet
    (joins, FOR UPDATE) costs more than running them: with the ORM's reads and
    writes a move costs about 1.2 ms more CPU, 2.4 times as much (docs/benchmarks.md,
    "The move path: ORM or prepared statements"). The statement is the one
    `select_related` would send: the model's columns, then those of each row in
    `joins` (INNER JOIN for a required foreign key, else LEFT), and, with `lock`,
    the database's FOR UPDATE OF the model's row (where it has FOR UPDATE: SQLite
    has none, and the settings open its transactions with BEGIN IMMEDIATE). Rows
    become instances as a QuerySet makes them: values through the database's and
    the field's converters (those `Manager.raw()` applies too), `Model.from_db`,
    related instances set on their foreign keys, so reading them runs no query.
    Kept per thread, like Django's connections (a converter belongs to one).
    No ORM internals (compiler, populators): the models' `_meta`, the connection's
    `ops` and `features`, and `Model.from_db`, all public and stable.
    """

    def __init__(self, model, where: str, *, joins: tuple[str, ...] = (), order_by: str = "", lock: bool = False):
        self.model = model
        self.where = where  # the field compared with the looked-up value ("pk" or a field name)
        self.joins = joins  # foreign keys loaded along, parents first: ("table", "table__host")
        self.order_by = order_by
        self.lock = lock
        self.local = threading.local()

    def fetch(self, value, using: str = "default") -> list:
        connection = connections[using]
        plan = self._plan(connection)
        with connection.cursor() as cursor:
            cursor.execute(plan["sql"], (value,))
            rows = cursor.fetchall()
        converters, parts = plan["converters"], plan["parts"]
        found = []
        for row in rows:
            if converters:
                row = list(row)
                for position, functions, expression in converters:
                    cell = row[position]
                    for convert in functions:
                        cell = convert(cell, expression, connection)
                    row[position] = cell
            instances = []
            for model, names, start, end, key, parent, foreign_key in parts:
                if parent is None:
                    instance = model.from_db(using, names, row[start:end])
                else:
                    instance = None if row[key] is None else model.from_db(using, names, row[start:end])
                    owner = instances[parent]
                    if owner is not None:
                        setattr(owner, foreign_key.name, instance)
                instances.append(instance)
            found.append(instances[0])
        return found

    def _plan(self, connection) -> dict:
        plans = self.local.__dict__.setdefault("plans", {})
        plan = plans.get(connection.alias)
        if plan is None or plan["connection"] is not connection:
            plan = plans[connection.alias] = self._build(connection)
        return plan

    def _build(self, connection) -> dict:
        quote = connection.ops.quote_name
        # One entry per table: (model, SQL alias, index of the row it hangs from, foreign key, LEFT JOIN).
        tables = [(self.model, quote("t0"), None, None, False)]
        index_of = {"": 0}
        for path in self.joins:
            parent_path, _sep, name = path.rpartition("__")
            parent = index_of[parent_path]
            parent_model, _alias, _parent, _key, parent_left = tables[parent]
            foreign_key = parent_model._meta.get_field(name)
            index_of[path] = len(tables)
            left = parent_left or foreign_key.null  # below a LEFT JOIN every join is LEFT
            tables.append((foreign_key.related_model, quote(f"t{len(tables)}"), parent, foreign_key, left))
        columns, converters, parts, joins = [], [], [], []
        for model, alias, parent, foreign_key, left in tables:
            fields = model._meta.concrete_fields
            start = len(columns)
            for model_field in fields:
                expression = model_field.get_col(model._meta.db_table)
                functions = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
                if functions:
                    converters.append((len(columns), functions, expression))
                columns.append(f"{alias}.{quote(model_field.column)}")
            key = start + fields.index(model._meta.pk)  # NULL when a LEFT JOIN found no row
            parts.append((model, [f.attname for f in fields], start, len(columns), key, parent, foreign_key))
            if foreign_key is not None:
                target = foreign_key.target_field.column
                joins.append(
                    f" {'LEFT OUTER' if left else 'INNER'} JOIN {quote(model._meta.db_table)} {alias}"
                    f" ON {tables[parent][1]}.{quote(foreign_key.column)} = {alias}.{quote(target)}"
                )
        root = tables[0][1]
        meta = self.model._meta
        where = meta.pk if self.where == "pk" else meta.get_field(self.where)
        sql = f"SELECT {', '.join(columns)} FROM {quote(meta.db_table)} {root}{''.join(joins)}"
        sql += f" WHERE {root}.{quote(where.column)} = %s"
        if self.order_by:
            sql += f" ORDER BY {root}.{quote(meta.get_field(self.order_by).column)}"
        if self.lock and connection.features.has_select_for_update:
            of = (root,) if connection.features.has_select_for_update_of else ()
            sql += " " + connection.ops.for_update_sql(of=of)
        return {"connection": connection, "sql": sql, "converters": converters, "parts": parts}


_STATEMENTS: dict[tuple, tuple[str, list]] = {}  # (vendor, model, kind, field names) -> (SQL, fields)


def _statement(model, kind: str, names: tuple[str, ...]) -> tuple[str, list]:
    """The INSERT of `names` or the UPDATE of `names` by primary key, built once from `_meta`."""
    key = (connection.vendor, model, kind, names)
    found = _STATEMENTS.get(key)
    if found is None:
        fields = [model._meta.get_field(name) for name in names]
        quote = connection.ops.quote_name
        table = quote(model._meta.db_table)
        if kind == "insert":
            columns, values = ", ".join(quote(f.column) for f in fields), ", ".join(["%s"] * len(fields))
            sql = f"INSERT INTO {table} ({columns}) VALUES ({values})"
        else:
            assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
            sql = f"UPDATE {table} SET {assignments} WHERE {quote(model._meta.pk.column)} = %s"
        found = _STATEMENTS[key] = (sql, fields)
    return found


def insert_move(game_id: int, number: int, seat: int, action: str, source: str) -> None:
    """`Move.objects.create(...)` as one plain INSERT (no model instance: nothing reads it)."""
    sql, fields = _statement(Move, "insert", ("game", "number", "seat", "action", "source", "created_at"))
    values = (game_id, number, seat, action, source, timezone.now())  # created_at: auto_now_add
    with connection.cursor() as cursor:
        cursor.execute(sql, [f.get_db_prep_save(v, connection) for f, v in zip(fields, values)])


def update_game(game: Game, names: list[str]) -> None:
    """`game.save(update_fields=names)` as one plain UPDATE of the locked row."""
    sql, fields = _statement(Game, "update", tuple(names))
    params = [f.get_db_prep_save(f.pre_save(game, False), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params + [game.pk])
        if cursor.rowcount != 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")
