"""clarity's benchmark: a corpus generator, the baselines, and the runner (`python -m bench`)."""
