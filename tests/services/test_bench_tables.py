"""`manage.py bench_tables` keeps working: a tiny run against a real daphne, and the
framework floor (bench.floor) beside it in the same run unless `--no-floor`."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLOOR_HEADER = "| table | floor idle p50 ms |"


def bench_tables(*options: str) -> subprocess.CompletedProcess:
    tiny = ["--seats", "2", "--samples", "10", "--rates", "10", "--duration", "0.5", "--tables", "2"]
    result = subprocess.run(
        [sys.executable, "manage.py", "bench_tables", *tiny, *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_bench_tables_smoke(tmp_path):
    out = tmp_path / "bench.json"
    result = bench_tables("--json", str(out))
    assert "| 2 seats |" in result.stdout
    data = json.loads(out.read_text())
    assert data["idle"]["2"]["n"] == 10
    assert data["saturation"]["2"]["achieved"] > 0
    assert data["saturation"]["2"]["server_cpu_ms_per_action"] > 0
    assert data["settings"]["debug"] is False
    # The floor, measured in the same run with the same client, and the site's share of it.
    assert data["settings"]["floor"]["frame_bytes"] == 8192
    assert data["floor"]["idle"]["2"]["n"] == 10
    assert data["floor"]["frame_bytes"]["2"] == 8192
    floor_saturation = data["floor"]["saturation"]["2"]
    assert floor_saturation["achieved"] > 0 and floor_saturation["server_cpu_ms_per_action"] > 0
    share = data["share"]["2"]
    assert share["saturation_pct"] == round(100 * data["saturation"]["2"]["achieved"] / floor_saturation["achieved"], 1)
    assert share["idle_p50_factor"] == round(data["idle"]["2"]["p50"] / data["floor"]["idle"]["2"]["p50"], 2)
    assert FLOOR_HEADER in result.stdout
    assert f"| 2 seats | {data['floor']['idle']['2']['p50']} |" in result.stdout
    assert f"{share['saturation_pct']} % | {share['idle_p50_factor']}x |" in result.stdout


def test_bench_tables_without_the_floor(tmp_path):
    out = tmp_path / "bench.json"
    result = bench_tables("--no-floor", "--json", str(out))
    assert "| 2 seats |" in result.stdout
    assert "floor" not in result.stdout
    data = json.loads(out.read_text())
    assert "floor" not in data and "share" not in data
    assert data["saturation"]["2"]["achieved"] > 0
