"""`manage.py bench_tables` keeps working: a tiny run against a real daphne."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_tables_smoke(tmp_path):
    out = tmp_path / "bench.json"
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "bench_tables",
            "--seats",
            "2",
            "--samples",
            "10",
            "--rates",
            "10",
            "--duration",
            "0.5",
            "--tables",
            "2",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "| 2 seats |" in result.stdout
    data = json.loads(out.read_text())
    assert data["idle"]["2"]["n"] == 10
    assert data["saturation"]["2"]["achieved"] > 0
    assert data["settings"]["debug"] is False
