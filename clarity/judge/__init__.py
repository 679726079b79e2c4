"""The judgement: the rules (classifier, pure), the scan that gathers the facts for them,
and the proposal apply carries out. Imports plans, transcripts, archive and the shared
pieces; of the executor only its one reader of past runs (executor/history.py)."""
