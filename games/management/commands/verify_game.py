"""python manage.py verify_game <id>: re-deal a finished game from its revealed
seed and check the commitment, every move and the stored result."""

from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.positions import verify_game


class Command(BaseCommand):
    help = "Check a finished game: SHA-256 of the seed, the deal, every move and the result."

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int, help="the id of a finished game")

    def handle(self, *args, game_id: int, **options):
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(f"There is no game {game_id}.")
        if not game.is_over:
            raise CommandError(
                f"Game {game_id} is not over yet: its seed stays secret until the end, so it cannot be verified now."
            )
        self.stdout.write(
            f"Game {game.pk} ({game.variant}, {game.rules.get('players')} players, {game.move_count} moves)"
        )
        self.stdout.write(f"seed:      {game.seed}")
        self.stdout.write(f"seed hash: {game.seed_hash}")
        result = verify_game(game)
        for check in result.checks:
            self.stdout.write(self.style.SUCCESS(f"ok    {check}"))
        for problem in result.problems:
            self.stdout.write(self.style.ERROR(f"FAIL  {problem}"))
        if not result.ok:
            raise CommandError(f"Game {game.pk} does NOT verify: {len(result.problems)} problem(s).")
        self.stdout.write(self.style.SUCCESS(f"Game {game.pk} verifies: the deal and every move are honest."))
