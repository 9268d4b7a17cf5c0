"""Trust and safety after publication: roles, reviews, reports, disputes and moderation.

Every function takes a session and the acting ``User`` (None for a visitor), checks on the
server what that user may do, and raises a ``ServiceError``
(``benchmax.services.errors``) with a message safe to show.
Functions flush but never commit: the caller owns the transaction. Nothing here edits or
deletes a review, a decision or an audit event, and nothing touches a Test's prompt, output
or evidence bytes.
"""
