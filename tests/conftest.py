"""Shared fixtures for the whole test suite."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from urllib.parse import urlsplit

import pytest

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def require_service(name: str, host: str, port: int, timeout: float = 2.0) -> None:
    """Make sure a TCP service answers on host:port.

    On a bare machine an unreachable service skips the test with a clear
    reason; under CI (CI=true) it fails the test, since CI must provide it.
    """
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except OSError as exc:
        reason = f"{name} is not reachable at {host}:{port} ({exc})"
    if in_ci():
        pytest.fail(f"{reason}; CI=true requires it", pytrace=False)
    pytest.skip(f"{reason}; start it to run this test")


def _service_url(env_var: str, default: str, name: str, default_port: int) -> str:
    url = os.environ.get(env_var) or default
    parts = urlsplit(url)
    require_service(name, parts.hostname or "127.0.0.1", parts.port or default_port)
    return url


@pytest.fixture
def postgres_url() -> str:
    """URL of a reachable PostgreSQL server (TEST_POSTGRES_URL, else local default)."""
    return _service_url("TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL, "PostgreSQL", 5432)


@pytest.fixture
def redis_url() -> str:
    """URL of a reachable Redis server (TEST_REDIS_URL, else local default)."""
    return _service_url("TEST_REDIS_URL", DEFAULT_REDIS_URL, "Redis", 6379)


@pytest.fixture
def private_redis_port():
    """A redis-server of the test's own on a free port (tests that restart Redis or hold its
    queues must not touch the machine's): its port. Skips on a bare machine without
    redis-server; fails under CI=true. A test may stop it itself."""
    binary = shutil.which("redis-server")
    if not binary:
        if in_ci():
            pytest.fail("redis-server is not installed; CI=true requires it", pytrace=False)
        pytest.skip("redis-server is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)
    try:
        yield port
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(10)


@pytest.fixture(autouse=True)
def reproducible_deals(request, monkeypatch):
    """Deal every test's games from seeds derived from the test's name, so a test
    that depends on how a game went plays the same game on every run."""
    import hashlib
    import itertools

    from games.services import tables

    counter = itertools.count()

    def seed() -> str:
        return hashlib.sha256(f"{request.node.nodeid}:{next(counter)}".encode()).hexdigest()

    monkeypatch.setattr(tables, "new_seed", seed)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Passwords in tests need no slow hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def players(django_user_model):
    """Six people who can log in (password "pw-secret-123")."""
    return [django_user_model.objects.create_user(f"player{i}", password="pw-secret-123") for i in range(6)]


@pytest.fixture(autouse=True)
def russian_by_default():
    """Every test starts in the site's default language (Russian), whatever a request
    of an earlier test activated in this thread; tests compare with literal Russian."""
    from django.utils import translation

    with translation.override("ru"):
        yield


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Every test starts with no rate counted (games.limits counts in the cache)."""
    from django.core.cache import cache

    cache.clear()
    yield
