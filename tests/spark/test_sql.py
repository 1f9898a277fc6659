"""``kafkactl-audit sql``: read-only unless ``--allow-writes``; every column type printed (#21).

The guard is checked through the test session's parser (Delta's, with delta-spark's jars) and
through Spark's own parser (what a session without Delta's extension uses); the refused
statements target this module's lakehouse, whose rows are read back after each one.
"""

from __future__ import annotations

import base64
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from jobs.cli import UsageError, main
from jobs.lakehouse.deltars import DeltaRsLakehouse
from jobs.lakehouse.ingested_files import digest_file, record_ingested
from jobs.lakehouse.port import WriteMode
from jobs.runtime.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
from jobs.runtime.context import JobContext
from jobs.runtime.read_only_sql import refusal
from jobs.sql import checked_sql, print_result, register_views
from jobs.stages.ingest_zk import run_for_cluster
from schemas.gold import ELECTIONS
from schemas.zk import ZK_RECORDS
from tests.conftest import REPO
from tests.helpers import ENGINES, require_delta_spark

pytestmark = pytest.mark.spark
CONF = str(REPO / "conf" / "local.yaml")
AFTERWARDS = "(use --allow-writes to run it)"
TABLES = "writes or changes tables or the catalog"
SESSION = "changes the session"

REFUSED = [
    ("INSERT INTO meta_ingested_files SELECT * FROM meta_ingested_files", f"INSERT {TABLES}"),
    ("FROM gold_elections INSERT INTO gold_elections SELECT *", f"INSERT {TABLES}"),
    (
        "WITH e AS (SELECT * FROM gold_elections) INSERT INTO gold_elections SELECT * FROM e",
        f"INSERT {TABLES}",
    ),
    (
        "INSERT OVERWRITE LOCAL DIRECTORY '{lakehouse}/meta/ingested_files' SELECT 1",
        "INSERT OVERWRITE DIRECTORY writes files",
    ),
    ("DROP TABLE gold_elections", f"DROP TABLE {TABLES}"),
    ("DROP VIEW gold_elections", f"DROP VIEW {TABLES}"),
    ("DELETE FROM gold_elections WHERE true", f"DELETE FROM TABLE {TABLES}"),
    ("UPDATE gold_elections SET topic = 'x'", f"UPDATE TABLE {TABLES}"),
    ("ALTER TABLE gold_elections ADD COLUMNS (b INT)", f"ADD COLUMNS {TABLES}"),
    ("ALTER VIEW gold_elections AS SELECT 1", f"ALTER VIEW AS {TABLES}"),
    ("CREATE TABLE x (a INT)", f"CREATE TABLE {TABLES}"),
    ("CREATE TEMP VIEW gold_elections AS SELECT 1", f"CREATE VIEW {TABLES}"),
    ("CREATE TABLE x AS SELECT 1", f"CREATE TABLE AS SELECT {TABLES}"),
    ("REPLACE TABLE x AS SELECT 1", f"REPLACE TABLE AS SELECT {TABLES}"),
    (
        "MERGE INTO gold_elections t USING gold_elections s ON t.topic = s.topic "
        "WHEN MATCHED THEN DELETE",
        f"MERGE INTO TABLE {TABLES}",
    ),
    ("TRUNCATE TABLE gold_elections", f"TRUNCATE TABLE {TABLES}"),
    ("CACHE TABLE gold_elections", f"CACHE TABLE {SESSION}"),
    ("UNCACHE TABLE gold_elections", f"UNCACHE TABLE {SESSION}"),
    ("CLEAR CACHE", f"CLEAR CACHE {SESSION}"),
    ("REFRESH TABLE gold_elections", f"REFRESH TABLE {SESSION}"),
    ("REFRESH '{lakehouse}'", f"REFRESH RESOURCE {SESSION}"),
    ("ADD JAR /nonexistent/x.jar", f"ADD JARS {SESSION}"),
    ("ADD FILE /nonexistent/x", f"ADD FILES {SESSION}"),
    ("SET spark.sql.shuffle.partitions=7", f"SET key=value {SESSION}"),
    ("SET TIME ZONE 'America/New_York'", f"SET key=value {SESSION}"),
    ("RESET", f"RESET {SESSION}"),
    ("USE default", f"USE {SESSION}"),
    ("MSCK REPAIR TABLE gold_elections", f"REPAIR TABLE {TABLES}"),
    ("ANALYZE TABLE gold_elections COMPUTE STATISTICS", f"ANALYZE TABLE {TABLES}"),
    ("CREATE TEMPORARY FUNCTION f AS 'x.Y'", f"CREATE FUNCTION {TABLES}"),
    ("CREATE TEMPORARY FUNCTION g() RETURNS INT RETURN 1", f"CREATE SQL FUNCTION {TABLES}"),
    ("DECLARE VARIABLE v INT", f"CREATE VARIABLE {TABLES}"),
    ("EXECUTE IMMEDIATE 'DROP VIEW gold_elections'", f"EXECUTE IMMEDIATE {TABLES}"),
    ("BEGIN DROP VIEW gold_elections; END", f"a SQL script {TABLES}"),
    ("LOAD DATA INPATH '/nonexistent' INTO TABLE gold_elections", f"LOAD DATA {TABLES}"),
    ("CALL system.x()", f"CALL {TABLES}"),
    ("EXPLAIN INSERT INTO gold_elections SELECT 1", f"EXPLAIN of INSERT {TABLES}"),
]
"""Statements both parsers read, each with what the refusal says about it."""

