"""The AI judge: pinned snapshots, calibration, budgeted and blinded reviews of public Tests.

Nothing here is on the publication path. ``review.request_ai_review`` only adds a job when a
Test has already been made public, and with ``BENCHMAX_JUDGE_BASE_URL`` unset it adds none.
Modules: ``snapshots`` (create, activate), ``calibration``, ``review`` (the job), ``budget``,
``evidence`` (bounds), ``blinding``, ``prompt`` (fencing), ``verdict`` (strict replies),
``sampling`` (one request), ``status`` (/operations figures) and ``card`` (public view).
"""
