"""Issue 21, "Speed": the load test names its slowest actions with their wall-clock times,
so that they can be set beside the server's own log of that moment (bench/loadtest.py)."""

import time

from bench import loadtest


def _part(timed):
    return {
        "latencies_ms": [ms for _, ms, _ in timed],
        "slowest": sorted(timed, key=lambda t: -t[1])[: loadtest.SLOWEST],
        "actions": len(timed),
        **dict.fromkeys(("refused", "timeouts", "closed", "stuck", "http_errors", "late", "deals"), 0),
        "client_cpu_s": 0.1,
        "seen": {},
        "unconfirmed": {},
        "games": [],
    }


def test_issue21_the_slowest_actions_of_every_client_are_merged_and_reported():
    options = loadtest.Options(url="http://127.0.0.1:8000", tables=2, duration=1.0)
    first = [[1796155000.25 + i, 5.0 + i, 7] for i in range(30)]  # 5..34 ms on table 7
    second = [[1796155100.5, 116.4, 9], [1796155101.0, 3.0, 9]]
    result = loadtest.merge([_part(first), _part(second)], options)
    assert len(result["slowest"]) == loadtest.SLOWEST
    assert result["slowest"][0] == [1796155100.5, 116.4, 9]
    assert [ms for _, ms, _ in result["slowest"][1:4]] == [34.0, 33.0, 32.0]
    result["server_cpu_s"], result["load_average"] = {}, (0.5, 0.6)
    text = loadtest.report(result, None)
    sent = time.strftime("%H:%M:%S", time.gmtime(1796155100.5))
    assert f"slowest actions (UTC time sent, ms, table): {sent}.500 116.4 t9, " in text