REFUSED_BY_DELTA = [
    ("VACUUM gold_elections", f"VACUUM TABLE {TABLES}"),
    ("OPTIMIZE gold_elections", f"OPTIMIZE TABLE {TABLES}"),
    ("RESTORE TABLE gold_elections TO VERSION AS OF 0", f"RESTORE TABLE {TABLES}"),
    ("CONVERT TO DELTA parquet.`{lakehouse}/gold/elections`", f"CONVERT TO DELTA {TABLES}"),
    ("GENERATE symlink_format_manifest FOR TABLE gold_elections", f"GENERATE {TABLES}"),
    ("REORG TABLE gold_elections APPLY (PURGE)", f"REORG TABLE {TABLES}"),
    ("CREATE TABLE x SHALLOW CLONE gold_elections", f"CLONE TABLE {TABLES}"),
]
"""Statements only Delta's parser reads (Spark's cannot parse them: a ParseException)."""

ALLOWED = [
    "SELECT topic, partition FROM gold_elections ORDER BY partition",
    "WITH e AS (SELECT * FROM gold_elections) SELECT count(*) FROM e",
    "VALUES (1, 'a')",
    "TABLE meta_ingested_files",
    "FROM gold_elections SELECT topic",
    "SELECT * FROM gold_elections |> WHERE partition = 1",
    "SHOW TABLES",
    "SHOW VIEWS",
    "SHOW COLUMNS IN gold_elections",
    "SHOW FUNCTIONS LIKE 'abs'",
    "DESCRIBE gold_elections",
    "DESCRIBE EXTENDED gold_elections topic",
    "DESCRIBE FUNCTION abs",
    "DESCRIBE QUERY SELECT * FROM gold_elections",
    "EXPLAIN SELECT * FROM gold_elections",
    "/* \U0001f600 */ EXPLAIN FORMATTED SELECT '\U0001f600' AS face",
    "EXPLAIN SHOW TABLES",
    "SET",
    "SET -v",
    "SET spark.sql.shuffle.partitions",
    "LIST JAR",
]

