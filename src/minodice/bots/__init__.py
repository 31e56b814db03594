"""Bots from random to expert, the bid advisor, and the bot interface."""
