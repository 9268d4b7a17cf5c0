"""The automated preview of a source ZIP ("browser-web-v1"), run after publication.

``request_preview`` is called in the transaction that publishes a Test and adds one durable
job when the Test has a source ZIP (public or private) and previews are on; publication never
waits for it. The job (``jobs.py``) evaluates the ZIP in the configured sandbox, stores the
artifacts under ``preview/`` and records the evaluation; ``view.py`` is what the Test page
reads. Artifacts are only ever served by the user-content origin, for a public Test.
"""
