"""The SQL statements ``kafkactl-audit sql`` runs without ``--allow-writes``: those that read.

Decided by the session's own parser before anything runs (with delta-spark it is Delta's, so
Delta's statements parse too): a statement is read-only when Spark's query grammar accepts it
(``parseQuery``: SELECT, WITH, VALUES, TABLE, FROM ... SELECT, pipe syntax) and its plan holds
no command, or when it is one of the listing commands below (SHOW, DESCRIBE, LIST, a ``SET``
that sets nothing, EXPLAIN of a read-only statement). Everything else, known or added by a
later Spark or Delta release, is refused. A query is also refused, after analysis and before it
runs, when it calls ``reflect``, ``java_method`` or ``try_reflect``: they run any static Java
method (``java.nio.file.Files.delete``).
"""

from __future__ import annotations

import re
from typing import Any

_COMMAND = "org.apache.spark.sql.catalyst.plans.logical.Command"
_LOGICAL_PLAN = "org.apache.spark.sql.catalyst.plans.logical.LogicalPlan"
_SUBQUERY = "org.apache.spark.sql.catalyst.expressions.SubqueryExpression"

LISTING_COMMANDS = frozenset(
    {
        "ShowCatalogsCommand",
        "ShowCollationsCommand",
        "ShowColumns",
        "ShowCreateTable",
        "ShowCurrentNamespaceCommand",
        "ShowFunctions",
        "ShowNamespacesCommand",
        "ShowPartitions",
        "ShowProceduresCommand",
        "ShowTableProperties",
        "ShowTables",
        "ShowTablesExtended",
        "ShowTablePartition",
        "ShowViews",
        "DescribeColumn",
        "DescribeDeltaDetailCommand",
        "DescribeDeltaHistory",
        "DescribeFunction",
        "DescribeNamespace",
        "DescribeProcedureCommand",
        "DescribeQueryCommand",
        "DescribeRelation",
        "ListArchivesCommand",
        "ListFilesCommand",
        "ListJarsCommand",
    }
)
"""Parsed plans (class simple names) of commands that only list or describe."""

REFLECTION = frozenset({"CallMethodViaReflection", "TryReflect"})
"""Analysed expressions (class simple names) of ``reflect``, ``java_method``, ``try_reflect``."""

_NAMES = {
    "InsertIntoStatement": "INSERT",
    "SetCatalogAndNamespace": "USE",
    "SetCommand": "SET key=value",
    "ResetCommand": "RESET",
    "CompoundBody": "a SQL script",
    "UnresolvedExecuteImmediate": "EXECUTE IMMEDIATE",
    "Call": "CALL",
}
_SESSION = frozenset(
    {
        "SetCommand",
        "ResetCommand",
        "SetCatalogAndNamespace",
        "SetCatalogCommand",
        "SetNamespaceCommand",
        "AddJarsCommand",
        "AddFilesCommand",
        "AddArchivesCommand",
        "CacheTable",
        "CacheTableAsSelect",
        "UncacheTable",
        "ClearCacheCommand",
        "RefreshTable",
        "RefreshResource",
    }
)
_WRITES = frozenset({"InsertIntoStatement", "InsertIntoDir"})
"""Parsed plans (class simple names) that write but are not commands (they become one later)."""


def refusal(parser: Any, query: str) -> str | None:
    """Why ``query`` may not run read-only, or None when it only reads.

    Args:
        parser: the session's SQL parser (``sessionState().sqlParser()`` of the JVM session).
        query: the SQL text.

    Returns:
        ``"<statement> <what it does>"``, e.g. ``"INSERT OVERWRITE DIRECTORY writes files"``, or
        None.

    Raises:
        pyspark.errors.ParseException: the text does not parse.
    """
    plan = parser.parsePlan(query)
    name = _simple_name(plan)
    if name in LISTING_COMMANDS:
        return None
    if name == "SetCommand" and _sets_nothing(plan):
        return None
    if name == "ExplainCommand":
        explained = _explained_text(query, plan)
        if explained is None:
            return "EXPLAIN cannot be checked (Spark kept no text of the statement it explains)"
        inner = refusal(parser, explained)
        return None if inner is None else f"EXPLAIN of {inner}"
    nodes = _plans(plan)
    offender = next((n for n in nodes if _is_command(n) or _simple_name(n) in _WRITES), None)
    if offender is None and _is_query(parser, query):
        return None
    named = plan if offender is None else offender
    return f"{statement_name(named)} {_what_it_does(named)}"


