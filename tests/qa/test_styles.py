"""Layout fixes found on a 390 px phone; the style sheet keeps them (the browser
sweep in the QA report measured them)."""

from pathlib import Path

SITE_CSS = (Path(__file__).resolve().parents[2] / "static" / "css" / "site.css").read_text()


def test_the_invite_label_keeps_clear_of_the_sound_button():
    """On a phone the label of a private table's invite link ran under the sound button."""
    assert ".t-invite label { display: block; margin-bottom: 0.35rem; padding-right: 7.5rem; }" in SITE_CSS


def test_words_in_scrolling_tables_are_not_split_mid_word():
    """The profile's table headers read "Сыгран|о", "Выигра|л" at 390 px."""
    assert ".table-scroll .records td, .table-scroll .records th { overflow-wrap: break-word; }" in SITE_CSS