REFLECTION = [
    ("SELECT reflect('java.lang.System', 'setProperty', 'kafkactl.sql.test', 'ran')", "reflect"),
    (
        "SELECT java_method('java.lang.System', 'setProperty', 'kafkactl.sql.test', 'ran')",
        "java_method",
    ),
    (
        "SELECT try_reflect('java.lang.System', 'setProperty', 'kafkactl.sql.test', 'ran')",
        "try_reflect",
    ),
    (
        "SELECT IDENTIFIER('reflect')('java.lang.System', 'setProperty', 'kafkactl.sql.test', "
        "'ran')",
        "reflect",
    ),
    (
        "WITH r AS (SELECT reflect('java.lang.System', 'setProperty', 'kafkactl.sql.test', "
        "'ran') AS x) SELECT * FROM r",
        "reflect",
    ),
    (
        "SELECT * FROM gold_elections WHERE EXISTS (SELECT JAVA_METHOD('java.lang.System', "
        "'setProperty', 'kafkactl.sql.test', 'ran'))",
        "java_method",
    ),
    (
        "SELECT transform(array(1), x -> reflect('java.lang.System', 'setProperty', "
        "'kafkactl.sql.test', 'ran'))",
        "reflect",
    ),
]


def _elections(spark: SparkSession, lakehouse: DeltaRsLakehouse) -> None:
    required = {"cluster": "demo", "scenario": "as_logged", "trigger": "offline", "run_id": "r1"}
    rows = []
    for partition in (0, 1):
        values = {**required, "topic": "orders", "partition": partition, "new_leader": 2}
        rows.append(tuple(values.get(f.name) for f in ELECTIONS.schema.fields))
    frame = spark.createDataFrame(rows, ELECTIONS.schema)
    lakehouse.write(frame, ELECTIONS, WriteMode.append)


