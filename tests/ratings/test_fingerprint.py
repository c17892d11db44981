"""Issue 19: stored ratings made by another model are recomputed, once, by the sweep.

`VariantState.model_fingerprint` names the model a variant's ratings were computed
with; when `ratings.model.MODEL_FINGERPRINT` differs (the model or a parameter
changed), the variant's sweep recomputes it from its games and stores the new
fingerprint in the same transaction.
"""

import pytest

from ratings import model as rating_model
from ratings import services, tasks
from ratings.models import PairRating, RatedGame, Rating, RatingChange, VariantState
from tests.ratings.helpers import finished_game, people

pytestmark = pytest.mark.django_db

OTHER_MODEL = "AnotherModel mu=25 sigma=8.33333 beta=99"


def stored(variant):
    """Every stored row of a variant's ratings, in a fixed order."""
    return (
        sorted(Rating.objects.filter(variant=variant).values_list("user_id", "mu", "sigma", "games", "last_played")),
        sorted(PairRating.objects.filter(variant=variant).values_list("first_id", "second_id", "mu", "sigma", "games")),
        sorted(
            RatingChange.objects.filter(variant=variant).values_list(
                "game_id", "user_id", "seq", "mu_before", "sigma_before", "mu_after", "sigma_after"
            )
        ),
        sorted(RatedGame.objects.filter(variant=variant).values_list("game_id", "seq")),
    )


def fingerprint(variant):
    return VariantState.objects.get(variant=variant).model_fingerprint


def as_if_made_by_another_model(variant):
    """Stored ratings no current model would give (what an older model left behind)."""
    Rating.objects.filter(variant=variant).update(mu=0.5, sigma=1.5)
    RatingChange.objects.filter(variant=variant).update(mu_after=0.5)


@pytest.fixture
def club():
    anna, boris, vera, gleb = people("anna", "boris", "vera", "gleb")
    finished_game([(anna, 1), (boris, 2)])
    finished_game([(vera, 1), (gleb, 1), (anna, 3)])
    finished_game([(anna, 1), (boris, 2), (vera, 4), (gleb, 3)], partners=True)
    finished_game([(boris, 1), (gleb, 2)], variant="perevodnoy")
    assert services.sweep_unrated("podkidnoy") == 3
    assert services.sweep_unrated("perevodnoy") == 1
    assert fingerprint("podkidnoy") == fingerprint("perevodnoy") == rating_model.MODEL_FINGERPRINT
    return anna, boris, vera, gleb


def test_issue19_the_sweep_recomputes_ratings_of_another_model_once_and_stores_the_fingerprint(club, monkeypatch):
    computed = stored("podkidnoy")
    as_if_made_by_another_model("podkidnoy")
    other_variant, shipped = stored("perevodnoy"), rating_model.MODEL_FINGERPRINT
    monkeypatch.setattr(rating_model, "MODEL_FINGERPRINT", OTHER_MODEL)

    # Nothing is unrated, yet the sweep (the beat's task) recomputes the variant from its games.
    assert tasks.sweep_unrated.apply(args=["podkidnoy"]).get() == 3
    assert stored("podkidnoy") == computed
    state = VariantState.objects.get(variant="podkidnoy")
    assert state.model_fingerprint == OTHER_MODEL and state.recomputed_at is not None
    assert state.last_seq == 3
    assert stored("perevodnoy") == other_variant and fingerprint("perevodnoy") == shipped  # its own sweep's work

    # A repeated message finds the fingerprint current: nothing is recomputed (the marker stays).
    Rating.objects.filter(variant="podkidnoy").update(mu=0.25)
    assert tasks.sweep_unrated.apply(args=["podkidnoy"]).get() == 0
    assert set(Rating.objects.filter(variant="podkidnoy").values_list("mu", flat=True)) == {0.25}


def test_issue19_a_recomputation_that_fails_keeps_the_old_fingerprint_and_the_next_sweep_does_it(club, monkeypatch):
    computed = stored("podkidnoy")
    as_if_made_by_another_model("podkidnoy")
    left_behind = stored("podkidnoy")
    monkeypatch.setattr(rating_model, "MODEL_FINGERPRINT", OTHER_MODEL)
    real_save_state = services._save_state

    def lost_midway(*args, **kwargs):
        raise ConnectionError("worker lost")

    monkeypatch.setattr(services, "_save_state", lost_midway)
    with pytest.raises(ConnectionError):
        services.sweep_unrated("podkidnoy")
    # One transaction: neither the new rows nor the new fingerprint were kept.
    assert stored("podkidnoy") == left_behind
    assert fingerprint("podkidnoy") != OTHER_MODEL

    monkeypatch.setattr(services, "_save_state", real_save_state)
    assert services.sweep_unrated("podkidnoy") == 3
    assert stored("podkidnoy") == computed and fingerprint("podkidnoy") == OTHER_MODEL


def test_issue19_a_game_rated_after_a_model_change_is_not_added_to_ratings_of_the_old_model(club, monkeypatch):
    anna, boris, _, _ = club
    as_if_made_by_another_model("podkidnoy")
    monkeypatch.setattr(rating_model, "MODEL_FINGERPRINT", OTHER_MODEL)
    game = finished_game([(boris, 1), (anna, 2)])
    # The game's own task comes before the sweep: it recomputes the variant (four games) too.
    assert services.rate_game(game.pk) == 4
    assert fingerprint("podkidnoy") == OTHER_MODEL
    assert 0.5 not in set(Rating.objects.filter(variant="podkidnoy").values_list("mu", flat=True))
    incremental = stored("podkidnoy")
    services.recompute("podkidnoy")
    assert stored("podkidnoy") == incremental


def test_issue19_a_full_recomputation_stores_the_current_fingerprint(club, monkeypatch):
    monkeypatch.setattr(rating_model, "MODEL_FINGERPRINT", OTHER_MODEL)
    assert tasks.recompute.apply(args=["perevodnoy"]).get() == 1
    assert fingerprint("perevodnoy") == OTHER_MODEL
    assert services.sweep_unrated("perevodnoy") == 0
