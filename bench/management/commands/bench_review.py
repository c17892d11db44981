"""Measure what a review costs: the CPU time of judging one seat's decisions.

    python manage.py bench_review --games 3 --variant podkidnoy --players 2 --level easy

Plays whole games between bots (seat 0 at `--level`, the others medium), then
judges seat 0's decisions with the review budget of the settings, as the
worker does, and prints the decisions judged, the CPU seconds and the marks
per game. Nothing is written to the database.
"""

import time

from django.core.management.base import BaseCommand

from games import engine
from games.bots import LEVELS, get_bot
from games.bots.arena import next_seat
from reviews import analysis, services


class Command(BaseCommand):
    help = "Measure the CPU time of reviewing one seat's decisions in bot games."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=3)
        parser.add_argument("--variant", choices=["podkidnoy", "perevodnoy"], default="podkidnoy")
        parser.add_argument("--players", type=int, default=2)
        parser.add_argument("--level", choices=list(LEVELS), default="easy", help="the reviewed seat's bot")
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, games, variant, players, level, seed, **options):
        rules = engine.Rules(variant=variant, players=players)
        limits = services.thresholds()
        deals, playouts = services.budget()
        self.stdout.write(f"{variant}, {players} players, seat 0 {level}; budget {deals} deals, {playouts} playouts")
        total_cpu = total_decisions = 0
        worst = 0.0
        for i in range(games):
            game = engine.Game.new(rules, seed=seed * 1000 + i, dealer=i % players)
            bots = [get_bot(level if s == 0 else "medium", seed=seed + s, timed=False) for s in range(players)]
            judged, marks, began = 0, {"inaccuracy": 0, "mistake": 0, "blunder": 0}, time.process_time()
            while not game.is_over:
                seat = next_seat(game)
                view = game.view(seat)
                action = bots[seat].choose(view)
                if seat == 0 and len(view["legal_actions"]) > 1:
                    t = time.process_time()
                    verdict = analysis.judge(view, action, limits, deals=deals, playouts=playouts)
                    worst = max(worst, time.process_time() - t)
                    judged += 1
                    if verdict is not None and verdict.label:
                        marks[verdict.label] += 1
                game.act(seat, action)
            cpu = time.process_time() - began
            total_cpu += cpu
            total_decisions += judged
            self.stdout.write(
                f"game {i + 1}: {judged} decisions judged in {cpu:.1f} s CPU; "
                f"{marks['inaccuracy']} inaccuracies, {marks['mistake']} mistakes, {marks['blunder']} blunders"
            )
        per = total_cpu / total_decisions if total_decisions else 0.0
        mean = total_cpu / max(games, 1)
        self.stdout.write(f"mean {mean:.1f} s CPU per review, {per:.2f} s per decision, worst decision {worst:.2f} s")
