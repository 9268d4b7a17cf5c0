"""The showcase leaderboard: policy, eligibility, shrunk scores and immutable snapshots.

Nothing here is on the path to publication: a Test is public whatever this package says,
and a snapshot only ever reads Tests and reviews.
"""
