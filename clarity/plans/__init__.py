"""What a plan's own text says: the reader (the only code that opens plans), its parsing,
markers, status, sub-plans, summary and the facts cache. Imports only the shared pieces."""
