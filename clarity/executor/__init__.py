"""The only code that moves plans: apply, undo, recovery, and their journal.

Nothing outside this package renames, copies, trashes or unlinks a plan.
"""
