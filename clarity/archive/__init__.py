"""The archive as it lies on disk: its layout, index.jsonl and INDEX.md, and the shelf
(archived plans listed, found, read). Imports plans and the shared pieces; moves nothing."""
