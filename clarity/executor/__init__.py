"""The only code that moves plans: apply, undo, recovery, and their journal. Imports judge
(the proposal), archive, plans and the shared pieces.

Nothing outside this package renames, copies, trashes or unlinks a plan.
"""
