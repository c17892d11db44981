"""People at a table over real HTTP and websockets, on whichever server process they use."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field

from bench.loadtest import Browser, Seat, new_player

FRAME_TIMEOUT = 15.0
MAX_MOVES = 600


@dataclass
class Person:
    browser: Browser
    base: str  # the server process this person's browser talks to
    seat_number: int
    socket: Seat | None = None

    @classmethod
    def new(cls, base: str, seat_number: int, signup: bool = False) -> Person:
        """A guest (who also gets a private table against a bot), or one who signs up."""
        return cls(new_player(base, signup=signup), base, seat_number)

    @property
    def session(self) -> str:
        return self.browser.cookie("sessionid")

    async def connect(self, table_id: int, base: str | None = None) -> Seat:
        """Open (or re-open, maybe on another process) the table's socket; its first state."""
        self.base = base or self.base
        self.socket = await Seat.open(self.base, table_id, self.session, FRAME_TIMEOUT)
        assert await self.socket.wait_for(lambda: self.socket.game is not None, FRAME_TIMEOUT), "no state frame"
        return self.socket


@dataclass
class Play:
    """The moves the people made and saw accepted: {game id: {number: (seat, action)}}."""

    people: list[Person]
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    seen: dict = field(default_factory=dict)

    async def wait_all(self, test, timeout: float = FRAME_TIMEOUT) -> bool:
        results = await asyncio.gather(*(p.socket.wait_for(lambda p=p: test(p.socket), timeout) for p in self.people))
        return all(results)

    def in_step(self) -> bool:
        first = self.people[0].socket
        return all(p.socket.game == first.game and p.socket.moves == first.moves for p in self.people)

    async def move(self) -> bool:
        """One move by someone whose page shows legal moves; False when the game is over."""
        sockets = [p.socket for p in self.people]
        top = max(sockets, key=lambda s: (s.game or 0, s.moves))
        assert await self.wait_all(lambda s: s.game == top.game and s.moves >= top.moves), "a seat fell behind"
        assert self.in_step(), [(s.game, s.moves) for s in sockets]
        if any(s.over for s in sockets):
            return False
        movers = [p for p in self.people if p.socket.legal]
        assert movers, "a running game where nobody may move"
        person = self.rng.choice(movers)
        action = choose(person.socket.legal, self.rng)
        game, moves = top.game, top.moves
        await person.socket.connection.send(json.dumps({"action": action}))
        assert await self.wait_all(lambda s: s.moves > moves), f"move {moves} ({action}) did not reach every seat"
        self.seen.setdefault(game, {})[moves] = (person.seat_number, action)
        return True

    async def play(self, limit: int = MAX_MOVES) -> int:
        made = 0
        while made < limit and await self.move():
            made += 1
        return made

    async def close(self):
        for p in self.people:
            if p.socket is not None:
                await p.socket.close()


def choose(legal: list[str], rng: random.Random) -> str:
    """A legal move as the page offers them; taking the cards only now and then."""
    keep = [a for a in legal if a != "take"]
    return rng.choice(keep if keep and rng.random() < 0.85 else legal)


async def answer_to(socket: Seat, action: str) -> str:
    """Send a move; the refusal the server answers with ("" when it was accepted)."""
    while not socket.errors.empty():
        socket.errors.get_nowait()
    await socket.connection.send(json.dumps({"action": action}))
    return await asyncio.wait_for(socket.errors.get(), FRAME_TIMEOUT)


def wait_until(test, timeout: float, every: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = test()
        if value:
            return value
        time.sleep(every)
    return test()