@pytest.fixture(scope="module")
def lakehouse(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lakehouse with three ingested files and two elections, its views registered."""
    root = tmp_path_factory.mktemp("sql")
    path = root / "lakehouse"
    path.mkdir()
    opened = DeltaRsLakehouse(spark, str(path))
    files = []
    for name, body in (("controller.log", "a\n"), ("state-change.log", "bb\n")):
        log = root / name
        log.write_text(body)
        files.append(digest_file(log))
    record_ingested(spark, opened, "demo", files, "logs", "run-1")
    record_ingested(spark, opened, "other", files[:1], "logs", "run-2")
    _elections(spark, opened)
    register_views(spark, opened)
    return path


def _rows_intact(spark: SparkSession) -> None:
    counts = spark.sql(
        "SELECT (SELECT count(*) FROM meta_ingested_files) AS files, "
        "(SELECT count(*) FROM gold_elections) AS elections"
    ).collect()
    assert [tuple(r) for r in counts] == [(3, 2)]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("engine", ENGINES)
def test_the_issue_insert_overwrite_directory_is_refused(
    spark: SparkSession, lakehouse: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if engine == "delta-spark":
        require_delta_spark(spark)
    base = ["--conf", CONF, "--lakehouse", str(lakehouse), "--engine", engine, "sql"]
    statement = (
        f"INSERT OVERWRITE DIRECTORY '{lakehouse}/gold/elections' USING parquet SELECT 1 AS a"
    )
    code, out, err = _cli(capsys, *base, statement)
    assert (code, out) == (2, "")
    assert err == (
        "kafkactl-audit: error: sql is read-only: INSERT OVERWRITE DIRECTORY writes files "
        f"{AFTERWARDS}\n"
    )
    assert (lakehouse / "gold" / "elections" / "_delta_log").is_dir()
    code, out, _ = _cli(
        capsys, *base, "SELECT count(*) AS n FROM gold_elections", "--format", "json"
    )
    assert (code, out) == (0, '{"n":2}\n')


@pytest.mark.parametrize(("statement", "why"), REFUSED)
def test_writing_statements_are_refused_and_change_nothing(
    spark: SparkSession, lakehouse: Path, statement: str, why: str
) -> None:
    with pytest.raises(UsageError) as refused:
        checked_sql(spark, statement.format(lakehouse=lakehouse), allow_writes=False)
    assert str(refused.value) == f"sql is read-only: {why} {AFTERWARDS}"
    _rows_intact(spark)
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"


@pytest.mark.parametrize(("statement", "why"), REFUSED)
def test_spark_s_own_parser_refuses_the_same(
    spark: SparkSession, lakehouse: Path, statement: str, why: str
) -> None:
    parser = spark._jvm.org.apache.spark.sql.execution.SparkSqlParser()
    assert refusal(parser, statement.format(lakehouse=lakehouse)) == why


@pytest.mark.parametrize(("statement", "why"), REFUSED_BY_DELTA)
def test_delta_statements_are_refused(
    spark: SparkSession, lakehouse: Path, statement: str, why: str
) -> None:
    require_delta_spark(spark)
    parser = spark._jsparkSession.sessionState().sqlParser()
    assert parser.getClass().getSimpleName() == "DeltaSqlParser"
    with pytest.raises(UsageError) as refused:
        checked_sql(spark, statement.format(lakehouse=lakehouse), allow_writes=False)
    assert str(refused.value) == f"sql is read-only: {why} {AFTERWARDS}"
    _rows_intact(spark)


@pytest.mark.parametrize("statement", ALLOWED)
def test_reading_statements_run(spark: SparkSession, lakehouse: Path, statement: str) -> None:
    assert refusal(spark._jvm.org.apache.spark.sql.execution.SparkSqlParser(), statement) is None
    rows = checked_sql(spark, statement, allow_writes=False).collect()
    if statement.startswith("SELECT topic"):
        assert [tuple(r) for r in rows] == [("orders", 0), ("orders", 1)]
    _rows_intact(spark)


def test_delta_s_reading_statements_run(spark: SparkSession, lakehouse: Path) -> None:
    require_delta_spark(spark)
    table = f"delta.`{lakehouse}/gold/elections`"
    for statement in (f"DESCRIBE DETAIL {table}", f"DESCRIBE HISTORY {table}"):
        assert checked_sql(spark, statement, allow_writes=False).count() >= 1


@pytest.mark.parametrize(("query", "function"), REFLECTION)
def test_reflection_is_refused_before_it_runs(
    spark: SparkSession, lakehouse: Path, query: str, function: str
) -> None:
    with pytest.raises(UsageError) as refused:
        checked_sql(spark, query, allow_writes=False).collect()
    assert str(refused.value) == (
        f"sql is read-only: {function} runs arbitrary Java methods {AFTERWARDS}"
    )
    assert spark._jvm.java.lang.System.getProperty("kafkactl.sql.test") is None


def test_allow_writes_runs_a_write(
    spark: SparkSession, lakehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--conf", CONF, "--lakehouse", str(lakehouse), "sql"]
    statement = "CREATE OR REPLACE TEMP VIEW sql_allowed AS SELECT 7 AS a"
    code, _, err = _cli(capsys, *base, statement)
    assert code == 2
    assert err.endswith(f"CREATE VIEW {TABLES} {AFTERWARDS}\n")
    assert not spark.catalog.tableExists("sql_allowed")
    code, _, err = _cli(capsys, *base, statement, "--allow-writes")
    assert (code, err) == (0, "")
    assert [tuple(r) for r in spark.table("sql_allowed").collect()] == [(7,)]
    spark.catalog.dropTempView("sql_allowed")


def test_a_parse_error_is_one_line(lakehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "--conf", CONF, "--lakehouse", str(lakehouse), "sql", "SELEC 1")
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1
    assert err.startswith("kafkactl-audit: error: ParseException: [PARSE_SYNTAX_ERROR]")


EVERY_TYPE = """
SELECT
  X'00FF10' AS bin,
  array(X'01', NULL) AS bins,
  CAST('12345678901234567890.123456789' AS DECIMAL(38, 9)) AS dec,
  DATE'2024-02-29' AS day,
  TIMESTAMP'2024-02-29 23:59:59.123456' AS ts,
  TIMESTAMP_NTZ'2024-02-29 23:59:59' AS ntz,
  array(1, NULL, 3) AS arr,
  map('k', X'AB') AS m,
  map(1, TIMESTAMP'2024-01-01 00:00:00') AS when,
  named_struct('b', X'CD', 'n', CAST(NULL AS INT), 'x', 1.5D, 'd', CAST(0.1 AS DECIMAL(4, 2)))
    AS st,
  NULL AS nothing,
  CAST(NULL AS BINARY) AS no_bytes,
  'a,"b"' AS s,
  true AS flag,
  CAST('NaN' AS DOUBLE) AS nan,
  INTERVAL '1-2' YEAR TO MONTH AS ym,
  INTERVAL '1 02:03:04.5' DAY TO SECOND AS dts,
  array(INTERVAL '3' MONTH) AS months,
  TIME '12:34:56.789' AS tod,
  parse_json('{"a":[1,2.5,null]}') AS v,
  st_geomfromwkb(X'0101000000000000000000F03F0000000000000040') AS geom,
  1 AS dup,
  2 AS dup
"""

EXPECTED_JSON = (
    '{"bin":"AP8Q","bins":["AQ==",null],"dec":12345678901234567890.123456789,'
    '"day":"2024-02-29","ts":"2024-02-29T23:59:59.123456Z","ntz":"2024-02-29T23:59:59",'
    '"arr":[1,null,3],"m":{"k":"qw=="},"when":{"1":"2024-01-01T00:00:00Z"},'
    '"st":{"b":"zQ==","n":null,"x":1.5,"d":0.10},"nothing":null,"no_bytes":null,'
    '"s":"a,\\"b\\"","flag":true,"nan":"NaN","ym":"INTERVAL \'1-2\' YEAR TO MONTH",'
    '"dts":"INTERVAL \'1 02:03:04.5\' DAY TO SECOND","months":["INTERVAL \'3\' MONTH"],'
    '"tod":"12:34:56.789000","v":{"a":[1,2.5,null]},'
    '"geom":{"srid":0,"wkb":"AQEAAAAAAAAAAADwPwAAAAAAAABA"},"dup":1,"dup":2}\n'
)

EXPECTED_CSV = (
    "bin,bins,dec,day,ts,ntz,arr,m,when,st,nothing,no_bytes,s,flag,nan,ym,dts,months,tod,v,"
    "geom,dup,dup\n"
    'AP8Q,"[""AQ=="",null]",12345678901234567890.123456789,2024-02-29,'
    '2024-02-29T23:59:59.123456Z,2024-02-29T23:59:59,"[1,null,3]",'
    '"{""k"":""qw==""}","{""1"":""2024-01-01T00:00:00Z""}",'
    '"{""b"":""zQ=="",""n"":null,""x"":1.5,""d"":0.10}",,,"a,""b""",true,NaN,'
    "INTERVAL '1-2' YEAR TO MONTH,INTERVAL '1 02:03:04.5' DAY TO SECOND,"
    '"[""INTERVAL \'3\' MONTH""]",12:34:56.789000,"{""a"":[1,2.5,null]}",'
    '"{""srid"":0,""wkb"":""AQEAAAAAAAAAAADwPwAAAAAAAABA""}",1,2\n'
)

