"""The optional agent (SPEC 8): advice from Claude, never a decision.

Nothing here imports the anthropic SDK at module level: commands that do not
use the agent never pay for it.
"""
