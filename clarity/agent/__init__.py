"""The optional agent (SPEC 8): advice from Claude, never a decision. Imports plans and the
shared pieces (the SDK only in claude.py, only when a request is made).

Nothing here imports the anthropic SDK at module level: commands that do not
use the agent never pay for it.
"""