def reflection_call(analyzed: Any) -> str | None:
    """The reflection function an analysed plan calls, or None.

    Args:
        analyzed: the analysed logical plan (``queryExecution().analyzed()``).

    Returns:
        The function as the plan prints it (``reflect``, ``java_method``, ``try_reflect``).
    """
    for expression in _expressions(analyzed):
        if _simple_name(expression) in REFLECTION:
            return str(expression.prettyName())
    return None


def statement_name(plan: Any) -> str:
    """A statement's name from its plan: ``DropTable`` is ``DROP TABLE``.

    Args:
        plan: a parsed logical plan.

    Returns:
        The name in capitals.
    """
    name = _simple_name(plan)
    if name == "InsertIntoDir":
        return "INSERT OVERWRITE DIRECTORY" if plan.overwrite() else "INSERT INTO DIRECTORY"
    if name in _NAMES:
        return _NAMES[name]
    stem = re.sub(r"(Command|Statement)$", "", name.removeprefix("Unresolved"))
    return " ".join(re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*", stem.removeprefix("Delta"))).upper()


def _what_it_does(plan: Any) -> str:
    name = _simple_name(plan)
    if name == "InsertIntoDir":
        return "writes files"
    if name in _SESSION:
        return "changes the session"
    return "writes or changes tables or the catalog"


def _simple_name(node: Any) -> str:
    return str(node.getClass().getSimpleName()).removesuffix("$")


def _is_command(plan: Any) -> bool:
    return _instance_of(plan, _COMMAND)


def _instance_of(node: Any, class_name: str) -> bool:
    """Whether a JVM object is a ``class_name`` (loaded by the object's own class loader)."""
    loader = node.getClass().getClassLoader()
    return bool(loader.loadClass(class_name).isInstance(node))


def _is_query(parser: Any, query: str) -> bool:
    try:
        parser.parseQuery(query)
    except Exception:  # the query grammar's refusal is the answer, not an error
        return False
    return True


def _sets_nothing(plan: Any) -> bool:
    """``SET``, ``SET -v`` and ``SET key`` list settings; ``SET key=value`` changes one."""
    pair = plan.kv()
    return not pair.isDefined() or not pair.get()._2().isDefined()


def _explained_text(query: str, plan: Any) -> str | None:
    """The statement after ``EXPLAIN [mode]``: it runs to the end of the text.

    The JVM counts UTF-16 code units, Python code points: the offset is applied to UTF-16.
    """
    start = plan.logicalPlan().origin().startIndex()
    if not start.isDefined():
        return None
    units = query.encode("utf-16-le")
    return units[2 * int(start.get()) :].decode("utf-16-le")


def _plans(plan: Any) -> list[Any]:
    """Every plan node: children, inner children (CTE definitions) and subqueries' plans."""
    found: list[Any] = []
    pending = [plan]
    while pending:
        node = pending.pop()
        found.append(node)
        pending.extend(_seq(node.children()))
        pending.extend(n for n in _seq(node.innerChildren()) if _instance_of(n, _LOGICAL_PLAN))
        for expression in _seq(node.expressions()):
            pending.extend(_subquery_plans(expression))
    return found


def _expressions(plan: Any) -> list[Any]:
    """Every expression of every plan node, nested expressions included."""
    found: list[Any] = []
    for node in _plans(plan):
        pending = _seq(node.expressions())
        while pending:
            expression = pending.pop()
            found.append(expression)
            pending.extend(_seq(expression.children()))
    return found


def _subquery_plans(expression: Any) -> list[Any]:
    plans = []
    pending = [expression]
    while pending:
        node = pending.pop()
        if _instance_of(node, _SUBQUERY):
            plans.append(node.plan())
        pending.extend(_seq(node.children()))
    return plans


def _seq(scala_seq: Any) -> list[Any]:
    items = []
    iterator = scala_seq.iterator()
    while iterator.hasNext():
        items.append(iterator.next())
    return items
