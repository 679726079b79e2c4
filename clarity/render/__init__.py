"""Renderers: a report in, text out. Commands never print; these do."""
