"""``/submit``, the guided wizard, in parts named for what they draw.

``page`` is the screen and its access gates, ``steps`` the stepper and the five steps,
``controls`` the self-saving form fields, ``files`` the evidence upload and file rows, and
``processing`` the live view after submit.
"""
