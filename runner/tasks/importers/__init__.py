"""Importers: turn another benchmark's problems into Gauntlet task folders (`gauntlet tasks import`)."""