EXPECTED_TABLE_CELLS = [
    "00FF10",
    '["01",null]',
    "12345678901234567890.123456789",
    "2024-02-29",
    "2024-02-29T23:59:59.123456Z",
    "2024-02-29T23:59:59",
    "[1,null,3]",
    '{"k":"AB"}',
    '{"1":"2024-01-01T00:00:00Z"}',
    '{"b":"CD","n":null,"x":1.5,"d":0.10}',
    "NULL",
    "NULL",
    'a,"b"',
    "true",
    "NaN",
    "INTERVAL '1-2' YEAR TO MONTH",
    "INTERVAL '1 02:03:04.5' DAY TO SECOND",
    "[\"INTERVAL '3' MONTH\"]",
    "12:34:56.789000",
    '{"a":[1,2.5,null]}',
    '{"srid":0,"wkb":"0101000000000000000000F03F0000000000000040"}',
    "1",
    "2",
]


@pytest.fixture
def new_york() -> Iterator[None]:
    """The driver's local time zone is not UTC: PySpark hands timestamps over in local time."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", "America/New_York")
        time.tzset()
        yield
    time.tzset()


def _printed(spark: SparkSession, fmt: str) -> str:
    out = io.StringIO()
    print_result(spark.sql(EVERY_TYPE), fmt, 10, out)
    return out.getvalue()


def test_every_type_in_every_format(spark: SparkSession, new_york: None) -> None:
    assert _printed(spark, "json") == EXPECTED_JSON
    assert _printed(spark, "csv") == EXPECTED_CSV
    header, rule, row = _printed(spark, "table").splitlines()
    widths = [len(dashes) for dashes in rule.split("  ")]
    cells, start = [], 0
    for width in widths:
        cells.append(row[start : start + width].strip())
        start += width + 2
    assert cells == EXPECTED_TABLE_CELLS
    assert header.split() == EXPECTED_CSV.splitlines()[0].split(",")


def test_zookeeper_records_as_json_lines(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = tmp_path / "version-2"
    data_dir.mkdir()
    snapshot = REPO / "tests" / "fixtures" / "zk" / "real-3.8" / "snapshot.0"
    (data_dir / "snapshot.0").write_bytes(snapshot.read_bytes())
    config = AppConfig(lakehouse=LakehouseConfig(path=str(tmp_path / "lh")), engine="delta-rs")
    ctx = JobContext(config=config, spark_factory=lambda _config: spark)
    run_for_cluster(ctx, ClusterConfig(name="zk1", inputs=ClusterInputs(zookeeper=[str(data_dir)])))
    query = "SELECT * FROM bronze_zk_records ORDER BY offset"
    code, out, err = _cli(
        capsys,
        "--conf",
        CONF,
        "--lakehouse",
        str(tmp_path / "lh"),
        "sql",
        query,
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    printed: list[dict[str, Any]] = [json.loads(line) for line in out.splitlines()]
    stored = ctx.lakehouse.read(ZK_RECORDS).orderBy("offset").collect()
    assert len(printed) == len(stored) > 0
    assert [p["offset"] for p in printed] == [r["offset"] for r in stored]
    assert [None if p["data"] is None else base64.b64decode(p["data"]) for p in printed] == [
        None if r["data"] is None else bytes(r["data"]) for r in stored
    ]
    assert any(p["data"] is not None for p in printed)


def test_a_user_defined_type_prints_as_its_sql_type(spark: SparkSession) -> None:
    from pyspark.ml.linalg import Vectors

    frame = spark.createDataFrame(
        [(Vectors.dense([1.0, 2.0]), Vectors.sparse(3, [1], [5.0]))], ["dense", "sparse"]
    )
    out = io.StringIO()
    print_result(frame, "json", 10, out)
    assert out.getvalue() == (
        '{"dense":{"type":1,"size":null,"indices":null,"values":[1.0,2.0]},'
        '"sparse":{"type":0,"size":3,"indices":[1],"values":[5.0]}}\n'
    )


def test_a_spark_connect_session_runs_nothing_unchecked() -> None:
    ran: list[str] = []

    class ConnectSession:
        """What the guard sees of a Spark Connect session: ``sql`` but no JVM session."""

        def sql(self, query: str) -> None:
            ran.append(query)

    session: Any = ConnectSession()
    with pytest.raises(UsageError, match=r"Spark Connect .* \(use --allow-writes"):
        checked_sql(session, "SELECT 1", allow_writes=False)
    assert ran == []
    checked_sql(session, "DROP TABLE x", allow_writes=True)
    assert ran == ["DROP TABLE x"]
