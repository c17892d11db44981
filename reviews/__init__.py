"""Game reviews: after a finished game, a player's decisions judged by the search bot."""
